package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.JffiStub;

/** Prints whether the jnr back end of the wall loads in this JVM, and where jffi took its stub from. */
public final class NativeLoadProbe {
    private NativeLoadProbe() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        boolean loaded;
        try {
            loaded = NativeWalls.load(NativeWalls.JNR) != null;
        } catch (IllegalStateException e) {
            loaded = false;
        }
        System.out.println((loaded ? "loaded " : "not-loaded ") + System.getProperty(JffiStub.BOOT_PATH_PROPERTY));
    }
}
