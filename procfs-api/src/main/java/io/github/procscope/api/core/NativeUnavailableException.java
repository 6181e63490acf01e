package io.github.procscope.api.core;

import java.util.Objects;

/**
 * A system call that procscope reaches through a native binding (for example {@code statvfs(3)} or
 * {@code stat(2)} with block counts) could not be bound on this platform: the native support library
 * failed to load, or the platform is not one procscope supports (64-bit Linux). The message names the
 * call and the cause.
 */
public class NativeUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param call   the system call that was needed, e.g. {@code statvfs}
     * @param reason why it is not available and what the user can do
     */
    public NativeUnavailableException(String call, String reason) {
        super("cannot call " + Objects.requireNonNull(call, "call") + " natively: "
                + Objects.requireNonNull(reason, "reason"));
    }

    /**
     * Creates the exception.
     * @param call   the system call that was needed, e.g. {@code statvfs}
     * @param reason why it is not available and what the user can do
     * @param cause  the loading failure
     */
    public NativeUnavailableException(String call, String reason, Throwable cause) {
        super("cannot call " + Objects.requireNonNull(call, "call") + " natively: "
                + Objects.requireNonNull(reason, "reason"), Objects.requireNonNull(cause, "cause"));
    }
}
