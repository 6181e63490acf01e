package io.github.procscope.cli.lab;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lab never deletes or overwrites what it did not create, and names a full disk as such. */
class LabDataSafetyTest {
    @TempDir
    Path tmp;

    private static byte[] userBytes() {
        byte[] b = new byte[1 << 20];
        new Random(7).nextBytes(b);
        return b;
    }

    @Test
    void aDirectoryHoldingUserFilesIsRefusedAndLeftByteIdentical() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        byte[] data = userBytes();
        Files.write(out.resolve("big.bin"), data);
        Files.writeString(out.resolve("08-notes.md"), "my notes\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Lab(out, out, Procscope.system().processes()).run());
        assertTrue(e.getMessage().contains("not empty (2 entries)"), e.getMessage());
        assertArrayEquals(data, Files.readAllBytes(out.resolve("big.bin")));
        assertEquals("my notes\n", Files.readString(out.resolve("08-notes.md")));
        assertEquals(2, list(out).size());
    }

    @Test
    void aFullScratchFileSystemIsNamedDiskFullAndKeepsNoPartialFile() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path out = tmp.resolve("out");
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));
        Commands.run("mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", scratch.toString());
        try {
            byte[] data = userBytes();
            Files.write(scratch.resolve("big.bin"), data); // a user's file where the lab's scratch file once was
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> new Lab(out, scratch, Procscope.system().processes()).run());
            assertTrue(e.getMessage().startsWith("disk full: step 6 writes a 64 MiB file"), e.getMessage());
            assertEquals(List.of("big.bin"), list(scratch), "no partial file left");
            assertArrayEquals(data, Files.readAllBytes(scratch.resolve("big.bin")));
        } finally {
            Commands.run("umount", scratch.toString());
        }
    }

    private static List<String> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
