package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NativeUnavailableException;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalsUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The process calls of the signal module ({@code io.github.procscope.linux.signals}: {@code LinuxSignals},
 * {@code ExitWaiter}, {@code GracefulStop}) and of the job supervisor ({@code io.github.procscope.linux.jobs}:
 * spawning in a new session, reaping, the child subreaper), over this JVM's
 * {@link NativeWall}, whichever back end {@link NativeWalls} chose. Public only so that the signal package can
 * reach it; this package is not API (the module exports it to no one). Thread-safe.
 */
public final class ProcessCalls {
    /**
     * @return the process calls of this JVM, over the wall {@link NativeWalls} chose
     * @throws SignalsUnavailableException if the wall cannot be loaded here
     */
    public static ProcessCalls get() {
        try {
            return new ProcessCalls(NativeWalls.get("kill"));
        } catch (NativeUnavailableException e) {
            throw new SignalsUnavailableException(e.getMessage(), e);
        }
    }

    private final NativeWall wall;
    private final long selfPid;
    /** Whether pidfds live on pidfs; found on first use. */
    private volatile Boolean pidfs;

    private ProcessCalls(NativeWall wall) {
        this.wall = wall;
        this.selfPid = ProcessHandle.current().pid(); // getpid(), without a native call
    }

    /** @return the calls over a given back end (for tests that hold every back end to the same results) */
    static ProcessCalls over(NativeWall wall) {
        return new ProcessCalls(wall);
    }

    /** @return this JVM's pid */
    public long selfPid() {
        return selfPid;
    }

    /** @return this JVM's process group id */
    public long selfProcessGroup() {
        return wall.getpgrp();
    }

    /**
     * {@code kill(pid, signal)}, raw: callers have already refused pid &lt;= 0.
     *
     * @return 0 on success, else the errno
     */
    public int kill(long pid, Signal signal) {
        if (pid == 0 || pid == -1 || pid == Integer.MIN_VALUE || pid > Integer.MAX_VALUE || pid < Integer.MIN_VALUE) {
            throw new IllegalStateException("refusing kill(" + pid + "): not a process or group id");
        }
        return -wall.kill(pid, signal.number());
    }

    /** @return whether {@link #pidfdOpen(long)} may work on this platform */
    public boolean pidfdPossible() {
        return wall.pidfdPossible();
    }

