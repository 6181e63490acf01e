package io.github.procscope.linux.sys;

import io.github.procscope.linux.proc.FdCounter;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.linux.sys.internal.NativeLibc;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ways of reading a process table, native ({@code openat}/{@code read}/{@code statx}: jnr-ffi's reader,
 * and the native wall's reader over each back end, FFM and jnr) and the JDK's, give the same processes, the
 * same values and the same errors.
 */
class ProcFilesTest {
    private static final Set<Facet> ALL = EnumSet.allOf(Facet.class);

    private final Spawned spawned = new Spawned();

    @BeforeAll
    static void loadTheNativeBinding() {
        // Tables load it in the background and read through the JDK until then; here it must be there.
        assertNotNull(NativeLibc.loadProcLibC(), "the native reader's binding loads on Linux x86-64 and AArch64");
        assertNotNull(NativeWalls.get("test"), "the native wall loads on Linux x86-64 and AArch64");
    }

    /** Every way this JVM can read a table; the JDK's first. */
    private static List<String> ways() {
        List<String> ways = new ArrayList<>(List.of("jdk", "native", "wall-jnr"));
        if (Runtime.version().feature() >= 22) {
            ways.add("wall-ffm");
        }
        return ways;
    }

    private static LinuxProcfs table(Path root, String way) {
        LinuxProcfs.Builder b = LinuxProcfs.builder(root).clockTicksPerSecond(Fixtures.TICKS).pageSizeBytes(Fixtures.PAGE);
        switch (way) {
            case "jdk": return b.nativeReads(false).build();
            case "native": return b.nativeReads(true).build();
            case "wall-jnr": return b.nativeWall(NativeWalls.load("jnr")).build();
            case "wall-ffm": return b.nativeWall(NativeWalls.load("ffm")).build();
            default: throw new AssertionError(way);
        }
    }

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void theLiveTableReadsNativelyUnlessToldNotTo() {
        assertTrue(LinuxProcfs.builder(Path.of("/proc")).build().readsNatively(),
                "the native reader loads on Linux x86-64 and AArch64");
        assertFalse(LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build().readsNatively());
    }

    @Test
    void bothWaysReadTheSameLiveProcesses() {
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pids.add(spawned.start("sleep", "600").pid());
        }
        LinuxProcfs jdk = LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build();
        for (long pid : pids) {
            Spawned.await(java.time.Duration.ofSeconds(60), "sleep " + pid + " to exec and fall asleep",
                    () -> "sleep".equals(jdk.process(pid).comm()) && asleep(pid));
        }
        for (String way : ways()) {
            bothWaysReadTheSameLiveProcesses(pids, jdk, live(way), way);
        }
    }

    /**
     * @return whether the process waits in {@code nanosleep}, where nothing in its files moves: its wait channel
     *         says so, or, where the kernel does not name it, its state is S
     */
    private static boolean asleep(long pid) {
        try {
            String wchan = Files.readString(Path.of("/proc/" + pid + "/wchan"));
            if (!wchan.isEmpty() && !wchan.equals("0")) {
                return wchan.contains("nanosleep");
            }
            return Files.readString(Path.of("/proc/" + pid + "/stat")).contains(") S ");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Asserts that two reads of a sleeping process's status agree in every field but {@code signalsQueued}
     * ({@code SigQ}: the signals queued for the process's real user across the whole system, which moves between
     * two reads; the limit beside it does not).
     */
    private static void assertSameStatus(ProcessStatus expected, ProcessStatus actual, long pid) {
        assertTrue(expected.signalsQueued().isPresent() && actual.signalsQueued().isPresent(), "SigQ of " + pid);
        for (java.lang.reflect.RecordComponent c : ProcessStatus.class.getRecordComponents()) {
            if (!c.getName().equals("signalsQueued")) {
                try {
                    assertEquals(c.getAccessor().invoke(expected), c.getAccessor().invoke(actual),
                            c.getName() + " in the status of " + pid);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    private static LinuxProcfs live(String way) {
        LinuxProcfs.Builder b = LinuxProcfs.builder(Path.of("/proc"));
        switch (way) {
            case "jdk": return b.nativeReads(false).build();
            case "native": return b.nativeReads(true).build();
            case "wall-jnr": return b.nativeWall(NativeWalls.load("jnr")).build();
            case "wall-ffm": return b.nativeWall(NativeWalls.load("ffm")).build();
            default: throw new AssertionError(way);
        }
    }

    private static void bothWaysReadTheSameLiveProcesses(List<Long> pids, LinuxProcfs jdk, LinuxProcfs nat, String way) {
        assertEquals(!way.equals("jdk"), nat.readsNatively(), way);
        for (long pid : pids) {
            ProcessInfo a = nat.process(pid, ALL);
            ProcessInfo b = jdk.process(pid, ALL);
            // A sleeping process's files do not change between the two reads.
            assertEquals(b.stat(), a.stat(), "stat of " + pid);
            assertEquals(b.statm(), a.statm(), "statm of " + pid);
            assertEquals(b.uid(), a.uid());
            assertEquals(b.user(), a.user());
            assertEquals(b.cmdline(), a.cmdline());
            assertEquals(List.of("sleep", "600"), a.cmdline().orElseThrow());
            assertSameStatus(b.status().orElseThrow(), a.status().orElseThrow(), pid);
            assertEquals(b.startTime(), a.startTime());
        }
        Set<Long> inNative = nat.snapshot().processes().stream().map(ProcessInfo::pid).collect(Collectors.toSet());
        assertTrue(inNative.containsAll(pids), way + ": the snapshot lists the spawned processes");
    }

    @Test
    void everyWayReadsTheSameFixtureTree() {
        for (String way : ways()) {
            sameFixtureTree(way);
        }
    }

    private void sameFixtureTree(String way) {
        ProcessSnapshot a = table(Fixtures.proc(), way).snapshot(ALL);
        ProcessSnapshot b = table(Fixtures.proc(), "jdk").snapshot(ALL);
        assertFalse(a.processes().isEmpty());
        Function<ProcessSnapshot, Map<Long, ProcessInfo>> byPid = s -> s.processes().stream()
                .collect(Collectors.toMap(ProcessInfo::pid, p -> p));
        Map<Long, ProcessInfo> na = byPid.apply(a);
        Map<Long, ProcessInfo> nb = byPid.apply(b);
        assertEquals(nb.keySet(), na.keySet());
        for (long pid : na.keySet()) {
            ProcessInfo x = na.get(pid);
            ProcessInfo y = nb.get(pid);
            assertEquals(y.stat(), x.stat());
            assertEquals(y.statm(), x.statm());
            assertEquals(y.uid(), x.uid());
            assertEquals(y.cmdline(), x.cmdline());
            assertEquals(y.status(), x.status());
        }
    }

    @Test
    void largeFilesAreReadWholeInChunks(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        // A command line of 100,000 bytes: larger than the buffer's first size and the native chunk.
        StringBuilder arg = new StringBuilder();
        while (arg.length() < 100_000) {
            arg.append("0123456789");
        }
        Files.write(root.resolve("42/cmdline"), ("python\0" + arg + "\0").getBytes(StandardCharsets.US_ASCII));
        for (String way : ways()) {
            List<String> cmd = table(root, way).cmdline(42);
            ProcessInfo p = table(root, way).process(42, EnumSet.of(Facet.CMDLINE));
            assertEquals(List.of("python", arg.toString()), p.cmdline().orElseThrow(), way);
            assertEquals(2, cmd.size());
        }
    }

    @Test
    void aSingleRecordFileLargerThanOneChunkIsReadWhole(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        byte[] big = new byte[40_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        Files.write(root.resolve("42/status"), big);
        String prefix = root + "/";
        List<ProcFiles> readers = new ArrayList<>(List.of(new ProcFiles.Jdk(prefix),
                WallProcFiles.open(NativeWalls.load("jnr"), root, prefix)));
        if (Runtime.version().feature() >= 22) {
            readers.add(WallProcFiles.open(NativeWalls.load("ffm"), root, prefix));
        }
        for (ProcFiles f : readers) {
            try (f) {
                ProcBuffer buf = new ProcBuffer();
                assertEquals(ProcBuffer.Result.OK, f.read(42, ProcFiles.Leaf.STATUS, buf));
                assertEquals(big.length, buf.length(), f.getClass().getSimpleName());
                assertTrue(java.util.Arrays.equals(big, java.util.Arrays.copyOf(buf.bytes(), buf.length())));
                assertEquals(ProcBuffer.Result.NOT_FOUND, f.read(43, ProcFiles.Leaf.STATUS, buf));
            }
        }
    }

    @Test
    void bothWaysNameTheFileOfAParseErrorAndTheMissingProcess(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        Files.writeString(root.resolve("42/statm"), "12 x 3 4 0 5 0\n");
        for (String way : ways()) {
            LinuxProcfs t = table(root, way);
            ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> t.process(42));
            assertTrue(e.getMessage().contains(root.resolve("42/statm").toString()), e.getMessage());
            assertThrows(NoSuchProcessException.class, () -> t.process(43));
            ProcessSnapshot snapshot = t.snapshot();
            assertTrue(snapshot.find(42).isEmpty(), "a process that cannot be parsed is not guessed at");
            assertEquals(List.of(new io.github.procscope.api.process.UnreadableProcess(42, root.resolve("42/statm"),
                    e.getMessage())), snapshot.unreadable(), "nor silently left out: it is named");
        }
    }

    @Test
    void aStatFileNamingAnotherTaskIsRefusedBothWays(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        Files.writeString(root.resolve("42/stat"), statLine(41));
        for (String way : ways()) {
            ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> table(root, way).process(42));
            assertTrue(e.getMessage().contains("not 42"), e.getMessage());
        }
    }

    /** A procfs tree with the files a table needs and one process, 42. */
    /**
     * The open descriptors of live processes this test starts, counted by every way: natively from the size of
     * {@code /proc/PID/fd} (Linux 6.2+), through the JDK by listing it; each must be the listing's count. One
     * process holds 300 descriptors, one none (its directory is listed: size 0), one the usual three.
     */
    @Test
    void everyWayCountsOpenDescriptorsAsTheListingDoes() throws IOException {
        Process many = spawned.start("perl", "-e", "my @h; for (1..297) { open(my $f, '<', '/dev/null') or die; push @h, $f }"
                + " syswrite(STDOUT, \"ready\\n\"); sleep 600");
        Process none = spawned.start("perl", "-e", "syswrite(STDOUT, \"ready\\n\"); close(STDIN); close(STDOUT);"
                + " close(STDERR); sleep 600");
        Process few = spawned.start("sleep", "600");
        assertEquals("ready", Spawned.readLine(many, java.time.Duration.ofSeconds(30)));
        assertEquals("ready", Spawned.readLine(none, java.time.Duration.ofSeconds(30)));
        LinuxProcfs jdk = LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build();
        Spawned.await(java.time.Duration.ofSeconds(10), "perl to close its descriptors",
                () -> jdk.process(none.pid(), EnumSet.of(Facet.FDS)).openFds().orElse(-1) == 0);
        Spawned.await(java.time.Duration.ofSeconds(10), "sleep to exec",
                () -> "sleep".equals(jdk.process(few.pid()).comm()));
        for (Process p : List.of(many, none, few)) {
            int listed = new java.io.File("/proc/" + p.pid() + "/fd").list().length;
            for (String way : ways()) {
                LinuxProcfs table = live(way);
                assertEquals(listed, table.process(p.pid(), EnumSet.of(Facet.FDS)).openFds().orElseThrow(),
                        way + ": the open descriptors of " + p.pid());
                int inSnapshot = table.snapshot(EnumSet.of(Facet.FDS)).processes().stream()
                        .filter(i -> i.pid() == p.pid()).findFirst().orElseThrow().openFds().orElseThrow();
                assertEquals(listed, inSnapshot, way + ": the open descriptors of " + p.pid() + " in a snapshot");
            }
        }
        assertEquals(300, new java.io.File("/proc/" + many.pid() + "/fd").list().length);
        // On this kernel the native readers take the count from the size, not from a listing.
        FdCounter counter = FdCounter.of(Path.of("/proc"));
        boolean sizeKnown = Files.size(Path.of("/proc/" + many.pid() + "/fd")) > 0;
        List<ProcFiles> readers = new ArrayList<>(List.of(WallProcFiles.open(NativeWalls.load("jnr"), Path.of("/proc"),
                "/proc/")));
        if (Runtime.version().feature() >= 22) {
            readers.add(WallProcFiles.open(NativeWalls.load("ffm"), Path.of("/proc"), "/proc/"));
        }
        if (NativeLibc.loadProcLibC() != null) {
            readers.add(NativeProcFiles.open(Path.of("/proc"), "/proc/"));
        }
        for (ProcFiles f : readers) {
            try (f) {
                assertEquals(sizeKnown ? 300 : -1, f.openFdsBySize(many.pid(), counter), f.getClass().getSimpleName());
                assertEquals(-1, f.openFdsBySize(none.pid(), counter), "no descriptor: size 0, listed");
                assertEquals(-1, f.openFdsBySize(many.pid(), FdCounter.LISTING), "never by size when told to list");
            }
        }
    }

    /** A fixture tree's {@code fd} directory has a size of its own: it is listed, never taken as a count. */
    @Test
    void aFixtureTreesDescriptorsAreListed(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        Files.createDirectories(root.resolve("42/fd"));
        for (String fd : List.of("0", "1", "2", "7")) {
            Files.createSymbolicLink(root.resolve("42/fd/" + fd), Path.of("/dev/null"));
        }
        assertFalse(FdCounter.of(root).bySize(), "not a procfs");
        for (String way : ways()) {
            assertEquals(4, table(root, way).process(42, EnumSet.of(Facet.FDS)).openFds().orElseThrow(), way);
        }
    }

    private static Path minimalProc(Path tmp) throws IOException {
        Path root = tmp.resolve("proc");
        Files.createDirectories(root.resolve("42"));
        Files.writeString(root.resolve("stat"), "cpu  1 2 3 4 5 6 7 0 0 0\nbtime 1700000000\n");
        Files.writeString(root.resolve("uptime"), "1000.00 1500.00\n");
        Files.writeString(root.resolve("42/stat"), statLine(42));
        Files.writeString(root.resolve("42/statm"), "1000 200 50 10 0 300 0\n");
        Files.writeString(root.resolve("42/cmdline"), "python\0train.py\0");
        return root;
    }

    private static String statLine(long pid) {
        StringBuilder s = new StringBuilder(pid + " (python) S 1 42 42 0 -1 4194304");
        for (int field = 10; field <= 52; field++) {
            s.append(field == 20 ? " 1" : field == 22 ? " 5000" : " 0");
        }
        return s.append('\n').toString();
    }
}
