package io.github.procscope.api.core;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The directory given as procfs (or sysfs) root does not exist or is not one: for a procfs, it must
 * hold a readable {@code stat} with a {@code btime} line and an {@code uptime} file.
 */
public class ProcfsUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** The directory that was given. */
    private final String root;

    /**
     * Creates the exception.
     * @param root   the directory that was given
     * @param reason why it cannot serve as a root
     */
    public ProcfsUnavailableException(Path root, String reason) {
        super(root + " is not usable as a procfs root: " + Objects.requireNonNull(reason, "reason"));
        this.root = Objects.requireNonNull(root, "root").toString();
    }

    /** {@return the directory that was given} */
    public Path root() {
        return Path.of(root);
    }
}
