package io.github.procscope.api.gpu;

import java.util.List;

/**
 * The result of scanning every process's open files for NVIDIA device files.
 *
 * @param users          processes holding at least one NVIDIA device file, ascending by pid
 * @param unreadablePids processes whose {@code /proc/PID/fd} this user may not read (another user's
 *                       processes, unless running as root or with {@code CAP_SYS_PTRACE}), ascending;
 *                       they may hold GPUs too. Processes that exited during the scan are in neither list.
 */
public record GpuFdScan(List<GpuFdUser> users, List<Long> unreadablePids) {
    /** Copies the lists. */
    public GpuFdScan {
        users = List.copyOf(users);
        unreadablePids = List.copyOf(unreadablePids);
    }

    /** {@return whether every process's open files could be read} */
    public boolean isComplete() {
        return unreadablePids.isEmpty();
    }
}
