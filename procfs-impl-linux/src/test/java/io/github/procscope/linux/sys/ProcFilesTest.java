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
 * The native reading of a process table, through the wall ({@code openat}/{@code read}/{@code statx} over the
 * back end this JVM chose: jnr on JDK 17 to 21, FFM on 22+; the build runs the tests on both), gives the
 * processes, values and errors the JDK's reading gives, which is the reference here.
 */
class ProcFilesTest {
    private static final Set<Facet> ALL = EnumSet.allOf(Facet.class);

    private final Spawned spawned = new Spawned();

    @BeforeAll
    static void loadTheNativeWall() {
        // Tables load it in the background and read through the JDK until then; here it must be there.
        assertNotNull(NativeWalls.get("test"), "the native wall loads on Linux x86-64 and AArch64");
    }

    /** @return a table of {@code root} that reads through this JVM's wall */
    private static LinuxProcfs wall(Path root) {
        return LinuxProcfs.builder(root).clockTicksPerSecond(Fixtures.TICKS).pageSizeBytes(Fixtures.PAGE)
                .nativeWall(NativeWalls.get("test")).build();
    }

    /** @return a table of {@code root} that reads through the JDK: the reference */
    private static LinuxProcfs jdk(Path root) {
        return LinuxProcfs.builder(root).clockTicksPerSecond(Fixtures.TICKS).pageSizeBytes(Fixtures.PAGE)
                .nativeReads(false).build();
    }

    /** @return the wall's reader of {@code root} */
    private static ProcFiles wallFiles(Path root) {
        ProcFiles f = ProcFiles.open(root, root + "/", true, NativeWalls.get("test"));
        assertTrue(f.isNative(), "the wall's reader opens " + root);
        return f;
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
    void theWallReadsWhatTheJdkReadsOfLiveProcesses() {
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pids.add(spawned.start("sleep", "600").pid());
        }
        LinuxProcfs jdk = LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build();
        for (long pid : pids) {
            Spawned.await(java.time.Duration.ofSeconds(60), "sleep " + pid + " to exec and fall asleep",
                    () -> "sleep".equals(jdk.process(pid).comm()) && asleep(pid));
        }
        LinuxProcfs nat = LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.get("test")).build();
        assertTrue(nat.readsNatively());
        assertFalse(jdk.readsNatively());
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
        assertTrue(inNative.containsAll(pids), "the snapshot lists the spawned processes");
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

    @Test
    void theWallReadsTheFixtureTreeAsTheJdkDoes() {
        ProcessSnapshot a = wall(Fixtures.proc()).snapshot(ALL);
        ProcessSnapshot b = jdk(Fixtures.proc()).snapshot(ALL);
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
        List<String> cmd = wall(root).cmdline(42);
        ProcessInfo p = wall(root).process(42, EnumSet.of(Facet.CMDLINE));
        assertEquals(List.of("python", arg.toString()), p.cmdline().orElseThrow());
        assertEquals(List.of("python", arg.toString()), cmd);
    }

    @Test
    void aSingleRecordFileLargerThanOneChunkIsReadWhole(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        byte[] big = new byte[40_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        Files.write(root.resolve("42/status"), big);
        try (ProcFiles f = wallFiles(root)) {
            ProcBuffer buf = new ProcBuffer();
            assertEquals(ProcBuffer.Result.OK, f.read(42, ProcFiles.Leaf.STATUS, buf));
            assertEquals(big.length, buf.length());
            assertTrue(java.util.Arrays.equals(big, java.util.Arrays.copyOf(buf.bytes(), buf.length())));
            assertEquals(ProcBuffer.Result.NOT_FOUND, f.read(43, ProcFiles.Leaf.STATUS, buf));
        }
    }

    @Test
    void theWallNamesTheFileOfAParseErrorAndTheMissingProcess(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        Files.writeString(root.resolve("42/statm"), "12 x 3 4 0 5 0\n");
        LinuxProcfs t = wall(root);
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> t.process(42));
        assertTrue(e.getMessage().contains(root.resolve("42/statm").toString()), e.getMessage());
        assertThrows(NoSuchProcessException.class, () -> t.process(43));
        ProcessSnapshot snapshot = t.snapshot();
        assertTrue(snapshot.find(42).isEmpty(), "a process that cannot be parsed is not guessed at");
        assertEquals(List.of(new io.github.procscope.api.process.UnreadableProcess(42, root.resolve("42/statm"),
                e.getMessage())), snapshot.unreadable(), "nor silently left out: it is named");
    }

