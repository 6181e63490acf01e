package io.github.procscope.linux.sys;

import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job supervisor's process calls (spawning in a new session, reaping, the child subreaper) held to the same
 * results over each back end of the wall this JVM can load: {@code jnr} everywhere, {@code ffm} on JDK 22+. Every
 * child is a child of this JVM the JDK does not know; each one is
 * ended by its pid (safe: it is not reaped until the test reaps it, so its pid cannot be reused) and reaped.
 */
class ProcessCallsSpawnTest {
    private static final int ENOENT = 2;
    private static final int EACCES = 13;
    private static final long WAIT_NANOS = 10_000_000_000L;

    /** Children spawned and not reaped yet, with the calls that reap them. */
    private final Map<Long, ProcessCalls> unreaped = new LinkedHashMap<>();

    /** @return the wall's back ends this JVM can load */
    static List<String> implementations() {
        return NativeWallTest.backEnds();
    }

    static ProcessCalls calls(String name) {
        return ProcessCalls.over(NativeWalls.load(name));
    }

    @AfterEach
    void endEveryChild() {
        for (Map.Entry<Long, ProcessCalls> e : unreaped.entrySet()) {
            long pid = e.getKey();
            ProcessCalls calls = e.getValue();
            if (calls.peekChildExit(pid).isEmpty()) {
                calls.kill(pid, Signal.KILL);
            }
            awaitReaped(calls, pid);
        }
        unreaped.clear();
    }

    private long spawn(ProcessCalls calls, List<String> argv, Map<String, String> env) {
        ProcessCalls.Spawned s = calls.spawnInNewSession(argv, env);
        assertTrue(s.pid() > 0, "spawned " + argv + ": " + s);
        assertEquals(0, s.errno());
        unreaped.put(s.pid(), calls);
        return s.pid();
    }

