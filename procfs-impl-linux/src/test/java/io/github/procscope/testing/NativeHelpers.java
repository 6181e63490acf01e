package io.github.procscope.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Small C test helpers (sources under {@code src/test/c}, shipped as test resources), compiled with
 * gcc on first use into a temporary directory. A missing gcc fails the test with a clear message.
 */
public final class NativeHelpers {
    private static final ConcurrentHashMap<String, Path> BUILT = new ConcurrentHashMap<>();

    private NativeHelpers() {
    }

    /**
     * @param name the source's base name ({@code four_threads} for {@code src/test/c/four_threads.c})
     * @return the path of the compiled executable
     */
    public static Path executable(String name) {
        return BUILT.computeIfAbsent(name, NativeHelpers::compile);
    }

    private static Path compile(String name) {
        if (!Commands.available("gcc")) {
            throw new AssertionError("gcc is needed to build the test helper " + name
                    + ".c: install it (apt-get install -y gcc)");
        }
        try (InputStream in = NativeHelpers.class.getResourceAsStream("/c/" + name + ".c")) {
            if (in == null) {
                throw new AssertionError("no test helper source c/" + name + ".c on the test class path");
            }
            Path dir = Files.createTempDirectory("procscope-helper-");
            dir.toFile().deleteOnExit();
            Path src = dir.resolve(name + ".c");
            Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
            Path exe = dir.resolve(name);
            Commands.run("gcc", "-O1", "-pthread", "-o", exe.toString(), src.toString());
            src.toFile().deleteOnExit();
            exe.toFile().deleteOnExit();
            return exe;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
