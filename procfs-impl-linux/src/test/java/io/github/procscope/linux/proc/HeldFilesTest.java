package io.github.procscope.linux.proc;

import io.github.procscope.api.files.HeldFile;
import io.github.procscope.api.files.HeldFilesScan;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LinuxOpenFiles#heldFiles(String)}: holders of files under a prefix, from the descriptor links only. */
class HeldFilesTest {

    private static void link(Path root, long pid, int fd, String target) throws IOException {
        Path dir = Files.createDirectories(root.resolve(pid + "/fd"));
        Files.writeString(root.resolve(pid + "/stat"), pid + " (x) S 1 1 1 0 -1 0\n");
        Files.createSymbolicLink(dir.resolve(Integer.toString(fd)), Path.of(target));
    }

    @Test
    void onlyLinksUnderThePrefixAreListedInOrder(@TempDir Path root) throws IOException {
        link(root, 20, 7, "/dev/nvidia1");
        link(root, 20, 3, "/dev/nvidiactl");
        link(root, 20, 0, "/dev/null");
        link(root, 5, 4, "/dev/nvidia-uvm");
        link(root, 6, 1, "socket:[42]");
        link(root, 6, 2, "/dev/nvidi"); // shorter than the prefix
        Files.createDirectories(root.resolve("7")); // exited: no fd directory any more
        Files.writeString(root.resolve("8"), "not a process directory");
        Files.createDirectories(root.resolve("self"));
        HeldFilesScan scan = LinuxOpenFiles.at(root, () -> LinuxProcfs.at(root)).heldFiles("/dev/nvidia");
        assertEquals(List.of(new HeldFile(5, 4, "/dev/nvidia-uvm"), new HeldFile(20, 3, "/dev/nvidiactl"),
                new HeldFile(20, 7, "/dev/nvidia1")), scan.files());
        assertEquals(3, scan.processesScanned(), "5, 6 and 20; 7 and 8 are gone");
        assertTrue(scan.complete());
    }

    @Test
    void anEmptyPrefixIsRefused(@TempDir Path root) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinuxOpenFiles.at(root, () -> LinuxProcfs.at(root)).heldFiles(""));
        assertTrue(e.getMessage().contains("prefix"), e.getMessage());
    }

    @Test
    void aLiveHolderIsFoundAndThisProcessIsReadable(@TempDir Path dir) throws IOException {
        Path held = Files.writeString(dir.resolve("held-by-child"), "");
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(new ProcessBuilder("sleep", "600").redirectInput(held.toFile()));
            LinuxOpenFiles files = LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));
            Spawned.await(Duration.ofSeconds(60), "the child to hold the file",
                    () -> files.heldFiles(held.toString()).files().stream().anyMatch(f -> f.pid() == p.pid()));
            HeldFilesScan scan = files.heldFiles(held.toString());
            assertEquals(List.of(new HeldFile(p.pid(), 0, held.toString())), scan.files());
            assertFalse(scan.unreadablePids().contains(p.pid()));
            assertFalse(scan.unreadablePids().contains(ProcessHandle.current().pid()));
            assertTrue(scan.processesScanned() >= 2);
        }
    }
}
