package io.github.procscope.api.disk;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A mounted file system's space and inodes: {@code statvfs(3)} of its mount point, with the figures of
 * {@code df -B1} and {@code df -i} computed exactly as GNU {@code df} computes them.
 *
 * <p>Why used + available is less than size: most file systems keep a reserve (5% by default on ext4)
 * that only root may fill. {@code df} computes Use% against used + available, the space ordinary users
 * can reach, and rounds it up: a file system is shown 100% full only when it is.
 *
 * @param mount             the mount, from {@code /proc/self/mountinfo}
 * @param blockSizeBytes    the unit of the block counts ({@code f_frsize})
 * @param sizeBytes         total data space ({@code f_blocks} &times; {@code f_frsize}), df's "1B-blocks"
 * @param freeBytes         free space including the root reserve ({@code f_bfree} &times; {@code f_frsize})
 * @param availableBytes    free space available to unprivileged users ({@code f_bavail} &times;
 *                          {@code f_frsize}), df's "Available"
 * @param inodes            total inodes ({@code f_files}); 0 for file systems without a fixed inode table
 * @param inodesFree        free inodes ({@code f_ffree})
 * @param readOnly          whether the file system is mounted read-only ({@code ST_RDONLY} in {@code f_flag})
 */
public record FileSystemUsage(MountInfo mount, long blockSizeBytes, long sizeBytes, long freeBytes,
                              long availableBytes, long inodes, long inodesFree, boolean readOnly) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if a figure is negative or the block size not positive
     */
    public FileSystemUsage {
        Objects.requireNonNull(mount, "mount");
        if (blockSizeBytes <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSizeBytes);
        }
        if (sizeBytes < 0 || freeBytes < 0 || availableBytes < 0 || inodes < 0 || inodesFree < 0) {
            throw new IllegalArgumentException("file system figures must not be negative");
        }
    }

    /**
     * {@return df's "Used": {@code size - free} (free including the root reserve); negative only for a file
     * system that reports more free blocks than it has, which df prints as a negative number too}
     */
    public long usedBytes() {
        return sizeBytes - freeBytes;
    }

    /**
     * {@return df's "Use%": {@code used / (used + available)}, as a percentage rounded up; empty when used +
     * available is 0 (a pseudo file system), where df prints {@code -}}
     */
    public OptionalInt usePercent() {
        return percent(usedBytes(), availableBytes);
    }

    /** {@return df -i's "IUsed": {@code inodes - inodesFree}} */
    public long inodesUsed() {
        return inodes - inodesFree;
    }

    /** {@return df -i's "IUse%": {@code iused / inodes} rounded up; empty when the file system reports no inodes} */
    public OptionalInt inodeUsePercent() {
        return percent(inodesUsed(), inodesFree);
    }

    /** {@return whether this is a pseudo file system ({@link MountInfo#isPseudo()}) or one with no blocks at all} */
    public boolean isPseudo() {
        return mount.isPseudo() || sizeBytes == 0;
    }

    /** {@return the mount point, for convenience} */
    public String mountPoint() {
        return mount.mountPoint();
    }

    /**
     * GNU df's percentage: {@code ceil(used * 100 / (used + available))} in integers, falling back to floating
     * point (rounded up likewise) where the integers would overflow.
     */
    static OptionalInt percent(long used, long available) {
        if (used < 0 || available < 0) {
            double u = used;
            double total = u + available;
            if (total == 0) {
                return OptionalInt.empty();
            }
            return OptionalInt.of((int) Math.ceil(u * 100 / total));
        }
        long total = used + available;
        if (total == 0) {
            return OptionalInt.empty();
        }
        if (total < 0 || used > Long.MAX_VALUE / 100) {
            return OptionalInt.of((int) Math.ceil((double) used * 100 / ((double) used + available)));
        }
        long u100 = used * 100;
        return OptionalInt.of((int) (u100 / total + (u100 % total != 0 ? 1 : 0)));
    }
}
