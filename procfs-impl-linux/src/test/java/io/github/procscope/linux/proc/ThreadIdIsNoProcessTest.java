package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread's id is not a process's: {@code /proc/TID} of a thread that leads no thread group can be opened though
 * {@code /proc} does not list it, and reads like a process (its own stat, its group's memory), but every reader
 * that takes a pid refuses it, naming the process the thread belongs to, under the live {@code /proc} and under a
 * root that is not this JVM's (the same files, reached through a link). The process's own pid still reads.
 */
class ThreadIdIsNoProcessTest {
    private final Spawned spawned = new Spawned();
    private long pid;
    private long tid;

    @BeforeEach
    void start() throws IOException {
        Process helper = spawned.start(NativeHelpers.executable("four_threads").toString());
        pid = Long.parseLong(Spawned.readLine(helper, Duration.ofSeconds(60)).strip());
        assertEquals(helper.pid(), pid);
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            tid = tasks.map(t -> Long.parseLong(t.getFileName().toString())).filter(t -> t != pid).findFirst()
                    .orElseThrow();
        }
        assertTrue(Files.isDirectory(Path.of("/proc/" + tid)), "the thread's own /proc entry opens");
    }

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void everyLiveReaderRefusesTheThreadsIdAndNamesItsProcess() {
        LinuxProcfs table = LinuxProcfs.at(Path.of("/proc"));
        assertRefused(() -> table.process(tid, Set.of()));
        assertRefused(() -> table.process(tid, Set.of(Facet.STATUS, Facet.CMDLINE)));
        assertRefused(() -> table.key(tid));
        assertRefused(() -> table.plainKey(tid));
        assertRefused(() -> LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).key(tid));
        assertRefused(() -> LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).key(tid));
        assertEquals(pid, table.process(pid, Set.of()).pid());
        assertEquals(pid, table.key(pid).pid());
    }

    @Test
    void underAnotherRootTheThreadsIdIsRefusedToo(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path root = Files.createSymbolicLink(dir.resolve("proc"), Path.of("/proc"));
        LinuxProcfs table = LinuxProcfs.at(root);
        assertRefused(() -> table.process(tid, Set.of()));
        assertRefused(() -> LinuxProcessMemory.at(root, () -> LinuxProcfs.at(root)).key(tid));
        assertEquals(pid, table.process(pid, Set.of()).pid());
    }

    @Test
    void theTgidLineIsFoundWhereverItIsAndAMissingOrOverlongOneIsNoEvidence() {
        assertEquals(42, tgid(bytes("Name:\tx\nUmask:\t0022\nState:\tS\nTgid:\t42\nPid:\t43\n")));
        assertEquals(7, tgid(bytes("Tgid:\t7\n")));
        for (String s : List.of("", "Name:\tx\n", "XTgid:\t5\n", "Tgid:\t\n", "Tgid:\t99999999999\n",
                "Name:\tTgid:\t5\n")) {
            assertEquals(-1, tgid(bytes(s)), s);
        }
        byte[] cut = bytes("Name:\tx\nTgid:\t123\n");
        assertEquals(12, LinuxProcfs.tgidOf(cut, cut.length - 2));
    }

    private static long tgid(byte[] b) {
        return LinuxProcfs.tgidOf(b, b.length);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private void assertRefused(Executable read) {
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, read);
        assertTrue(e.getMessage().contains(tid + " is a thread of process " + pid), e.getMessage());
    }
}
