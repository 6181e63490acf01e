package io.github.procscope.linux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fixture files and trees under {@code src/test/resources/fixtures}. */
final class Fixtures {
    private Fixtures() {
    }

    /** @return the path of a fixture file or directory */
    static Path path(String relative) {
        URL url = Fixtures.class.getResource("/fixtures/" + relative);
        if (url == null) {
            throw new AssertionError("no fixture " + relative);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** @return a fixture file's bytes */
    static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(path(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the bytes of a string written in a test */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
