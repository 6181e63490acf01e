package io.github.procscope.nvml.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the NVML test double ({@code src/test/c/nvml_double.c}), compiled once by this module's build into
 * its test classes as {@code nvml-double/VARIANT/libnvidia-ml.so.1} and carried in its test-jar, for the
 * tests of other modules (the tool's, the metrics'): on the test class path, copied out to a file when it
 * sits in a jar (once per variant and JVM, so that every caller loads the same copy).
 */
public final class NvmlDoubleLibrary {
    /** One file per variant: the tests' controls and the binding must load the same copy (the same state). */
    private static final java.util.Map<String, Path> LOCATED = new java.util.HashMap<>();

    private NvmlDoubleLibrary() {
    }

    /**
     * @param variant the double's variant directory, such as {@code full}
     * @return the library file, to be loaded as the driver's would be
     * @throws AssertionError       if the double is not on the test class path
     * @throws UncheckedIOException if it cannot be copied out of a jar
     */
    public static synchronized Path locate(String variant) {
        return LOCATED.computeIfAbsent(variant, NvmlDoubleLibrary::find);
    }

    private static Path find(String variant) {
        String resource = "nvml-double/" + variant + "/libnvidia-ml.so.1";
        URL url = NvmlDoubleLibrary.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new AssertionError("the NVML test double is not on the test class path as " + resource
                    + " (nvml-binding's build compiles src/test/c/nvml_double.c with gcc into its test classes)");
        }
        try {
            if ("file".equals(url.getProtocol())) {
                Path lib = Path.of(url.toURI());
                if (!Files.isRegularFile(lib)) {
                    throw new AssertionError("not a file: " + lib);
                }
                return lib;
            }
            Path dir = Files.createTempDirectory("nvml-double");
            Path lib = dir.resolve("libnvidia-ml.so.1");
            try (InputStream in = url.openStream()) {
                Files.copy(in, lib);
            }
            lib.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return lib;
        } catch (IOException | URISyntaxException e) {
            throw new UncheckedIOException(new IOException("cannot read the NVML test double at " + url, e));
        }
    }
}
