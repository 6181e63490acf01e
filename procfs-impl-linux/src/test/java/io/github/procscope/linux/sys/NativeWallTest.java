package io.github.procscope.linux.sys;

import io.github.procscope.api.core.Pids;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of the native wall, held against the kernel and the JDK, for each back end this JVM can
 * load: jnr everywhere, ffm on JDK 22+. The same test runs on both, so both give the same results, errnos
 * included.
 */
class NativeWallTest {
    private static final int ENOENT = 2;
    private static final int ESRCH = 3;
    private static final int EBADF = 9;
    private static final int EINVAL = 22;
    private static final int ENOTDIR = 20;
    private static final int S_IFIFO = 0010000;
    private static final int SIGKILL = 9;

    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    /**
     * @return the back ends this JVM can load: jnr everywhere, ffm on JDK 22+ (the build's second pass runs every
     *         test JVM on JDK 25)
     */
    static List<String> backEnds() {
        return Runtime.version().feature() >= 22 ? List.of(NativeWalls.FFM, NativeWalls.JNR) : List.of(NativeWalls.JNR);
    }

    /** @return the back ends this JVM can load beside jnr: none before JDK 22 */
    static List<String> backEndsBesideJnr() {
        return backEnds().stream().filter(b -> !b.equals(NativeWalls.JNR)).toList();
    }

