package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcscopeException;

/** A job's command could not be started: not found, not executable, or no process could be made. */
public class JobStartException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** Whether the command was not found. */
    private final boolean notFound;

    /**
     * Creates the exception.
     * @param message  what could not be started, and why
     * @param notFound whether the program was not found (a shell exits 127 then, else 126)
     */
    public JobStartException(String message, boolean notFound) {
        super(message);
        this.notFound = notFound;
    }

    /** {@return whether the program was not found} */
    public boolean notFound() {
        return notFound;
    }

    /** {@return the status a shell exits with for this failure: 127 when not found, else 126} */
    public int shellStatus() {
        return notFound ? 127 : 126;
    }
}
