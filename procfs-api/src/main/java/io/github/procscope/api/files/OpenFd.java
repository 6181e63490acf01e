package io.github.procscope.api.files;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.Pids;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One open file descriptor of a process, as one row of {@code lsof -p PID} shows it: the link
 * {@code /proc/PID/fd/FD}, the file it leads to (a {@code stat(2)} through the link, which works even for
 * a deleted file), and {@code /proc/PID/fdinfo/FD}.
 *
 * @param pid            the process holding the descriptor
 * @param fd             the descriptor number
 * @param kind           what it refers to, from the target's file type
 * @param target         the link's text exactly as the kernel gives it: a path (with {@code " (deleted)"}
 *                       appended if the file was unlinked), or {@code socket:[12345]}, {@code pipe:[678]},
 *                       {@code anon_inode:[eventfd]} ...
 * @param path           the target's path, without the {@code " (deleted)"} mark, when the target is a path;
 *                       empty for sockets, pipes and anonymous inodes
 * @param deleted        whether the target's name was removed after the file was opened (the kernel's
 *                       {@code " (deleted)"} mark). Its blocks are freed only when the link count is 0 and the
 *                       last descriptor closes (see {@code linkCount})
 * @param sizeBytes      the target's size ({@code st_size}), for regular files and directories; empty for other
 *                       kinds, whose size means nothing, and when the target could not be examined
 * @param allocatedBytes the disk space the target occupies ({@code st_blocks} &times; 512), for regular files and
 *                       directories; smaller than the size for a sparse file; empty as for {@code sizeBytes}
 * @param linkCount      the target's number of names ({@code st_nlink}); 0 for a deleted file whose blocks are
 *                       held only by open descriptors; empty when the target could not be examined
 * @param device         the device of the file system holding the target ({@code st_dev}); empty when the
 *                       target could not be examined
 * @param inode          the target's inode number ({@code st_ino}, or the {@code ino:} line of {@code fdinfo});
 *                       empty when neither was available. Unsigned 64-bit: one at or above 2^63 is a negative
 *                       {@code long}, read with {@link Long#toUnsignedString(long)}
 * @param openedDevice   for a character or block device, the device itself ({@code st_rdev}, e.g. 195:0 for
 *                       {@code /dev/nvidia0}); empty for other kinds
 * @param positionBytes  the file offset ({@code pos:} in {@code fdinfo}): where the next read or write happens
 * @param flags          the open flags ({@code flags:} in {@code fdinfo}), decoded
 * @param mountId        the id of the mount holding the target ({@code mnt_id:}, Linux 3.15+; matches
 *                       {@code /proc/PID/mountinfo}); empty on older kernels
 */
public record OpenFd(
        long pid,
        int fd,
        FdKind kind,
        String target,
        Optional<String> path,
        boolean deleted,
        OptionalLong sizeBytes,
        OptionalLong allocatedBytes,
        OptionalLong linkCount,
        Optional<DeviceNumber> device,
        OptionalLong inode,
        Optional<DeviceNumber> openedDevice,
        long positionBytes,
        OpenFlags flags,
        OptionalInt mountId) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if the pid is out of range or the descriptor negative
     */
    public OpenFd {
        Pids.requireValid(pid);
        if (fd < 0) {
            throw new IllegalArgumentException("file descriptor must not be negative: " + fd);
        }
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(sizeBytes, "sizeBytes");
        Objects.requireNonNull(allocatedBytes, "allocatedBytes");
        Objects.requireNonNull(linkCount, "linkCount");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(inode, "inode");
        Objects.requireNonNull(openedDevice, "openedDevice");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(mountId, "mountId");
    }

    /**
     * {@return for an anonymous inode, its kind as the kernel names it ({@code eventfd}, {@code eventpoll},
     * {@code inotify}, {@code timerfd}, {@code [io_uring]}...); empty for other descriptors}
     */
    public Optional<String> anonInodeType() {
        if (!target.startsWith("anon_inode:")) {
            return Optional.empty();
        }
        String t = target.substring("anon_inode:".length());
        if (t.length() >= 2 && t.charAt(0) == '[' && t.charAt(t.length() - 1) == ']') {
            t = t.substring(1, t.length() - 1);
        }
        return Optional.of(t);
    }

    /**
     * {@return whether this descriptor holds disk space that no name leads to any more: a regular file with
     * a link count of 0 (what {@code lsof +L1} lists)}
     */
    public boolean holdsDeletedSpace() {
        return kind == FdKind.REGULAR_FILE && linkCount.isPresent() && linkCount.getAsLong() == 0;
    }
}
