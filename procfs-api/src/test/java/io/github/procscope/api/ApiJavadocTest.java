package io.github.procscope.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The API's javadoc passes {@code javadoc -Xdoclint:all} with no warning: every public type and method has a
 * comment whose first sentence says what it does, and every parameter, return value and exception is
 * described. Run with the javadoc of JDK 18 or newer (this JVM's, else {@code $JDK25_HOME}'s): JDK 17's javadoc
 * asks a record's compact constructor for a {@code @param} per component, which the record's own comment
 * already gives.
 */
class ApiJavadocTest {

    @Test
    void doclintAllReportsNothing(@TempDir Path out) throws Exception {
        Path javadoc = javadoc();
        Path sources = Path.of("src/main/java").toAbsolutePath();
        assertTrue(Files.isDirectory(sources.resolve("io/github/procscope/api")), sources.toString());
        List<String> cmd = new ArrayList<>(List.of(javadoc.toString(), "-Xdoclint:all", "-Xmaxwarns", "100000",
                "-quiet", "-encoding", "UTF-8", "-d", out.toString(), "--source-path", sources.toString(),
                "-subpackages", "io.github.procscope.api"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "javadoc finished");
        assertEquals(0, p.exitValue(), printed);
        assertFalse(printed.contains("warning:") || printed.contains("error:"), printed);
        assertTrue(Files.isRegularFile(out.resolve("index.html")), "javadoc wrote its pages");
    }

    private static Path javadoc() {
        if (Runtime.version().feature() >= 18) {
            return Path.of(System.getProperty("java.home"), "bin", "javadoc");
        }
        String home = System.getenv("JDK25_HOME");
        Path other = home == null ? null : Path.of(home, "bin", "javadoc");
        assumeTrue(other != null && Files.isExecutable(other),
                "needs the javadoc of JDK 18 or newer: this JVM is " + Runtime.version() + " and JDK25_HOME is "
                        + (home == null ? "not set" : home + ", without bin/javadoc"));
        return other;
    }
}
