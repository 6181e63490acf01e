package io.github.procscope.api.core;

import java.util.Objects;

/**
 * The process (or thread) does not exist: it exited (possibly while being read), it was never there,
 * or its pid now belongs to a different process than the {@link ProcessKey} named.
 */
public class NoSuchProcessException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** The process id that was asked for. */
    private final long pid;

    /**
     * Creates the exception.
     * @param pid the process id that was asked for
     */
    public NoSuchProcessException(long pid) {
        this(pid, "no such process: pid " + pid + " (it has exited, or never existed)");
    }

    /**
     * Creates the exception.
     * @param pid     the process id that was asked for
     * @param message a message naming the pid and the reason
     */
    public NoSuchProcessException(long pid, String message) {
        super(Objects.requireNonNull(message, "message"));
        this.pid = pid;
    }

    /** {@return the process id that was asked for} */
    public long pid() {
        return pid;
    }
}
