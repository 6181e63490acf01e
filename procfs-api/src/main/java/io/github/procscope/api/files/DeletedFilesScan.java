package io.github.procscope.api.files;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The result of a system-wide search for deleted files still held open: {@code lsof +L1}, with the
 * totals per file system that explain a gap between {@code df} and {@code du}.
 *
 * <p>The scan is complete only for the processes this user may inspect: {@link #unreadablePids()} lists
 * those whose descriptors it could not read (other users' processes, when not run as root). Processes that
 * exit during the scan are left out.
 *
 * @param takenAt            when the scan started
 * @param files              every holder, ordered by allocated bytes, largest first
 * @param fileSystems        the space held per file system, largest first
 * @param processesScanned   how many processes' descriptors were read
 * @param unreadablePids     processes whose descriptors could not be read (permission), ascending
 */
public record DeletedFilesScan(Instant takenAt, List<DeletedFile> files, List<DeletedSpace> fileSystems,
                               int processesScanned, List<Long> unreadablePids) {
    /** Copies the lists. */
    public DeletedFilesScan {
        Objects.requireNonNull(takenAt, "takenAt");
        files = List.copyOf(files);
        fileSystems = List.copyOf(fileSystems);
        unreadablePids = List.copyOf(unreadablePids);
        if (processesScanned < 0) {
            throw new IllegalArgumentException("processesScanned must not be negative: " + processesScanned);
        }
    }

    /** {@return whether every process was read: no holder can have been missed for lack of permission} */
    public boolean complete() {
        return unreadablePids.isEmpty();
    }

    /** {@return the allocated bytes of all deleted-but-open files, each counted once} */
    public long totalAllocatedBytes() {
        long sum = 0;
        for (DeletedSpace s : fileSystems) {
            sum += s.allocatedBytes();
        }
        return sum;
    }
}
