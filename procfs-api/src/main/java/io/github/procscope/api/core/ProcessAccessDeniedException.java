package io.github.procscope.api.core;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The kernel refused to show a fact about a process to this user (for example
 * {@code /proc/PID/maps} or {@code /proc/PID/fd} of another user's process). The process exists.
 * Run as the process's owner, as root, or with {@code CAP_SYS_PTRACE}.
 */
public class ProcessAccessDeniedException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** The process whose file could not be read. */
    private final long pid;
    /** The file that could not be read. */
    private final String file;

    /**
     * Creates the exception.
     * @param pid  the process whose file could not be read
     * @param file the file that was refused
     */
    public ProcessAccessDeniedException(long pid, Path file) {
        super("permission denied reading " + file + " of pid " + pid
                + ": run as the process's owner or root (or with CAP_SYS_PTRACE)");
        this.pid = pid;
        this.file = Objects.requireNonNull(file, "file").toString();
    }

    /** {@return the process whose file could not be read} */
    public long pid() {
        return pid;
    }

    /** {@return the path of the file that was refused} */
    public Path file() {
        return Path.of(file);
    }
}
