package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one reader of {@code /proc/PID/fd} ({@link FdDirectory}), against a process this test starts and fixtures. */
class FdDirectoryTest {
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void listsWhatLsListsForAProcessHoldingExtraDescriptors() {
        Process p = spawned.start("bash", "-c", "exec 7</dev/null 12</dev/null 300</dev/null; echo ready; exec sleep 60");
        assertEquals("ready", Spawned.readLine(p, Duration.ofSeconds(30)));
        Path dir = Path.of("/proc", Long.toString(p.pid()));
        // The descriptors are fixed once sleep has replaced bash: wait for that, generously.
        Spawned.await(Duration.ofSeconds(30), "the exec'd sleep", () -> {
            try {
                return Files.readString(dir.resolve("comm")).trim().equals("sleep");
            } catch (IOException e) {
                return false;
            }
        });
        int[] expected = Arrays.stream(Commands.run("ls", "/proc/" + p.pid() + "/fd").trim().split("\\s+"))
                .mapToInt(Integer::parseInt).sorted().toArray();
        assertArrayEquals(expected, FdDirectory.list(p.pid(), dir));
        FdDirectory.Listing scan = FdDirectory.scan(dir);
        assertEquals(FdDirectory.Status.READ, scan.status());
        assertArrayEquals(expected, scan.fds());
        assertEquals(expected.length, FdDirectory.count(dir));
        assertEquals(300, expected[expected.length - 1], "the descriptor bash opened as 300");
    }

    @Test
    void aProcessGoneIsTypedForACallAndRecordedForAScan() throws Exception {
        Process p = spawned.start("sleep", "60");
        long pid = p.pid();
        p.destroyForcibly().waitFor();
        Path dir = Path.of("/proc", Long.toString(pid));
        Spawned.await(Duration.ofSeconds(30), "the reaped sleep's directory to go", () -> !Files.exists(dir));
        assertThrows(NoSuchProcessException.class, () -> FdDirectory.list(pid, dir));
        assertEquals(FdDirectory.Status.GONE, FdDirectory.scan(dir).status());
        assertEquals(0, FdDirectory.scan(dir).fds().length);
        assertEquals(-1, FdDirectory.count(dir));
    }

    @Test
    void onlyDecimalNamesUpTo2To31Minus1AreDescriptors(@TempDir Path root) throws IOException {
        Path fd = Files.createDirectories(root.resolve("4242").resolve("fd"));
        for (String name : new String[] {"0", "17", "2147483647", "2147483648", "x", "1a", "-1", ""}) {
            if (!name.isEmpty()) {
                Files.createFile(fd.resolve(name));
            }
        }
        Files.createFile(root.resolve("4242").resolve("stat"));
        assertArrayEquals(new int[] {0, 17, 2147483647}, FdDirectory.list(4242, root.resolve("4242")));
        assertEquals(3, FdDirectory.count(root.resolve("4242")));
    }
}