    private ExitStatus awaitReaped(ProcessCalls calls, long pid) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            Optional<ExitStatus> s = calls.reapChild(pid);
            if (s.isPresent()) {
                unreaped.remove(pid);
                return s.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("child " + pid + " was not reaped within 10 s");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void spawnsInANewSessionWithOnlyTheStandardStreamsAndTheGivenEnvironment(String name, @TempDir Path tmp)
            throws Exception {
        ProcessCalls calls = calls(name);
        Path held = tmp.resolve("held");
        Files.writeString(held, "held open across the spawn");
        // A descriptor without FD_CLOEXEC, as jnr and the JDK's file streams leave theirs: exec alone would
        // pass it on, so only the close actions keep it from the child.
        NativeWall w = NativeWalls.load(NativeWalls.JNR);
        int fd = w.openat(NativeWall.AT_FDCWD, NativeWall.path(held.toString()), NativeWall.O_RDONLY);
        assertTrue(fd > 2, "openat: " + fd);
        try {
            assertEquals(0, fdFlags(fd) & NativeWall.O_CLOEXEC, "the held descriptor is inherited by exec");
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            env.put("PROCSCOPE_SPAWN", "a b=c ü");
            env.put("EMPTY", "");
            long pid = spawn(calls, List.of("sleep", "600"), env);

            String[] stat = statFields(pid);
            assertEquals(Long.toString(calls.selfPid()), stat[1], "ppid: a child of this JVM");
            assertEquals(Long.toString(pid), stat[2], "pgid == pid");
            assertEquals(Long.toString(pid), stat[3], "sid == pid");
            assertEquals("sleep\0" + "600\0", afterExec(pid), () -> "stat " + Arrays.toString(stat));

            TreeMap<Integer, Path> mine = descriptors("/proc/self/fd");
            assertTrue(mine.containsKey(fd), "this JVM holds " + fd);
            TreeMap<Integer, Path> standard = new TreeMap<>(mine.headMap(3));
            // Right after the exec the dynamic loader may still hold the C library it is mapping (it closes it
            // once mapped): wait for that, but a descriptor inherited from this JVM would stay for good.
            TreeMap<Integer, Path> theirs = descriptors("/proc/" + pid + "/fd");
            for (long deadline = System.nanoTime() + 10_000_000_000L;
                 !theirs.equals(standard) && System.nanoTime() < deadline; ) {
                Thread.sleep(20);
                theirs = descriptors("/proc/" + pid + "/fd");
            }
            assertEquals(standard, theirs, "only the standard streams, the same as this JVM's");

            assertEquals(Files.readSymbolicLink(Path.of("/proc/self/cwd")),
                    Files.readSymbolicLink(Path.of("/proc/" + pid + "/cwd")), "the working directory is inherited");
            List<String> environ = new ArrayList<>(Arrays.asList(new String(
                    Files.readAllBytes(Path.of("/proc/" + pid + "/environ")), StandardCharsets.UTF_8).split("\0")));
            List<String> given = new ArrayList<>();
            env.forEach((k, v) -> given.add(k + "=" + v));
            environ.sort(null);
            given.sort(null);
            assertEquals(given, environ, "the environment given, whole and alone");

            assertEquals(Optional.empty(), calls.reapChild(pid), "running: nothing to reap");
            assertEquals(0, calls.kill(pid, Signal.KILL));
            assertEquals(ExitStatus.killedBy(Signal.KILL, false), awaitReaped(calls, pid));
            assertEquals(Optional.empty(), calls.reapChild(pid), "reaped once only");
        } finally {
            assertEquals(0, w.close(fd));
        }
    }

    /**
     * A child whose standard output and error are the write end of a pipe: both streams arrive through it, in
     * order, and the pipe ends (end of file) when the child has ended, since neither this JVM nor any other
     * child holds the write end: it is close-on-exec, and this JVM closes its own copy after the spawn.
     */
    @ParameterizedTest
    @MethodSource("implementations")
    void aChildsOutputAndErrorGoThroughAPipe(String name) throws Exception {
        ProcessCalls calls = calls(name);
        int[] fds = new int[2];
        assertEquals(0, calls.pipe(fds));
        assertTrue(fds[0] > 2 && fds[1] > 2 && fds[0] != fds[1], Arrays.toString(fds));
        assertEquals(NativeWall.O_CLOEXEC, fdFlags(fds[0]) & NativeWall.O_CLOEXEC);
        assertEquals(NativeWall.O_CLOEXEC, fdFlags(fds[1]) & NativeWall.O_CLOEXEC);
        // The read end, opened again through /proc as a stream of this JVM's; the native one is closed.
        java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/fd/" + fds[0]);
        NativeWall w = NativeWalls.load(NativeWalls.JNR);
        assertEquals(0, w.close(fds[0]));
        long pid;
        try {
            ProcessCalls.Spawned s = calls.spawnInNewSession(List.of("sh", "-c",
                    "echo out-1; echo err-2 >&2; ls /proc/$$/fd; echo out-3"), System.getenv(), fds[1]);
            assertTrue(s.pid() > 0, s.toString());
            pid = s.pid();
            unreaped.put(pid, calls);
        } finally {
            assertEquals(0, w.close(fds[1]));
        }
        String all;
        try (in) {
            // read(), not readAllBytes(): JDK 17's FileInputStream asks a pipe for its length and gets ESPIPE
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[256];
            for (int n; (n = in.read(buf)) > 0; ) {
                got.write(buf, 0, n);
            }
            all = got.toString(StandardCharsets.UTF_8);
        }
        List<String> lines = all.lines().toList();
        assertEquals(List.of("out-1", "err-2", "0", "1", "2"), lines.subList(0, 5), all);
        assertEquals("out-3", lines.get(lines.size() - 1), all);
        assertTrue(lines.size() <= 8, "0, 1, 2, and the descriptor ls reads the directory with: " + all);
        assertEquals(ExitStatus.exited(0), awaitReaped(calls, pid));
    }

    /**
     * A signal this JVM ignores takes its default action again, and is ignored again; a signal with a handler
     * (QUIT: the JVM's thread dumps) is never touched by either call.
     */
    @ParameterizedTest
    @MethodSource("implementations")
    void anIgnoredSignalIsUnignoredAndIgnoredAgainAndAHandlerIsNeverTouched(String name) throws Exception {
        ProcessCalls calls = calls(name);
        Signal s = Signal.WINCH; // nobody here handles it
        long bit = 1L << (s.number() - 1);
        boolean ignoredBefore = (mask("SigIgn") & bit) != 0;
        try {
            assertTrue(calls.ignoreIfDefault(s));
            assertTrue((mask("SigIgn") & bit) != 0, "ignored");
            assertTrue(calls.ignoreIfDefault(s), "already ignored: still ignored");
            assertTrue(calls.stopIgnoring(s));
            assertEquals(0, mask("SigIgn") & bit, "default again");
            assertFalse(calls.stopIgnoring(s), "not ignored: nothing to do");
            assertEquals(0, mask("SigIgn") & bit);
        } finally {
            if (ignoredBefore) {
                calls.ignoreIfDefault(s);
            }
        }
        long quit = 1L << (Signal.QUIT.number() - 1);
        if ((mask("SigCgt") & quit) != 0) {
            assertFalse(calls.stopIgnoring(Signal.QUIT));
            assertFalse(calls.ignoreIfDefault(Signal.QUIT));
            assertTrue((mask("SigCgt") & quit) != 0, "the JVM's handler stays");
            assertEquals(0, mask("SigIgn") & quit);
        }
    }

    private static long mask(String field) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith(field + ":")) {
                return Long.parseUnsignedLong(l.substring(field.length() + 1).strip(), 16);
            }
        }
        throw new AssertionError("no " + field + " in /proc/self/status");
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void reapsTheExactExitCode(String name) {
        ProcessCalls calls = calls(name);
        long pid = spawn(calls, List.of("sh", "-c", "exit 7"), System.getenv());
        assertEquals(ExitStatus.exited(7), awaitReaped(calls, pid));
        long abs = spawn(calls, List.of("/bin/sh", "-c", "kill -TERM $$"), System.getenv());
        assertEquals(ExitStatus.killedBy(Signal.TERM, false), awaitReaped(calls, abs));
        assertEquals(Optional.empty(), calls.reapChild(1), "pid 1 is not a child");
        assertEquals(Optional.empty(), calls.reapChild(0));
        assertEquals(Optional.empty(), calls.reapChild(-5));
        assertEquals(Optional.empty(), calls.reapChild(Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void aMissingProgramIsNotFoundAndAnUnrunnableOneIsNot(String name, @TempDir Path tmp) throws IOException {
        ProcessCalls calls = calls(name);
        ProcessCalls.Spawned missing = calls.spawnInNewSession(List.of("procscope-no-such-program-x1", "a"),
                System.getenv());
        assertEquals(new ProcessCalls.Spawned(-1, ENOENT), missing);
        assertTrue(missing.notFound());
        assertTrue(calls.spawnInNewSession(List.of(tmp.resolve("absent").toString()), Map.of()).notFound());
        Path plain = Files.writeString(tmp.resolve("plain"), "#!/bin/sh\nexit 0\n");
        ProcessCalls.Spawned denied = calls.spawnInNewSession(List.of(plain.toString()), Map.of());
        assertEquals(new ProcessCalls.Spawned(-1, EACCES), denied, "not executable: another error than not found");
        assertFalse(denied.notFound());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void theChildSubreaperFlagReadsBackAsSet(String name) {
        ProcessCalls calls = calls(name);
        boolean before = calls.childSubreaper();
        try {
            assertEquals(0, calls.setChildSubreaper(true));
            assertTrue(calls.childSubreaper());
            assertTrue(NativeWalls.load(NativeWalls.JNR).childSubreaper() == 1, "the wall reads the same flag");
            assertEquals(0, calls.setChildSubreaper(false));
            assertFalse(calls.childSubreaper());
            assertEquals(0, NativeWalls.load(NativeWalls.JNR).childSubreaper());
        } finally {
            calls.setChildSubreaper(before);
        }
    }

    @ParameterizedTest
    @MethodSource("io.github.procscope.linux.sys.NativeWallTest#backEnds")
    void aWordWithNulIsRefusedBeforeAnythingStarts(String name) {
        ProcessCalls calls = calls(name);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> calls.spawnInNewSession(List.of("sh", "-c", "exit 0\0rm"), Map.of()));
        assertTrue(e.getMessage().contains("command word"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> calls.spawnInNewSession(List.of("true"), Map.of("A", "b\0c")));
        assertTrue(e.getMessage().contains("environment"), e.getMessage());
    }

    /**
     * posix_spawnp returns once the child's exec has replaced its address space, which may be before the kernel
     * has set the new program's arguments and environment up in it (an empty {@code cmdline} for a moment).
     *
     * @return the child's {@code cmdline} once it is there
     */
    static String afterExec(long pid) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            String cmdline = Files.readString(Path.of("/proc/" + pid + "/cmdline"));
            if (!cmdline.isEmpty() || System.nanoTime() > deadline) {
                return cmdline;
            }
            Thread.sleep(2);
        }
    }

    /** @return the fields of /proc/PID/stat after the command: state, ppid, pgrp, session... */
    static String[] statFields(long pid) throws IOException {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return s.substring(s.lastIndexOf(')') + 2).split(" ");
    }

    /** @return the {@code flags} of /proc/self/fdinfo/FD */
    static int fdFlags(int fd) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return Integer.parseInt(line.substring(6).trim(), 8);
            }
        }
        throw new AssertionError("no flags in fdinfo of " + fd);
    }

    /** @return each descriptor of a /proc fd directory with where it points */
    static TreeMap<Integer, Path> descriptors(String dir) throws IOException {
        TreeMap<Integer, Path> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(Path.of(dir))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    out.put(Integer.parseInt(p.getFileName().toString()), Files.readSymbolicLink(p));
                } catch (java.nio.file.NoSuchFileException e) {
                    // closed meanwhile (the directory stream's own descriptor)
                }
            }
        }
        return out;
    }
}
