package io.github.procscope.api.core;

import java.util.Objects;

/**
 * The root of every exception procscope throws on purpose. Unchecked: callers catch the subtype whose
 * cause they can act on ({@link NoSuchProcessException}, {@link ProcessAccessDeniedException}, ...).
 */
public class ProcscopeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what went wrong, naming the pid or file, and what the caller can do
     */
    public ProcscopeException(String message) {
        super(Objects.requireNonNull(message, "message"));
    }

    /**
     * Creates the exception.
     * @param message what went wrong, naming the pid or file, and what the caller can do
     * @param cause   the underlying failure
     */
    public ProcscopeException(String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), Objects.requireNonNull(cause, "cause"));
    }
}
