package io.github.procscope.linux;

import io.github.procscope.api.ProcscopeException;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;

/**
 * The one place that loads jnr-posix's native POSIX binding, lazily, on first use. Its pure-Java
 * fallback (which fakes or refuses most calls) is never used: if the native library cannot load, every
 * caller gets a {@link ProcscopeException} saying so.
 */
final class NativePosix {
    private NativePosix() {
    }

    private static final class Holder {
        static final POSIX POSIX;
        static final RuntimeException FAILURE;

        static {
            POSIX p = null;
            RuntimeException f = null;
            try {
                p = POSIXFactory.getNativePOSIX();
                if (!p.isNative()) {
                    f = new ProcscopeException("jnr-posix could not load its native library (jffi); "
                            + "procscope needs native POSIX calls here and will not use a pure-Java imitation");
                    p = null;
                }
            } catch (RuntimeException | LinkageError e) {
                f = new ProcscopeException("jnr-posix could not load its native library (jffi): " + e
                        + "; procscope needs native POSIX calls here", e);
            }
            POSIX = p;
            FAILURE = f;
        }
    }

    /**
     * @return the native POSIX binding
     * @throws ProcscopeException if it cannot be loaded on this machine
     */
    static POSIX get() {
        if (Holder.POSIX == null) {
            throw new ProcscopeException(Holder.FAILURE.getMessage(), Holder.FAILURE);
        }
        return Holder.POSIX;
    }
}
