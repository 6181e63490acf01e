package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.StatusCounters;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The calls of one process's files under this JVM's {@code /proc} ({@link ProcFiles#openForCall}: the limits, the
 * status counters, one process, its threads) borrow one descriptor of {@code /proc} kept open, instead of opening
 * and closing one per call: they read what the JDK's reader reads, closing their reader leaves the kept descriptor
 * open for the next call, and a thousand calls leave no descriptor behind. Another root opens its own.
 */
class SharedProcRootTest {
    private final Spawned spawned = new Spawned();

    @BeforeAll
    static void loadTheNativeWall() {
        // The calls borrow the kept descriptor only once this JVM's wall has loaded (until then the JDK reads).
        assertNotNull(NativeWalls.get("test"), "the native wall loads on Linux x86-64 and AArch64");
    }

    @AfterEach
    void end() {
        spawned.close();
    }

    /** @return how many descriptors this JVM holds now */
    private static long openDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void aCallUnderProcBorrowsTheKeptDescriptorAndClosingItLeavesItOpen() {
        long self = ProcessHandle.current().pid();
        ProcBuffer buf = new ProcBuffer();
        for (int i = 0; i < 3; i++) {
            try (ProcFiles files = ProcFiles.openForCall(Path.of("/proc"), "/proc/", true, null)) {
                assertTrue(files.isNative(), "this JVM's wall is loaded: the reader is native");
                assertEquals(ProcBuffer.Result.OK, files.read(self, ProcFiles.Leaf.STAT, buf), "read " + i);
                String stat = new String(buf.bytes(), 0, buf.length(), StandardCharsets.US_ASCII);
                assertTrue(stat.startsWith(self + " ("), stat);
            }
            assertTrue(holdsProc(), "the kept descriptor of /proc stays open after the reader is closed");
        }
    }

    /** @return whether one of this JVM's descriptors is of the directory {@code /proc} */
    private static boolean holdsProc() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().equals("/proc");
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            });
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void callsUnderProcReadWhatTheJdkReadsAndLeaveNoDescriptorBehind() throws Exception {
        LinuxProcfs kept = LinuxProcfs.at(Path.of("/proc"));
        LinuxProcfs jdk = LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build();
        long self = ProcessHandle.current().pid();
        Process child = spawned.start("sleep", "300");
        long pid = child.pid();
        // Warm: the table's first calls may read through the JDK while nothing native is bound to it yet.
        for (int i = 0; i < 3; i++) {
            kept.openFilesLimit(self);
            kept.statusCounters(self);
        }
        long before = openDescriptors();
        for (int i = 0; i < 500; i++) {
            assertEquals(jdk.openFilesLimit(self), kept.openFilesLimit(self));
            // The child has one thread (this JVM's threads come and go, and their sum with them).
            StatusCounters early = jdk.statusCounters(pid);
            StatusCounters now = kept.statusCounters(pid);
            StatusCounters late = jdk.statusCounters(pid);
            // Counters only grow: what the borrowing call read lies between the JDK's reads around it.
            long v = now.voluntaryContextSwitches().orElseThrow();
            long nv = now.nonvoluntaryContextSwitches().orElseThrow();
            assertTrue(early.voluntaryContextSwitches().orElseThrow() <= v
                    && v <= late.voluntaryContextSwitches().orElseThrow()
                    && early.nonvoluntaryContextSwitches().orElseThrow() <= nv
                    && nv <= late.nonvoluntaryContextSwitches().orElseThrow(), early + " " + now + " " + late);
            assertEquals(jdk.limits(pid), kept.limits(pid));
            assertEquals(pid, kept.process(pid, EnumSet.noneOf(Facet.class)).pid());
            assertEquals(pid, kept.threads(pid, EnumSet.noneOf(Facet.class)).get(0).tid());
        }
        // A leak of one descriptor per call would be two thousand; other threads of the test JVM may hold a few.
        long after = openDescriptors();
        assertTrue(after - before < 50, "descriptors before " + before + ", after " + after);
        child.destroyForcibly().waitFor();
        assertThrows(NoSuchProcessException.class, () -> kept.openFilesLimit(pid));
        assertThrows(NoSuchProcessException.class, () -> kept.statusCounters(pid));
    }

    @Test
    void eachThreadKeepsItsReaderAndACallWithinACallGetsItsOwn() throws Exception {
        long self = ProcessHandle.current().pid();
        ProcBuffer buf = new ProcBuffer();
        ProcFiles first;
        try (ProcFiles outer = ProcFiles.openForCall(Path.of("/proc"), "/proc/", true, null)) {
            first = outer;
            ByteCursor.Source named = outer.source(self, ProcFiles.Leaf.STAT);
            try (ProcFiles inner = ProcFiles.openForCall(Path.of("/proc"), "/proc/", true, null)) {
                assertTrue(inner != outer, "a call within a call on this thread gets a reader of its own");
                inner.source(self, ProcFiles.Leaf.LIMITS);
                assertEquals(ProcBuffer.Result.OK, inner.read(self, ProcFiles.Leaf.LIMITS, buf));
            }
            assertEquals(Path.of("/proc/" + self + "/stat"), named.path(), "the outer call's file is still named");
            assertEquals(ProcBuffer.Result.OK, outer.read(self, ProcFiles.Leaf.STAT, buf));
            assertTrue(new String(buf.bytes(), 0, buf.length(), StandardCharsets.US_ASCII).startsWith(self + " ("));
        }
        try (ProcFiles again = ProcFiles.openForCall(Path.of("/proc"), "/proc/", true, null)) {
            assertTrue(again == first, "once its call is over the thread's reader serves the next call");
            assertEquals(ProcBuffer.Result.OK, again.read(self, ProcFiles.Leaf.STATUS, buf));
        }
        ProcFiles[] other = new ProcFiles[1];
        Thread t = new Thread(() -> {
            try (ProcFiles files = ProcFiles.openForCall(Path.of("/proc"), "/proc/", true, null)) {
                other[0] = files;
            }
        });
        t.start();
        t.join();
        assertNotNull(other[0]);
        assertTrue(other[0] != first, "another thread has a reader of its own");
    }

    @Test
    void anotherRootOpensItsOwnDescriptor(@TempDir Path dir) throws IOException {
        Path root = dir.resolve("proc");
        Files.createDirectories(root.resolve("42"));
        Files.writeString(root.resolve("42/limits"), "Limit                     Soft Limit           Hard Limit           Units     \n");
        long before = openDescriptors();
        for (int i = 0; i < 200; i++) {
            try (ProcFiles files = ProcFiles.openForCall(root, root + "/", true, null)) {
                ProcBuffer buf = new ProcBuffer();
                assertEquals(ProcBuffer.Result.OK, files.read(42, ProcFiles.Leaf.LIMITS, buf));
                assertTrue(new String(buf.bytes(), 0, buf.length(), StandardCharsets.US_ASCII).startsWith("Limit"));
            }
        }
        long after = openDescriptors();
        assertTrue(after - before < 50, "descriptors before " + before + ", after " + after);
    }
}
