package io.github.procscope.linux;

import io.github.procscope.linux.internal.NativeAccess;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.ExitStatus;

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
     * before Linux 6.9 every pidfd is the one shared anonymous inode. So two pidfds of two different processes
     * (this JVM and init, or this JVM and its parent) with different inode numbers mean pidfs.
     */
    @Override
    public boolean pidfsInodes() {
        Boolean known = pidfs;
        if (known == null) {
            known = false;
            long other = selfPid != 1 ? 1 : ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
            if (other > 0 && wall.pidfdPossible()) {
                int self = wall.pidfdOpen(selfPid);
                int them = self >= 0 ? wall.pidfdOpen(other) : -1;
                try {
                    if (them >= 0) {
                        FileStatus a = new FileStatus();
                        FileStatus b = new FileStatus();
                        known = wall.fstat(self, a) == 0 && wall.fstat(them, b) == 0
                                && (a.mask & NativeWall.STATX_INO) != 0 && (b.mask & NativeWall.STATX_INO) != 0
                                && a.ino != b.ino;
                    }
                } finally {
                    if (them >= 0) {
                        wall.close(them);
                    }
                    if (self >= 0) {
                        wall.close(self);
                    }
                }
            }
            pidfs = known;
        }
        return known;
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
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        ChildState cs = new ChildState();
        int rc = wall.waitid(NativeWall.P_PID, pid, NativeWall.WEXITED | NativeWall.WNOHANG | NativeWall.WNOWAIT, cs);
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
}
