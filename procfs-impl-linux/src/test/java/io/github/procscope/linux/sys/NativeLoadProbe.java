package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.JffiStub;
import io.github.procscope.linux.sys.internal.NativeLibc;

/** Prints whether the native reader's binding loads in this JVM, and where jffi took its stub from. */
public final class NativeLoadProbe {
    private NativeLoadProbe() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        boolean loaded = NativeLibc.loadProcLibC() != null;
        System.out.println((loaded ? "loaded " : "not-loaded ") + System.getProperty(JffiStub.BOOT_PATH_PROPERTY));
    }
}
