package io.github.procscope.api.process;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A process left out of a listing because its kernel files could not be made sense of: a malformed value,
 * a file that is not a regular file, one larger than the kernel writes. One such process does not fail the
 * whole view; it is named here instead.
 *
 * @param pid    the process
 * @param file   the file that could not be read or parsed
 * @param reason what was wrong with it, on one line
 */
public record UnreadableProcess(long pid, Path file, String reason) {
    /** Validates. */
    public UnreadableProcess {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive: " + pid);
        }
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
    }
}
