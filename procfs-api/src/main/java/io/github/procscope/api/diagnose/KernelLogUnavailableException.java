package io.github.procscope.api.diagnose;

import java.util.Objects;

import io.github.procscope.api.core.ProcscopeException;

/** The kernel log cannot be read here: permission (needs {@code CAP_SYSLOG}), or no {@code /dev/kmsg}. */
public class KernelLogUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message why, and what to do
     */
    public KernelLogUnavailableException(String message) {
        super(Objects.requireNonNull(message, "message"));
    }
}
