package io.github.procscope.linux.parse;

/**
 * A planted violation for {@code ArchitectureTest}: a parser that touches jnr-ffi, outside the native wall. It
 * exists only in the test sources, so that the native-wall rule is shown to fail on it.
 */
final class PlantedNativeCall {
    private PlantedNativeCall() {
    }

    static long address(jnr.ffi.Pointer p) {
        return p.address();
    }
}
