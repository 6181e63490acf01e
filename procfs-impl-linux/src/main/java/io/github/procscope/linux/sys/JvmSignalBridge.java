package io.github.procscope.linux.sys;

import java.util.function.IntConsumer;

/**
 * The only place that touches {@code sun.misc.Signal} (module {@code jdk.unsupported}, exported and
 * supported for exactly this use). A handler installed here runs on a Java thread that the JVM starts
 * for each delivered signal, not inside the native signal handler, so it may run ordinary Java code.
 * (jnr-posix's {@code signal()} would run Java code inside the native handler; it is never used.)
 */
public final class JvmSignalBridge {
    private JvmSignalBridge() {
    }

    /** What {@link #install} did. */
    public static final class Installation {
        private final sun.misc.Signal signal;
        private final sun.misc.SignalHandler previous;
        /** Whether the JVM answered that the signal was ignored (it then installed nothing). */
        public final boolean previousWasIgnore;

        private Installation(sun.misc.Signal signal, sun.misc.SignalHandler previous) {
            this.signal = signal;
            this.previous = previous;
            this.previousWasIgnore = previous == sun.misc.SignalHandler.SIG_IGN;
        }
    }

    /** The JVM does not know the signal's name (it names no real-time signals). */
    public static final class UnknownSignalException extends Exception {
        private static final long serialVersionUID = 1L;

        UnknownSignalException(String message) {
            super(message);
        }
    }

    /** The JVM refused the handler ("Signal already used by VM or OS"). */
    public static final class RefusedException extends Exception {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /**
     * Installs {@code handler} for the signal named {@code name} (without {@code SIG}).
     *
     * @return the installation, holding the previous handler for {@link #restore}
     */
    public static Installation install(String name, IntConsumer handler)
            throws UnknownSignalException, RefusedException {
        sun.misc.Signal signal;
        try {
            signal = new sun.misc.Signal(name);
        } catch (IllegalArgumentException e) {
            throw new UnknownSignalException(e.getMessage());
        }
        try {
            sun.misc.SignalHandler previous = sun.misc.Signal.handle(signal, s -> handler.accept(s.getNumber()));
            return new Installation(signal, previous);
        } catch (IllegalArgumentException e) {
            throw new RefusedException(e.getMessage());
        }
    }

    /** Puts the previous handler back. */
    public static void restore(Installation installation) {
        sun.misc.Signal.handle(installation.signal, installation.previous);
    }
}
