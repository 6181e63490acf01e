package io.github.procscope.api.files;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcessKey;

import java.util.Objects;

/**
 * One descriptor that holds a deleted file open: a row of {@code lsof +L1}. The file's blocks stay
 * allocated until every such descriptor is closed, so its space shows in {@code df} but not in {@code du}.
 *
 * @param holder         the process holding it (pid and start time)
 * @param comm           the holder's command name ({@code /proc/PID/stat} field 2)
 * @param fd             the descriptor number
 * @param path           the file's former path, without the kernel's {@code " (deleted)"} mark
 * @param sizeBytes      the file's size ({@code st_size})
 * @param allocatedBytes the disk space it occupies ({@code st_blocks} &times; 512): what deleting it did not free
 * @param device         the device of the file system holding it ({@code st_dev})
 * @param inode          its inode number; with {@code device}, identifies the file across holders
 */
public record DeletedFile(ProcessKey holder, String comm, int fd, String path, long sizeBytes,
                          long allocatedBytes, DeviceNumber device, long inode) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if a number is negative
     */
    public DeletedFile {
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(device, "device");
        if (fd < 0 || sizeBytes < 0 || allocatedBytes < 0) {
            throw new IllegalArgumentException("fd and sizes must not be negative: " + fd + ", " + sizeBytes
                    + ", " + allocatedBytes);
        }
    }

    /** {@return the holder's process id} */
    public long pid() {
        return holder.pid();
    }
}