    @Test
    void aStatFileNamingAnotherTaskIsRefusedByTheWall(@TempDir Path tmp) throws IOException {
        Path root = minimalProc(tmp);
        Files.writeString(root.resolve("42/stat"), statLine(41));
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> wall(root).process(42));
        assertTrue(e.getMessage().contains("not 42"), e.getMessage());
    }

    /**
     * A process that exits and is reaped between two reads: the wall's reader, opened while it lived, reads its
     * files as not found, its owner as gone, its {@code stat} as missing, and the table says there is no such
     * process.
     */
    @Test
    void aVanishedProcessReadsAsGone() throws Exception {
        Process p = spawned.start("sleep", "600");
        long pid = p.pid();
        try (ProcFiles f = wallFiles(Path.of("/proc"))) {
            ProcBuffer buf = new ProcBuffer();
            assertEquals(ProcBuffer.Result.OK, f.read(pid, ProcFiles.Leaf.STAT, buf));
            assertTrue(f.ownerUid(pid) >= 0);
            assertTrue(f.statExists(pid));
            p.destroyForcibly();
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "sleep " + pid + " ends");
            // Reaped by the JDK: the pid is free. Another process taking it at once would make the reads succeed.
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(Path.of("/proc/" + pid)), "pid reused");
            for (ProcFiles.Leaf leaf : ProcFiles.Leaf.values()) {
                assertEquals(ProcBuffer.Result.NOT_FOUND, f.read(pid, leaf, buf), leaf.fileName);
            }
            assertEquals(-1, f.ownerUid(pid));
            assertFalse(f.statExists(pid));
            assertEquals(-1, f.openFdsBySize(pid, FdCounter.of(Path.of("/proc"))));
        }
        assertThrows(NoSuchProcessException.class,
                () -> LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.get("test")).build().process(pid));
    }

    /** A procfs tree with the files a table needs and one process, 42. */
    /**
     * The open descriptors of live processes this test starts, counted through the wall from the size of
     * {@code /proc/PID/fd} (Linux 6.2+), and through the JDK by listing it; each must be the listing's count. One
     * process holds 300 descriptors, one none (its directory is listed: size 0), one the usual three.
     */
    @Test
    void theWallCountsOpenDescriptorsAsTheListingDoes() throws IOException {
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
            for (LinuxProcfs table : List.of(jdk, LinuxProcfs.builder(Path.of("/proc"))
                    .nativeWall(NativeWalls.get("test")).build())) {
                String way = table.readsNatively() ? "wall" : "jdk";
                assertEquals(listed, table.process(p.pid(), EnumSet.of(Facet.FDS)).openFds().orElseThrow(),
                        way + ": the open descriptors of " + p.pid());
                int inSnapshot = table.snapshot(EnumSet.of(Facet.FDS)).processes().stream()
                        .filter(i -> i.pid() == p.pid()).findFirst().orElseThrow().openFds().orElseThrow();
                assertEquals(listed, inSnapshot, way + ": the open descriptors of " + p.pid() + " in a snapshot");
            }
        }
        assertEquals(300, new java.io.File("/proc/" + many.pid() + "/fd").list().length);
        // On this kernel the wall's reader takes the count from the size, not from a listing.
        FdCounter counter = FdCounter.of(Path.of("/proc"));
        boolean sizeKnown = Files.size(Path.of("/proc/" + many.pid() + "/fd")) > 0;
        try (ProcFiles f = wallFiles(Path.of("/proc"))) {
            assertEquals(sizeKnown ? 300 : -1, f.openFdsBySize(many.pid(), counter));
            assertEquals(-1, f.openFdsBySize(none.pid(), counter), "no descriptor: size 0, listed");
            assertEquals(-1, f.openFdsBySize(many.pid(), FdCounter.LISTING), "never by size when told to list");
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
        assertEquals(4, wall(root).process(42, EnumSet.of(Facet.FDS)).openFds().orElseThrow());
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
