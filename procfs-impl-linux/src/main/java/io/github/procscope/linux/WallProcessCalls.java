package io.github.procscope.linux;

import io.github.procscope.api.Signal;
import io.github.procscope.api.signals.ExitStatus;

import java.util.Optional;

/**
 * The process calls over a {@link NativeWall}: what {@link NativeAccess} does through jnr-posix, with the
 * same results, through whichever back end the wall has. Thread-safe.
 */
final class WallProcessCalls implements ProcessCalls {
    private final NativeWall wall;
    private final long selfPid;

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
