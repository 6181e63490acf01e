package io.github.procscope.api.files;

import io.github.procscope.api.core.Pids;

import java.util.Objects;

/**
 * One descriptor whose link {@code /proc/PID/fd/FD} leads to a path of interest: a row of
 * {@code lsof /dev/nvidia*} or {@code fuser -v FILE}. Only the link is read: nothing is known of the
 * file beyond the link's text.
 *
 * @param pid    the process holding the descriptor
 * @param fd     the descriptor number
 * @param target the link's text exactly as the kernel gives it (a path, with {@code " (deleted)"} appended
 *               if the file was unlinked)
 */
public record HeldFile(long pid, int fd, String target) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if the pid is out of range or the descriptor negative
     */
    public HeldFile {
        Pids.requireValid(pid);
        if (fd < 0) {
            throw new IllegalArgumentException("file descriptor must not be negative: " + fd);
        }
        Objects.requireNonNull(target, "target");
    }
}
