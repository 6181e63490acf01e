package io.github.procscope.cli;

import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code procscope lab} on a small tmpfs filled to the last block (mounted by the test, as root): it says
 * "disk full", leaves no partial file of its own there and exits non-zero.
 */
class LabFullDiskIT {
    @TempDir
    Path tmp;

    private Path full;

    @BeforeEach
    void mountAFullTmpfs() throws IOException {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "mounting a tmpfs needs root; this test runs only as root");
        full = Files.createDirectories(tmp.resolve("full"));
        Commands.run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", full.toString());
        byte[] block = new byte[4096];
        try (OutputStream o = Files.newOutputStream(full.resolve("filler"))) {
            while (true) {
                o.write(block);
                o.flush();
            }
        } catch (IOException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("No space left on device"), String.valueOf(e));
        }
    }

    @AfterEach
    void unmount() {
        if (full != null) {
            Commands.run("umount", full.toString());
        }
    }

    private List<String> namesIn(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void outputOnAFullDiskIsNamedDiskFullAndLeavesNoPartialFile() throws IOException {
        Path out = full.resolve("out");
        CliRun r = CliRun.of("lab", "--out", out.toString(), "--scratch", tmp.resolve("scratch").toString());
        assertNotEquals(0, r.status(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("disk full"), r.err());
        assertFalse(r.err().contains("dd "), r.err());
        assertEquals(List.of("filler", "out"), namesIn(full));
        assertEquals(List.of(), namesIn(out), "the file whose write failed is removed");
    }

    @Test
    void scratchOnAFullDiskIsNamedDiskFullAndLeavesNoPartialFile() throws IOException {
        Path out = tmp.resolve("out");
        CliRun r = CliRun.of("lab", "--out", out.toString(), "--scratch", full.toString());
        assertNotEquals(0, r.status(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("disk full"), r.err());
        assertFalse(r.err().contains("dd "), r.err());
        assertEquals(List.of("filler"), namesIn(full), "step 6's file is removed");
    }
}
