package io.github.procscope.linux.proc;

import io.github.procscope.linux.parse.SelfStatus;
import io.github.procscope.linux.sys.FileStatus;
import io.github.procscope.linux.sys.ProcFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How a process table counts the open descriptors of a process ({@link io.github.procscope.api.process.Facet#FDS}) without
 * listing {@code /proc/PID/fd}: since Linux 6.2 {@code stat} of that directory gives the number of open
 * descriptors as its size. The count is taken from the size only where listing the directory would succeed and
 * give the same number, so that the facet's value does not depend on the way it was read:
 *
 * <ul>
 *   <li>the root is a procfs (a fixture tree's directory has a size of its own);</li>
 *   <li>the caller may list the directory: its file-system uid owns it and the owner may read and search it, or
 *       the caller has {@code CAP_DAC_READ_SEARCH} or {@code CAP_DAC_OVERRIDE}; otherwise the listing's own
 *       outcome (denied: no count) stands;</li>
 *   <li>the size is above 0: an older kernel gives 0 for every process, and so does a process with no descriptor
 *       or without a file table (a zombie, a kernel thread): those are listed.</li>
 * </ul>
 */
public final class FdCounter implements ProcFiles.FdCountRule {
    /** Every directory listed: not a procfs, or the caller's credentials unknown. */
    public static final FdCounter LISTING = new FdCounter(false, -1, false);

    private static final long CAP_DAC_OVERRIDE = 1L << 1;
    private static final long CAP_DAC_READ_SEARCH = 1L << 2;
    private static final int OWNER_READ_SEARCH = 0500;

    private final boolean bySize;
    private final long fsUid;
    private final boolean bypassesPermissions;

    FdCounter(boolean bySize, long fsUid, boolean bypassesPermissions) {
        this.bySize = bySize;
        this.fsUid = fsUid;
        this.bypassesPermissions = bypassesPermissions;
    }

    /**
     * @param root the table's root
     * @return the way to count under {@code root}: by size where it is a procfs and this process's credentials can
     *         be read from its {@code self/status}, else {@link #LISTING}
     */
    public static FdCounter of(Path root) {
        try {
            if (!"proc".equals(Files.getFileStore(root).type())) {
                return LISTING;
            }
            return fromStatus(Files.readAllLines(root.resolve("self").resolve("status")));
        } catch (IOException | RuntimeException e) {
            return LISTING; // listing gives the count, at its own cost
        }
    }

    /**
     * @param status the lines of this process's {@code /proc/self/status}
     * @return by size, with the file-system uid (fourth of {@code Uid:}) and the effective capabilities
     *         ({@code CapEff:}); {@link #LISTING} if either is missing or malformed
     */
    static FdCounter fromStatus(List<String> status) {
        long fsUid = SelfStatus.fsUid(status);
        long capEff = SelfStatus.effectiveCapabilities(status);
        if (fsUid < 0 || capEff < 0) {
            return LISTING;
        }
        return new FdCounter(true, fsUid, (capEff & (CAP_DAC_OVERRIDE | CAP_DAC_READ_SEARCH)) != 0);
    }

    /** @return whether a directory's size may stand for its count (else it is listed) */
    public boolean bySize() {
        return bySize;
    }

    /**
     * @param owner the uid owning {@code /proc/PID/fd}
     * @param mode  its mode bits
     * @return whether the caller may list it, so that its size may stand for the listing
     */
    boolean mayList(long owner, int mode) {
        return bySize && (bypassesPermissions || (owner == fsUid && (mode & OWNER_READ_SEARCH) == OWNER_READ_SEARCH));
    }

    /**
     * @param size  the size {@code stat} gave {@code /proc/PID/fd}
     * @param owner its owner
     * @param mode  its mode
     * @return the number of open descriptors, or -1 where the directory must be listed
     */
    @Override
    public int count(long size, long owner, int mode) {
        if (size <= 0 || size > Integer.MAX_VALUE || (mode & FileStatus.S_IFMT) != FileStatus.S_IFDIR
                || !mayList(owner, mode)) {
            return -1;
        }
        return (int) size;
    }
}
