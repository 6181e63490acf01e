package io.github.procscope.api.files;

import java.util.List;

/**
 * The result of a system-wide search for descriptors leading to paths with a given prefix
 * ({@link OpenFiles#heldFiles(String)}).
 *
 * <p>The scan is complete only for the processes this user may inspect: {@link #unreadablePids()} lists
 * those whose descriptors could not be read (other users' processes, when not run as root or with
 * {@code CAP_SYS_PTRACE}); they may hold such files too. Processes that exit during the scan are in
 * neither list.
 *
 * @param files            every matching descriptor, ascending by pid, then by descriptor number
 * @param processesScanned how many processes' descriptors were read
 * @param unreadablePids   processes whose descriptors could not be read (permission), ascending
 */
public record HeldFilesScan(List<HeldFile> files, int processesScanned, List<Long> unreadablePids) {
    /**
     * Copies the lists.
     *
     * @throws IllegalArgumentException if {@code processesScanned} is negative
     */
    public HeldFilesScan {
        files = List.copyOf(files);
        unreadablePids = List.copyOf(unreadablePids);
        if (processesScanned < 0) {
            throw new IllegalArgumentException("processesScanned must not be negative: " + processesScanned);
        }
    }

    /** {@return whether every process was read: no holder can have been missed for lack of permission} */
    public boolean complete() {
        return unreadablePids.isEmpty();
    }
}
