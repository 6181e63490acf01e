package io.github.procscope.metrics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code Hostname} label: the kernel's name for this process, read without asking a resolver. */
class HostnameTest {
    @Test
    void theDefaultIsWhatUnameSays() throws Exception {
        Process uname = new ProcessBuilder("uname", "-n").redirectErrorStream(true).start();
        try {
            String expected = new String(uname.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(uname.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, uname.exitValue());
            assertEquals(expected, ExporterOptions.localHostname());
            assertEquals(expected, ExporterOptions.defaults().hostname());
        } finally {
            uname.destroyForcibly();
        }
    }

    @Test
    void theFirstLineOfTheFileElseLocalhost(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hostname");
        Files.writeString(file, "gpu-node-7\n");
        assertEquals("gpu-node-7", ExporterOptions.hostnameFrom(file));
        Files.writeString(file, "\n");
        assertEquals("localhost", ExporterOptions.hostnameFrom(file));
        Files.writeString(file, "a".repeat(10_000));
        assertEquals("a".repeat(256), ExporterOptions.hostnameFrom(file));
        assertEquals("localhost", ExporterOptions.hostnameFrom(dir.resolve("absent")));
        assertEquals("localhost", ExporterOptions.hostnameFrom(dir));
    }
}
