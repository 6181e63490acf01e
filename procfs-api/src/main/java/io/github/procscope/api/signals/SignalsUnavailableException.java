package io.github.procscope.api.signals;

import java.util.Objects;

import io.github.procscope.api.core.ProcscopeException;

/**
 * The native access that sending signals needs could not be set up: the C library could not be bound
 * (for the Linux implementation, jnr-posix and its {@code jffi} native stub failed to load, for example
 * because the temporary directory it extracts to is mounted {@code noexec}, or the platform is not
 * supported). The message says what failed and what to check.
 */
public class SignalsUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what failed and what the caller can do
     * @param cause   the underlying failure
     */
    public SignalsUnavailableException(String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), Objects.requireNonNull(cause, "cause"));
    }

    /**
     * Creates the exception.
     * @param message what failed and what the caller can do
     */
    public SignalsUnavailableException(String message) {
        super(Objects.requireNonNull(message, "message"));
    }
}
