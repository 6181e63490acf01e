package io.github.procscope.api.job;

import io.github.procscope.api.signals.Signal;

import java.time.Instant;
import java.util.Objects;

/**
 * A signal passed on to the job.
 *
 * @param signal    the signal
 * @param at        when it was passed on
 * @param processes to how many processes of the job it was delivered
 */
public record ForwardedSignal(Signal signal, Instant at, int processes) {
    /** Checks the components. */
    public ForwardedSignal {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(at, "at");
        if (processes < 0) {
            throw new IllegalArgumentException("a count of processes is 0 or more, not " + processes);
        }
    }
}
