package io.github.procscope.linux.sys;

import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The process calls over a {@link NativeWall}: what {@link NativeAccess} does through jnr-posix, with the
 * same results, through whichever back end the wall has. Thread-safe.
 */
final class WallProcessCalls implements ProcessCalls {
    private final NativeWall wall;
    private final long selfPid;
    /** Whether pidfds live on pidfs; found on first use. */
    private volatile Boolean pidfs;

    private WallProcessCalls(NativeWall wall) {
        this.wall = wall;
        this.selfPid = ProcessHandle.current().pid(); // getpid(), without a native call
    }

    static WallProcessCalls over(NativeWall wall) {
        return new WallProcessCalls(wall);
    }

    @Override
    public long selfPid() {
        return selfPid;
    }

    @Override
    public long selfProcessGroup() {
        return wall.getpgrp();
    }

    @Override
    public int kill(long pid, Signal signal) {
        if (pid == 0 || pid == -1 || pid == Integer.MIN_VALUE || pid > Integer.MAX_VALUE || pid < Integer.MIN_VALUE) {
            throw new IllegalStateException("refusing kill(" + pid + "): not a process or group id");
        }
        return -wall.kill(pid, signal.number());
    }

    @Override
    public boolean pidfdPossible() {
        return wall.pidfdPossible();
    }

    @Override
    public int pidfdOpen(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new IllegalStateException("refusing pidfd_open(" + pid + "): not a process id");
        }
        return wall.pidfdOpen(pid);
    }

    @Override
    public int pidfdSendSignal(int pidfd, Signal signal) {
        return -wall.pidfdSendSignal(pidfd, signal.number());
    }

    /**
     * Pidfs tells itself apart by its inodes: on pidfs each process's pidfd has its own inode number, while
     * before Linux 6.9 every pidfd is the one shared anonymous inode. So this JVM's pidfd and another
     * process's (init, the parent, else any process this JVM can see: in a PID namespace of its own it may
     * see neither) with different inode numbers mean pidfs. Remembered once a comparison was made; where no
     * other process can be opened, false for now.
     */
    @Override
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
            java.util.LinkedHashSet<Long> others = new java.util.LinkedHashSet<>();
            others.add(1L);
            ProcessHandle.current().parent().ifPresent(p -> others.add(p.pid()));
            try (java.util.stream.Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
                all.limit(16).forEach(p -> others.add(p.pid()));
            }
            others.remove(selfPid);
            FileStatus theirs = new FileStatus();
            for (long other : others) {
                int fd = wall.pidfdOpen(other);
                if (fd < 0) {
                    continue;
                }
                try {
                    if (wall.fstat(fd, theirs) == 0 && (theirs.mask & NativeWall.STATX_INO) != 0) {
                        known = theirs.ino != mine.ino;
                        pidfs = known;
                        return known;
                    }
                } finally {
                    wall.close(fd);
                }
            }
            return false;
        } finally {
            wall.close(self);
        }
    }

    @Override
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

    @Override
    public boolean pidfdExited(int pidfd) {
        boolean[] ready = new boolean[1];
        pollReadable(new int[] {pidfd}, 1, 0, ready);
        return ready[0];
    }

    @Override
    public void close(int fd) {
        wall.close(fd);
    }

    @Override
    public int pollReadable(int[] fds, int count, int timeoutMs, boolean[] ready) {
        short[] revents = new short[Math.max(1, count)];
        int n = wall.poll(fds, NativeWall.POLLIN, revents, count, timeoutMs);
        if (n < 0) {
            if (-n == NativeAccess.EINTR) {
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

    @Override
    public Optional<ExitStatus> peekChildExit(long pid) {
        return waitChild(pid, NativeWall.WEXITED | NativeWall.WNOHANG | NativeWall.WNOWAIT);
    }

    @Override
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

    @Override
    public int setChildSubreaper(boolean on) {
        long r = wall.prctl(NativeWall.PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0);
        return r < 0 ? (int) -r : 0;
    }

    @Override
    public boolean childSubreaper() {
        int r = wall.childSubreaper();
        if (r < 0) {
            throw new IllegalStateException("prctl(PR_GET_CHILD_SUBREAPER) failed with errno " + -r);
        }
        return r != 0;
    }

    @Override
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
        long pid = wall.spawnp(args[0], args, envp, outFd, ProcessCalls.descriptorsToClose(),
                NativeWall.POSIX_SPAWN_SETSID);
        return pid > 0 ? new Spawned(pid, 0) : new Spawned(-1, (int) Math.max(1, -pid));
    }

    @Override
    public int pipe(int[] fds) {
        return -wall.pipe2(fds, NativeWall.O_CLOEXEC);
    }

    @Override
    public boolean stopIgnoring(Signal signal) {
        if (wall.sigaction(signal.number(), -1) != NativeWall.SIG_IGN) {
            return false;
        }
        return wall.sigaction(signal.number(), NativeWall.SIG_DFL) == NativeWall.SIG_IGN;
    }

    @Override
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
}