    static NativeWall wall(String name) {
        NativeWall w = NativeWalls.load(name);
        assertEquals(name, w.name());
        return w;
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void identifiesThisProcess(String name) {
        NativeWall w = wall(name);
        assertEquals(ProcessHandle.current().pid(), w.getpid());
        long pgrp = LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build().process(w.getpid()).pgid();
        assertEquals(pgrp, w.getpgrp());
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void socketCallsTalkToTheKernelOverNetlink(String name) {
        // NETLINK_ROUTE needs no privilege: a NOOP request with NLM_F_ACK is answered by an NLMSG_ERROR
        // carrying error 0 and our sequence number, which exercises socket, setsockopt, bind, send and recv.
        NativeWall w = wall(name);
        int fd = w.socket(16, 2 | 0x80000, 0);
        assertTrue(fd >= 0, "socket: " + fd);
        try {
            java.nio.ByteBuffer tv = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.nativeOrder());
            tv.putLong(0, 1).putLong(8, 0);
            assertEquals(0, w.setsockopt(fd, 1, 20, tv.array(), 16), "SO_RCVTIMEO");
            java.nio.ByteBuffer addr = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.nativeOrder());
            addr.putShort(0, (short) 16);
            assertEquals(0, w.bind(fd, addr.array(), 12));
            java.nio.ByteBuffer req = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.nativeOrder());
            req.putInt(0, 16).putShort(4, (short) 1).putShort(6, (short) (1 | 4)).putInt(8, 4242);
            byte[] framed = new byte[20];
            System.arraycopy(req.array(), 0, framed, 2, 16);
            assertEquals(16, w.send(fd, framed, 2, 16, 0), "send from an offset");
            byte[] in = new byte[4096];
            long n = w.recv(fd, in, 0, in.length, 0);
            assertTrue(n >= 36, "an ack: " + n);
            java.nio.ByteBuffer ack = java.nio.ByteBuffer.wrap(in).order(java.nio.ByteOrder.nativeOrder());
            assertEquals(2, ack.getShort(4), "NLMSG_ERROR");
            assertEquals(4242, ack.getInt(8), "our sequence number");
            assertEquals(0, ack.getInt(16), "error 0: an acknowledgement");
            assertEquals(-11, w.recv(fd, in, 0, in.length, 0), "nothing more: EAGAIN after SO_RCVTIMEO");
        } finally {
            assertEquals(0, w.close(fd));
        }
        assertEquals(-EBADF, w.setsockopt(fd, 1, 20, new byte[16], 16));
        assertEquals(-EBADF, w.recv(fd, new byte[8], 0, 8, 0));
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void killReportsTheErrnoOfAMissingProcess(String name) {
        NativeWall w = wall(name);
        assertEquals(0, w.kill(w.getpid(), 0), "signal 0 to itself only checks");
        assertEquals(-ESRCH, w.kill(Pids.PID_MAX_LIMIT + 1, 0), "no process above pid_max");
        assertEquals(-EINVAL, w.kill(w.getpid(), 1000), "no signal 1000");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void pidfdSignalsExactlyItsProcessAndSeesItEnd(String name, @TempDir Path tmp) throws Exception {
        NativeWall w = wall(name);
        assertTrue(w.pidfdPossible());
        // A child no JDK reaper collects, so that waitid can look at it before the test reaps it.
        long pid = spawned.startNative(tmp.resolve("out"), List.of("sleep", "600"));
        int fd = w.pidfdOpen(pid);
        assertTrue(fd >= 0, "pidfd_open: " + fd);
        FileStatus st = new FileStatus();
        assertEquals(0, w.fstat(fd, st));
        assertTrue(st.ino > 0, "a pidfd has an inode: " + st);
        FileStatus again = new FileStatus();
        int fd2 = w.pidfdOpen(pid);
        assertEquals(0, w.fstat(fd2, again));
        if (kernelAtLeast(6, 9)) {
            assertEquals(st.ino, again.ino, "pidfs gives one inode per process: " + st + " " + again);
            int self = w.pidfdOpen(w.getpid());
            FileStatus mine = new FileStatus();
            assertEquals(0, w.fstat(self, mine));
            assertTrue(mine.ino != st.ino, "another process, another inode");
            assertEquals(0, w.close(self));
        }
        assertEquals(0, w.close(fd2));

        short[] revents = new short[1];
        assertEquals(0, w.poll(new int[] {fd}, NativeWall.POLLIN, revents, 1, 0), "alive: not readable");
        assertEquals(0, w.pidfdSendSignal(fd, SIGKILL));
        assertEquals(1, w.poll(new int[] {fd}, NativeWall.POLLIN, revents, 1, 10_000), "readable once it ends");
        assertTrue((revents[0] & NativeWall.POLLIN) != 0);

        ChildState cs = new ChildState();
        assertEquals(0, w.waitid(NativeWall.P_PID, pid, NativeWall.WEXITED | NativeWall.WNOHANG
                | NativeWall.WNOWAIT, cs));
        assertEquals(pid, cs.pid);
        assertEquals(ChildState.CLD_KILLED, cs.code);
        assertEquals(SIGKILL, cs.status);
        assertEquals(SIGKILL, spawned.reapNative(pid, Duration.ofSeconds(10)) & 0x7f,
                "WNOWAIT left the child to be reaped, killed by SIGKILL");

        assertEquals(-ESRCH, w.pidfdSendSignal(fd, SIGKILL), "a reaped process is never signalled again");
        assertEquals(0, w.close(fd));
        assertEquals(-EBADF, w.close(fd));
        assertEquals(-EBADF, w.pidfdSendSignal(fd, 0));
        assertEquals(-ESRCH, w.pidfdOpen(Pids.PID_MAX_LIMIT + 1), "no process above pid_max");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void pidfdInfoGivesTheExitStatusOfAReapedProcess(String name) throws Exception {
        NativeWall w = wall(name);
        Assumptions.assumeTrue(kernelAtLeast(6, 15), "PIDFD_INFO_EXIT needs Linux 6.15");
        Process p = spawned.start("sh", "-c", "read x; exit 5");
        int fd = w.pidfdOpen(p.pid());
        assertTrue(fd >= 0, "pidfd_open: " + fd);
        try {
            PidfdInfo info = new PidfdInfo();
            assertEquals(0, w.pidfdGetInfo(fd, PidfdInfo.INFO_PID | PidfdInfo.INFO_EXIT, info));
            assertEquals(p.pid(), info.pid, "the kernel's answer is decoded at the right offsets");
            assertEquals(ProcessHandle.current().pid(), info.ppid);
            assertEquals(0, info.mask & PidfdInfo.INFO_EXIT, "no exit status while it runs");
            p.getOutputStream().close();
            assertEquals(5, p.waitFor(), "the JDK reaped it with its status");
            assertEquals(0, w.pidfdGetInfo(fd, PidfdInfo.INFO_EXIT, info));
            assertTrue((info.mask & PidfdInfo.INFO_EXIT) != 0, "exit status after the reap");
            assertEquals(5 << 8, info.exitCode, "the wait status of exit(5)");
        } finally {
            w.close(fd);
        }
        assertEquals(-EBADF, w.pidfdGetInfo(-1, PidfdInfo.INFO_EXIT, new PidfdInfo()), "no descriptor");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void waitidOnANonChildIsAnError(String name) {
        NativeWall w = wall(name);
        int r = w.waitid(NativeWall.P_PID, 1, NativeWall.WEXITED | NativeWall.WNOHANG | NativeWall.WNOWAIT,
                new ChildState());
        assertEquals(-10, r, "ECHILD: pid 1 is not our child");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void readsAFileWholeAndDescribesIt(String name, @TempDir Path tmp) throws IOException {
        NativeWall w = wall(name);
        byte[] content = new byte[40_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31);
        }
        Path f = tmp.resolve("data");
        Files.write(f, content);
        int dir = w.openat(NativeWall.AT_FDCWD, NativeWall.path(tmp.toString()),
                NativeWall.O_RDONLY | NativeWall.O_DIRECTORY | NativeWall.O_CLOEXEC);
        assertTrue(dir >= 0, "open the directory: " + dir);
        int fd = w.openat(dir, NativeWall.path("data"), NativeWall.O_RDONLY | NativeWall.O_NONBLOCK
                | NativeWall.O_CLOEXEC);
        assertTrue(fd >= 0, "openat: " + fd);
        FileStatus st = new FileStatus();
        assertEquals(0, w.fstat(fd, st));
        assertTrue(st.isRegularFile(), st.toString());
        assertEquals(content.length, st.size);
        assertEquals(((Number) Files.getAttribute(f, "unix:ino")).longValue(), st.ino);
        assertEquals(((Number) Files.getAttribute(f, "unix:dev")).longValue(), st.dev());
        assertEquals(((Number) Files.getAttribute(f, "unix:uid")).longValue(), st.uid);
        assertEquals(1, st.nlink);

        byte[] buf = new byte[content.length + 10];
        int at = 0;
        while (true) {
            long n = w.read(fd, buf, at, buf.length - at);
            assertTrue(n >= 0, "read: " + n);
            if (n == 0) {
                break;
            }
            at += (int) n;
        }
        assertEquals(content.length, at);
        assertArrayEquals(content, Arrays.copyOf(buf, at));
        assertThrows(IndexOutOfBoundsException.class, () -> w.read(fd, buf, buf.length - 1, 2));
        assertEquals(0, w.close(fd));
        assertEquals(-EBADF, (int) w.read(fd, buf, 0, 1));

        FileStatus d = new FileStatus();
        assertEquals(0, w.statx(dir, NativeWall.path("data"), NativeWall.AT_SYMLINK_NOFOLLOW,
                NativeWall.STATX_BASIC_STATS, d));
        assertEquals(st.ino, d.ino);
        assertEquals(0, w.statx(dir, NativeWall.EMPTY_PATH, NativeWall.AT_EMPTY_PATH, NativeWall.STATX_BASIC_STATS, d));
        assertEquals(FileStatus.S_IFDIR, d.type());
        assertEquals(-ENOENT, w.openat(dir, NativeWall.path("missing"), NativeWall.O_RDONLY));
        assertEquals(-ENOTDIR, w.openat(dir, NativeWall.path("data/x"), NativeWall.O_RDONLY));
        assertEquals(-ENOENT, w.statx(dir, NativeWall.path("missing"), 0, NativeWall.STATX_BASIC_STATS, d));
        assertEquals(0, w.close(dir));
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aFifoOpensWithoutBlockingAndShowsItsType(String name, @TempDir Path tmp) throws Exception {
        NativeWall w = wall(name);
        Path fifo = tmp.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor());
        // Without O_NONBLOCK this open would wait for a writer forever.
        int fd = w.openat(NativeWall.AT_FDCWD, NativeWall.path(fifo.toString()),
                NativeWall.O_RDONLY | NativeWall.O_NONBLOCK | NativeWall.O_CLOEXEC);
        assertTrue(fd >= 0, "openat: " + fd);
        FileStatus st = new FileStatus();
        assertEquals(0, w.fstat(fd, st));
        assertEquals(S_IFIFO, st.type());
        assertTrue(!st.isRegularFile());
        assertEquals(0, w.read(fd, new byte[16], 0, 16), "no writer: end of file at once");
        assertEquals(0, w.close(fd));
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void takesPathsAsCStrings(String name) {
        NativeWall w = wall(name);
        assertThrows(IllegalArgumentException.class, () -> w.openat(NativeWall.AT_FDCWD,
                "/etc/hostname".getBytes(StandardCharsets.US_ASCII), NativeWall.O_RDONLY));
        FileStatus st = new FileStatus();
        assertEquals(0, w.statx(NativeWall.AT_FDCWD, "/etc\0/x/y\0".getBytes(StandardCharsets.US_ASCII), 0,
                NativeWall.STATX_BASIC_STATS, st), "a C path ends at its first NUL");
        assertEquals(FileStatus.S_IFDIR, st.type());
        assertThrows(IllegalArgumentException.class, () -> NativeWall.path("a\0b"));
        assertEquals(-36, w.openat(NativeWall.AT_FDCWD, NativeWall.path("/" + "x".repeat(5000)), NativeWall.O_RDONLY),
                "ENAMETOOLONG");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void pathsOfEveryLengthUpToTheLongestReachTheirFile(String name, @TempDir Path dir) throws Exception {
        NativeWall w = wall(name);
        Path file = dir.resolve("f");
        byte[] expected = "the file's bytes\n".getBytes(StandardCharsets.US_ASCII);
        Files.write(file, expected);
        String rest = file.toString().substring(1);
        // Every length modulo eight, and the longest path the kernel takes (4,095 bytes and the NUL).
        List<String> paths = new ArrayList<>();
        for (int slashes = 1; slashes <= 24; slashes++) {
            paths.add("/".repeat(slashes) + rest);
        }
        paths.add("/".repeat(4095 - rest.length()) + rest);
        for (String p : paths) {
            int fd = w.openat(NativeWall.AT_FDCWD, NativeWall.path(p), NativeWall.O_RDONLY | NativeWall.O_CLOEXEC);
            assertTrue(fd >= 0, "a path of " + p.length() + " bytes: " + fd);
            byte[] in = new byte[4096];
            long n = w.read(fd, in, 0, in.length);
            assertEquals(0, w.close(fd));
            assertArrayEquals(expected, Arrays.copyOf(in, (int) n), "a path of " + p.length() + " bytes");
            FileStatus st = new FileStatus();
            assertEquals(0, w.statx(NativeWall.AT_FDCWD, NativeWall.path(p), 0, NativeWall.STATX_BASIC_STATS, st));
            assertEquals(expected.length, st.size);
        }
        String tooLong = "/".repeat(4096 - rest.length()) + rest;
        assertEquals(-36, w.openat(NativeWall.AT_FDCWD, NativeWall.path(tooLong), NativeWall.O_RDONLY),
                "ENAMETOOLONG past 4,095 bytes");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void prctlGivesTheKernelsAnswerOrItsErrno(String name) {
        NativeWall w = wall(name);
        int PR_GET_DUMPABLE = 3;
        int PR_SET_TIMERSLACK = 29;
        int PR_GET_TIMERSLACK = 30;
        long dumpable = w.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
        assertTrue(dumpable == 0 || dumpable == 1 || dumpable == 2, "dumpable: " + dumpable);
        // This thread's timer slack: set, read back, restored (a test thread's own setting).
        long before = w.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        assertTrue(before > 0, "timer slack: " + before);
        try {
            assertEquals(0, w.prctl(PR_SET_TIMERSLACK, 123_457, 0, 0, 0));
            assertEquals(123_457, w.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
        } finally {
            assertEquals(0, w.prctl(PR_SET_TIMERSLACK, before, 0, 0, 0));
        }
        assertEquals(before, w.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
        assertEquals(-EINVAL, w.prctl(99_999, 0, 0, 0, 0));
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void spawnpStartsAChildOrGivesTheErrorNumber(String name) {
        NativeWall w = wall(name);
        byte[][] argv = {NativeWall.path("sh"), NativeWall.path("-c"), NativeWall.path("exit $0"), NativeWall.path("9")};
        byte[][] envp = {NativeWall.path("PATH=/usr/bin:/bin")};
        long pid = w.spawnp(argv[0], argv, envp, new int[0], NativeWall.POSIX_SPAWN_SETSID);
        assertTrue(pid > 0, "posix_spawnp: " + pid);
        ChildState cs = new ChildState();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (w.waitid(NativeWall.P_PID, pid, NativeWall.WEXITED | NativeWall.WNOHANG, cs) == 0 && cs.pid == 0) {
            assertTrue(System.nanoTime() < deadline, "child " + pid + " did not end");
            Thread.onSpinWait();
        }
        assertEquals(pid, cs.pid, "reaped");
        assertEquals(ChildState.CLD_EXITED, cs.code);
        assertEquals(9, cs.status, "its argv reached it: exit $0 with $0 = 9");
        assertEquals(-10, w.waitid(NativeWall.P_PID, pid, NativeWall.WEXITED | NativeWall.WNOHANG, cs),
                "ECHILD once reaped");

        assertEquals(-ENOENT, w.spawnp(NativeWall.path("procscope-no-such-program-x1"),
                new byte[][] {NativeWall.path("x")}, envp, new int[0], (short) 0));
        assertEquals(-EBADF, w.spawnp(argv[0], argv, envp, new int[] {-1}, (short) 0),
                "a close action on a negative descriptor is refused before anything starts");
        assertThrows(IllegalArgumentException.class, () -> w.spawnp(new byte[] {'s', 'h'}, argv, envp, new int[0],
                (short) 0), "a C string ends with NUL");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void pipe2AndAChildWritingIntoIt(String name) throws IOException {
        NativeWall w = wall(name);
        int[] fds = new int[2];
        assertEquals(0, w.pipe2(fds, NativeWall.O_CLOEXEC));
        try {
            byte[][] argv = {NativeWall.path("sh"), NativeWall.path("-c"), NativeWall.path("echo one; echo two >&2")};
            byte[][] envp = {NativeWall.path("PATH=/usr/bin:/bin")};
            long pid = w.spawnp(argv[0], argv, envp, fds[1], new int[] {fds[0], fds[1]}, (short) 0);
            assertTrue(pid > 0, "posix_spawnp: " + pid);
            assertEquals(0, w.close(fds[1]));
            fds[1] = -1;
            byte[] buf = new byte[64];
            StringBuilder got = new StringBuilder();
            for (long n; (n = w.read(fds[0], buf, 0, buf.length)) > 0; ) {
                got.append(new String(buf, 0, (int) n, StandardCharsets.UTF_8));
            }
            assertEquals("one\ntwo\n", got.toString(), "both streams, then the end of the pipe");
            ChildState cs = new ChildState();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (w.waitid(NativeWall.P_PID, pid, NativeWall.WEXITED | NativeWall.WNOHANG, cs) == 0 && cs.pid == 0) {
                assertTrue(System.nanoTime() < deadline, "child " + pid + " did not end");
                Thread.onSpinWait();
            }
            assertEquals(0, cs.status);
        } finally {
            w.close(fds[0]);
            if (fds[1] >= 0) {
                w.close(fds[1]);
            }
        }
        assertEquals(-EBADF, w.spawnp(NativeWall.path("true"), new byte[][] {NativeWall.path("true")},
                new byte[0][], 1_000_000, new int[0], (short) 0), "a dup2 action on a descriptor out of range");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void sigactionReadsAndSetsOnlyTheDispositionsWithoutCode(String name) throws IOException {
        NativeWall w = wall(name);
        int winch = 28;
        long before = w.sigaction(winch, -1);
        assertTrue(before == NativeWall.SIG_DFL || before == NativeWall.SIG_IGN, "nobody handles WINCH here: " + before);
        try {
            assertEquals(before, w.sigaction(winch, NativeWall.SIG_IGN));
            assertEquals(NativeWall.SIG_IGN, w.sigaction(winch, -1));
            assertTrue(sigIgn().testBit(winch - 1));
            assertEquals(NativeWall.SIG_IGN, w.sigaction(winch, NativeWall.SIG_DFL));
            assertEquals(NativeWall.SIG_DFL, w.sigaction(winch, -1));
            assertTrue(!sigIgn().testBit(winch - 1));
        } finally {
            w.sigaction(winch, before);
        }
        assertTrue(w.sigaction(3, -1) > NativeWall.SIG_IGN, "QUIT: the JVM's handler, an address");
        assertEquals(-EINVAL, w.sigaction(SIGKILL, NativeWall.SIG_IGN), "KILL cannot be ignored");
        assertEquals(-EINVAL, w.sigaction(0, -1));
        assertThrows(IllegalArgumentException.class, () -> w.sigaction(winch, 0x1234));
    }

    private static java.math.BigInteger sigIgn() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("SigIgn:")) {
                return new java.math.BigInteger(l.substring(7).strip(), 16);
            }
        }
        throw new AssertionError("no SigIgn");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void statvfsAgreesWithTheJdk(String name, @TempDir Path tmp) throws IOException {
        NativeWall w = wall(name);
        long[] v = new long[11];
        assertEquals(0, w.statvfs(NativeWall.path(tmp.toString()), v));
        java.nio.file.FileStore store = Files.getFileStore(tmp);
        assertEquals(store.getTotalSpace(), v[2] * v[1]);
        assertEquals(-ENOENT, w.statvfs(NativeWall.path(tmp.resolve("missing").toString()), v));
    }

    @ParameterizedTest(allowZeroInvocations = true)
    @MethodSource("backEndsBesideJnr")
    void everyBackEndGivesTheFileStatusJnrGivesForProcFiles(String name) throws IOException {
        NativeWall ffm = NativeWalls.load(name);
        NativeWall jnr = NativeWalls.load(NativeWalls.JNR);
        for (String p : new String[] {"/proc/self", "/proc/1", "/proc/self/stat", "/proc/self/fd", "/dev/null", "/"}) {
            FileStatus a = new FileStatus();
            FileStatus b = new FileStatus();
            assertEquals(ffm.statx(NativeWall.AT_FDCWD, NativeWall.path(p), NativeWall.AT_SYMLINK_NOFOLLOW,
                    NativeWall.STATX_BASIC_STATS, a), jnr.statx(NativeWall.AT_FDCWD, NativeWall.path(p),
                    NativeWall.AT_SYMLINK_NOFOLLOW, NativeWall.STATX_BASIC_STATS, b));
            assertEquals(b.toString(), a.toString(), p);
            Object jdkIno = Files.getAttribute(Path.of(p), "unix:ino", LinkOption.NOFOLLOW_LINKS);
            assertEquals(((Number) jdkIno).longValue(), a.ino, p);
        }
    }

    /** @return the whole file, read through {@code w} in the wall's chunks */
    private static byte[] readAll(NativeWall w, Path file) {
        int fd = w.openat(NativeWall.AT_FDCWD, NativeWall.path(file.toString()), NativeWall.O_RDONLY | NativeWall.O_CLOEXEC);
        assertTrue(fd >= 0, "open " + file + ": " + fd);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[64 * 1024];
        try {
            for (long n; (n = w.read(fd, chunk, 0, chunk.length)) != 0; ) {
                assertTrue(n > 0 && n <= 16 * 1024, "read " + file + ": " + n);
                out.write(chunk, 0, (int) n);
            }
        } finally {
            assertEquals(0, w.close(fd));
        }
        return out.toByteArray();
    }

    /**
     * Both back ends in one JVM (JDK 22+): the same bytes of a file, the same errno for a missing one, the same
     * pidfs inode for this JVM, and the process-table reader over each gives the same bytes of every file of a
     * fixture tree.
     */
    @ParameterizedTest(allowZeroInvocations = true)
    @MethodSource("backEndsBesideJnr")
    void everyBackEndReadsWhatJnrReads(String name, @TempDir Path tmp) throws IOException {
        NativeWall other = NativeWalls.load(name);
        NativeWall jnr = NativeWalls.load(NativeWalls.JNR);
        byte[] content = new byte[40_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + i / 7);
        }
        Path file = Files.write(tmp.resolve("f"), content);
        assertArrayEquals(content, readAll(jnr, file));
        assertArrayEquals(content, readAll(other, file));
        byte[] missing = NativeWall.path(tmp.resolve("missing").toString());
        assertEquals(-ENOENT, jnr.openat(NativeWall.AT_FDCWD, missing, NativeWall.O_RDONLY));
        assertEquals(-ENOENT, other.openat(NativeWall.AT_FDCWD, missing, NativeWall.O_RDONLY));

        ProcessCalls a = ProcessCalls.over(other);
        ProcessCalls b = ProcessCalls.over(jnr);
        assertEquals(b.pidfsInodes(), a.pidfsInodes());
        int fa = a.pidfdOpen(a.selfPid());
        int fb = b.pidfdOpen(b.selfPid());
        try {
            assertTrue(fa >= 0 && fb >= 0, fa + " " + fb);
            assertEquals(b.pidfdInode(fb), a.pidfdInode(fa), "this JVM's pidfs inode");
        } finally {
            a.close(fa);
            b.close(fb);
        }

        Path root = io.github.procscope.testing.Fixtures.proc();
        String prefix = root + "/";
        int filesRead = 0;
        try (ProcFiles x = ProcFiles.open(root, prefix, true, other); ProcFiles y = ProcFiles.open(root, prefix, true, jnr)) {
            assertTrue(x.isNative() && y.isNative());
            for (String pid : new java.io.File(root.toFile(), ".").list((d, n) -> n.matches("[0-9]+"))) {
                long p = Long.parseLong(pid);
                assertEquals(y.ownerUid(p), x.ownerUid(p), "owner of " + pid);
                for (ProcFiles.Leaf leaf : ProcFiles.Leaf.values()) {
                    ProcBuffer bx = new ProcBuffer();
                    ProcBuffer by = new ProcBuffer();
                    assertEquals(y.read(p, leaf, by), x.read(p, leaf, bx), pid + "/" + leaf.fileName);
                    assertArrayEquals(Arrays.copyOf(by.bytes(), by.length()), Arrays.copyOf(bx.bytes(), bx.length()),
                            pid + "/" + leaf.fileName);
                    filesRead += bx.length() > 0 ? 1 : 0;
                }
            }
        }
        assertTrue(filesRead > 10, "the fixture tree's files were read: " + filesRead);
    }

    @Test
    void theChosenBackEndFollowsTheJdkAndTheProperty() {
        String saved = System.getProperty(NativeWall.BACKEND_PROPERTY);
        try {
            System.clearProperty(NativeWall.BACKEND_PROPERTY);
            assertEquals(Runtime.version().feature() >= 22 && NativeWalls.ffmBuilt() ? "ffm" : "jnr", NativeWalls.chosen());
            System.setProperty(NativeWall.BACKEND_PROPERTY, "JNR");
            assertEquals("jnr", NativeWalls.chosen());
            System.setProperty(NativeWall.BACKEND_PROPERTY, "panama");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NativeWalls::chosen);
            assertTrue(e.getMessage().contains("panama"), e.getMessage());
        } finally {
            if (saved == null) {
                System.clearProperty(NativeWall.BACKEND_PROPERTY);
            } else {
                System.setProperty(NativeWall.BACKEND_PROPERTY, saved);
            }
        }
        if (Runtime.version().feature() < 22) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> NativeWalls.load("ffm"));
            assertTrue(e.getMessage().contains("JDK 22"), e.getMessage());
        }
    }

    private static boolean kernelAtLeast(int major, int minor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int a = Integer.parseInt(v[0]);
        int b = Integer.parseInt(v[1]);
        return a > major || (a == major && b >= minor);
    }
}
