package io.github.procscope.api.core;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A procfs or sysfs file could not be read for a reason other than "the process is gone" or
 * "permission denied": an I/O error, or a file that is missing although its process exists
 * (a kernel built without that file).
 */
public class ProcfsException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** The file concerned. */
    private final String file;

    /**
     * Creates the exception.
     * @param file    the file concerned
     * @param message what went wrong with it
     */
    public ProcfsException(Path file, String message) {
        super(Objects.requireNonNull(message, "message"));
        this.file = Objects.requireNonNull(file, "file").toString();
    }

    /**
     * Creates the exception.
     * @param file    the file concerned
     * @param message what went wrong with it
     * @param cause   the underlying I/O failure
     */
    public ProcfsException(Path file, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), Objects.requireNonNull(cause, "cause"));
        this.file = Objects.requireNonNull(file, "file").toString();
    }

    /** {@return the file concerned} */
    public Path file() {
        return Path.of(file);
    }
}