    /**
     * {@code pidfd_open(pid, 0)}.
     *
     * @return a file descriptor (&gt;= 0), or minus the errno
     */
    public int pidfdOpen(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new IllegalStateException("refusing pidfd_open(" + pid + "): not a process id");
        }
        return wall.pidfdOpen(pid);
    }

    /**
     * {@code pidfd_send_signal(pidfd, sig, NULL, 0)}: the signal goes to the process the pidfd was opened on,
     * or nowhere (ESRCH) if that process has exited, never to a process that took its pid since.
     *
     * @return 0 on success, else the errno ({@code ESRCH}: it has exited; {@code EPERM}: not permitted;
     *         {@code ENOSYS}: a kernel before 5.1)
     */
    public int pidfdSendSignal(int pidfd, Signal signal) {
        return -wall.pidfdSendSignal(pidfd, signal.number());
    }

    /**
     * Pidfs tells itself apart by its inodes: on pidfs each process's pidfd has its own inode number, while
     * before Linux 6.9 every pidfd is the one shared anonymous inode. So this JVM's pidfd and another
     * process's (init, the parent, else any process this JVM can see: in a PID namespace of its own it may
     * see neither) with different inode numbers mean pidfs. Remembered once a comparison was made; where no
     * other process can be opened, false for now.
     *
     * @return whether a pidfd's inode number names its process uniquely: true where pidfds live on pidfs
     *         (Linux 6.9 and later), false where they share one anonymous inode or none can be opened
     */
    public boolean pidfsInodes() {
        Boolean known = pidfs;
        if (known != null) {
            return known;
        }
        if (!wall.pidfdPossible()) {
            pidfs = false;
            return false;
        }
        int self = wall.pidfdOpen(selfPid);
        if (self < 0) {
            return false;
        }
        try {
            FileStatus mine = new FileStatus();
            if (wall.fstat(self, mine) != 0 || (mine.mask & NativeWall.STATX_INO) == 0) {
                pidfs = false;
                return false;
            }
            // Init and the parent first: one pidfd each. Only where neither can be opened (a PID namespace of
            // its own) are the others listed, which reads every process's stat.
            java.util.LinkedHashSet<Long> others = new java.util.LinkedHashSet<>();
            others.add(1L);
            ProcessHandle.current().parent().ifPresent(p -> others.add(p.pid()));
            others.remove(selfPid);
            FileStatus theirs = new FileStatus();
            Boolean answer = differentInode(others, mine, theirs);
            if (answer == null) {
                java.util.LinkedHashSet<Long> more = new java.util.LinkedHashSet<>();
                try (java.util.stream.Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
                    all.limit(16).forEach(p -> more.add(p.pid()));
                }
                more.remove(selfPid);
                more.removeAll(others);
                answer = differentInode(more, mine, theirs);
            }
            if (answer != null) {
                pidfs = answer;
                return answer;
            }
            return false;
        } finally {
            wall.close(self);
        }
    }

    /**
     * @return whether the pidfd of the first of {@code pids} that can be opened has another inode than
     *         {@code mine}, or {@code null} if none can be opened and stat'ed
     */
    private Boolean differentInode(java.util.Set<Long> pids, FileStatus mine, FileStatus theirs) {
        for (long other : pids) {
            int fd = wall.pidfdOpen(other);
            if (fd < 0) {
                continue;
            }
            try {
                if (wall.fstat(fd, theirs) == 0 && (theirs.mask & NativeWall.STATX_INO) != 0) {
                    return theirs.ino != mine.ino;
                }
            } finally {
                wall.close(fd);
            }
        }
        return null;
    }

    /**
     * The inode number of a pidfd: on pidfs, unique to one process for the whole boot.
     *
     * @return the inode number, or empty where it does not name a process ({@link #pidfsInodes()} false) or
     *         cannot be read
     */
    public OptionalLong pidfdInode(int pidfd) {
        if (!pidfsInodes()) {
            return OptionalLong.empty();
        }
        FileStatus st = new FileStatus();
        if (wall.fstat(pidfd, st) != 0 || (st.mask & NativeWall.STATX_INO) == 0 || st.ino <= 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(st.ino);
    }

    /** @return whether the pidfd's process has exited (the pidfd is readable), looking without waiting */
    public boolean pidfdExited(int pidfd) {
        boolean[] ready = new boolean[1];
        pollReadable(new int[] {pidfd}, 1, 0, ready);
        return ready[0];
    }

    /** Closes a descriptor from {@link #pidfdOpen(long)}. */
    public void close(int fd) {
        wall.close(fd);
    }

    /**
     * Waits until one of the descriptors is readable or the timeout passes.
     *
     * @return how many are readable (0 on timeout or interruption by a signal)
     */
    public int pollReadable(int[] fds, int count, int timeoutMs, boolean[] ready) {
        short[] revents = new short[Math.max(1, count)];
        int n = wall.poll(fds, NativeWall.POLLIN, revents, count, timeoutMs);
        if (n < 0) {
            if (-n == Errno.EINTR) {
                return 0;
            }
            throw new IllegalStateException("poll(2) on " + count + " pidfds failed with errno " + -n);
        }
        int readyCount = 0;
        for (int i = 0; i < count; i++) {
            ready[i] = revents[i] != 0;
            if (ready[i]) {
                readyCount++;
            }
        }
        return readyCount;
    }

    /**
     * Looks at how a child of this JVM ended without reaping it.
     *
     * @return the exact exit status, if the pid is a child of this JVM that has ended and not been reaped
     */
    public Optional<ExitStatus> peekChildExit(long pid) {
        return waitChild(pid, NativeWall.WEXITED | NativeWall.WNOHANG | NativeWall.WNOWAIT);
    }

    /**
     * Reaps an ended child of this JVM ({@code waitid(P_PID, pid, WEXITED | WNOHANG)}). Only for children the
     * caller owns: never for those of {@link ProcessBuilder}, whose exit status the JDK waits for.
     *
     * @param pid a child's pid
     * @return its exit status, if it had ended and was reaped now
     */
    public Optional<ExitStatus> reapChild(long pid) {
        return waitChild(pid, NativeWall.WEXITED | NativeWall.WNOHANG);
    }

    private Optional<ExitStatus> waitChild(long pid, int options) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        ChildState cs = new ChildState();
        int rc = wall.waitid(NativeWall.P_PID, pid, options, cs);
        if (rc != 0 || cs.pid != pid) {
            return Optional.empty(); // ECHILD (not our child, or reaped), or WNOHANG and still running
        }
        switch (cs.code) {
            case ChildState.CLD_EXITED:
                return Optional.of(ExitStatus.exited(cs.status & 0xff));
            case ChildState.CLD_KILLED:
            case ChildState.CLD_DUMPED:
                if (cs.status >= 1 && cs.status <= Signal.MAX_NUMBER) {
                    return Optional.of(ExitStatus.killedBy(Signal.of(cs.status), cs.code == ChildState.CLD_DUMPED));
                }
                return Optional.empty();
            default:
                return Optional.empty();
        }
    }

    /**
     * Makes this JVM the child subreaper of its descendants, or stops it being one
     * ({@code prctl(PR_SET_CHILD_SUBREAPER, on)}): while it is one, an orphaned descendant is re-parented to
     * this JVM instead of to PID 1 (or the nearest subreaper above).
     *
     * @param on whether to be one
     * @return 0, or the errno
     */
    public int setChildSubreaper(boolean on) {
        long r = wall.prctl(NativeWall.PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0);
        return r < 0 ? (int) -r : 0;
    }

    /**
     * @return whether this JVM is the child subreaper of its descendants ({@code prctl(PR_GET_CHILD_SUBREAPER)})
     * @throws IllegalStateException if the kernel refuses to say
     */
    boolean childSubreaper() {
        int r = wall.childSubreaper();
        if (r < 0) {
            throw new IllegalStateException("prctl(PR_GET_CHILD_SUBREAPER) failed with errno " + -r);
        }
        return r != 0;
    }

    /**
     * Starts a program in a new session ({@code posix_spawnp} with {@code POSIX_SPAWN_SETSID}): its pid is its
     * session and process group id; it inherits this JVM's standard streams and working directory, and no other
     * descriptor open when it is spawned (each one {@link #descriptorsToClose()} lists is closed in the child, as
     * {@link ProcessBuilder} does; one opened by another thread during the call may slip through). It is a child
     * of this JVM that the JDK does not know, to be reaped with {@link #reapChild(long)}.
     *
     * @param argv the program (looked up on this JVM's {@code PATH} unless it holds a {@code /}) and its
     *             arguments, none holding NUL
     * @param env  its whole environment
     * @return the pid, or the error number ({@code ENOENT}: not found)
     */
    Spawned spawnInNewSession(List<String> argv, Map<String, String> env) {
        return spawnInNewSession(argv, env, -1);
    }

    /**
     * {@link #spawnInNewSession(List, Map)}, with the child's standard output and error on a descriptor of this
     * JVM (the write end of a {@link #pipe(int[])}, say), which the child gets as its 1 and 2 and nothing else.
     *
     * @param outFd the descriptor, or -1 for this JVM's standard output and error
     */
    public Spawned spawnInNewSession(List<String> argv, Map<String, String> env, int outFd) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("nothing to spawn: an empty command");
        }
        byte[][] args = new byte[argv.size()][];
        for (int i = 0; i < args.length; i++) {
            args[i] = cString("a command word", argv.get(i));
        }
        byte[][] envp = new byte[env.size()][];
        int i = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            envp[i++] = cString("an environment variable", e.getKey() + "=" + e.getValue());
        }
        long pid = wall.spawnp(args[0], args, envp, outFd, descriptorsToClose(),
                NativeWall.POSIX_SPAWN_SETSID);
        return pid > 0 ? new Spawned(pid, 0) : new Spawned(-1, (int) Math.max(1, -pid));
    }

    /**
     * {@code pipe2(fds, O_CLOEXEC)}: no program this JVM starts inherits either end unless it is handed over.
     *
     * @param fds receives the read end ({@code fds[0]}) and the write end ({@code fds[1]})
     * @return 0, or the errno
     */
    public int pipe(int[] fds) {
        return -wall.pipe2(fds, NativeWall.O_CLOEXEC);
    }

    /**
     * Makes a signal that this JVM ignores (as inherited from its parent: {@code trap '' TERM}, {@code nohup})
     * take its default action again, so that the JVM will install a handler for it when asked; a signal with a
     * handler or its default action is left as it is. Between this and the handler's installation the signal's
     * default action applies (for TERM: the JVM ends).
     *
     * @return whether it was ignored and now is not
     */
    public boolean stopIgnoring(Signal signal) {
        if (wall.sigaction(signal.number(), -1) != NativeWall.SIG_IGN) {
            return false;
        }
        return wall.sigaction(signal.number(), NativeWall.SIG_DFL) == NativeWall.SIG_IGN;
    }

    /**
     * Ignores a signal again, if it takes its default action now (no handler installed): the way back from
     * {@link #stopIgnoring(Signal)} once its handler is gone.
     *
     * @return whether it is ignored now
     */
    public boolean ignoreIfDefault(Signal signal) {
        long now = wall.sigaction(signal.number(), -1);
        if (now == NativeWall.SIG_IGN) {
            return true;
        }
        return now == NativeWall.SIG_DFL && wall.sigaction(signal.number(), NativeWall.SIG_IGN) == NativeWall.SIG_DFL;
    }

    /** @return {@code s} in UTF-8 with a terminating NUL; refuses a NUL inside, naming what it was */
    private static byte[] cString(String what, String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " holds a NUL character: " + s.replace('\0', '?'));
        }
        return NativeWall.path(s);
    }

    /** What {@link #spawnInNewSession} gave: a pid, or an error number. */
    public record Spawned(long pid, int errno) {
        /** {@code ENOENT}. */
        static final int ENOENT = 2;

        /** @return whether the program was not found */
        public boolean notFound() {
            return errno == ENOENT;
        }

        /** @return the error in words, as {@code strerror(3)} says it ("Permission denied"), with its number */
        public String reason() {
            String words;
            switch (errno) {
                case 1: words = "Operation not permitted"; break;
                case 2: words = "No such file or directory"; break;
                case 7: words = "Argument list too long"; break;
                case 8: words = "Exec format error"; break;
                case 11: words = "Resource temporarily unavailable"; break;
                case 12: words = "Cannot allocate memory"; break;
                case 13: words = "Permission denied"; break;
                case 20: words = "Not a directory"; break;
                case 21: words = "Is a directory"; break;
                case 23: words = "Too many open files in system"; break;
                case 24: words = "Too many open files"; break;
                case 26: words = "Text file busy"; break;
                case 36: words = "File name too long"; break;
                case 40: words = "Too many levels of symbolic links"; break;
                default: words = "error";
            }
            return words + " (errno " + errno + ")";
        }
    }

    /**
     * The descriptor rule of {@link #spawnInNewSession}, one for every back end.
     *
     * @return every descriptor above 2 this JVM has open now (read from {@code /proc/self/fd}), ascending
     */
    static int[] descriptorsToClose() {
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        if (fds == null) {
            return new int[0];
        }
        int[] out = new int[fds.length];
        int n = 0;
        for (java.io.File f : fds) {
            try {
                int fd = Integer.parseInt(f.getName());
                if (fd > 2) {
                    out[n++] = fd;
                }
            } catch (NumberFormatException e) {
                // not a descriptor entry
            }
        }
        int[] sorted = java.util.Arrays.copyOf(out, n);
        java.util.Arrays.sort(sorted);
        return sorted;
    }
}
