package io.github.procscope.api.signals;


import java.time.Duration;
import java.util.Objects;

/**
 * How a graceful stop proceeds: send {@link #signal()} (TERM), wait up to {@link #gracePeriod()} for
 * the processes to end, send KILL to the survivors, and wait up to {@link #killWait()} for them to be
 * gone. Waiting does not spin: an implementation blocks on the processes' exit where the kernel allows
 * it (pidfd) and otherwise polls with a backoff from {@link #pollInitial()} doubling up to
 * {@link #pollMax()}; a tree or group is re-scanned on the same backoff.
 *
 * <pre>{@code
 * StopOptions opts = StopOptions.defaults().withGracePeriod(Duration.ofSeconds(30));  // as Kubernetes does
 * }</pre>
 *
 * @param signal      the polite signal sent first; TERM by default. KILL and STOP are refused: the first
 *                    must give the process a chance to clean up and end
 * @param gracePeriod how long the processes may take to end after the polite signal; zero sends KILL
 *                    right after it
 * @param killWait    how long to wait for the processes to be gone after KILL (a process in
 *                    uninterruptible sleep, state D, dies only when its I/O returns); those still there
 *                    are reported as {@link StopReport.Ending#SURVIVED}
 * @param pollInitial the first interval of the backoff (polling {@code /proc}, re-scanning a tree)
 * @param pollMax     the longest interval of the backoff
 */
public record StopOptions(Signal signal, Duration gracePeriod, Duration killWait, Duration pollInitial,
                          Duration pollMax) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if the signal is KILL or STOP, a duration is negative, the kill
     *                                  wait or the first poll interval is zero, or the longest poll
     *                                  interval is shorter than the first
     */
    public StopOptions {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(gracePeriod, "gracePeriod");
        Objects.requireNonNull(killWait, "killWait");
        Objects.requireNonNull(pollInitial, "pollInitial");
        Objects.requireNonNull(pollMax, "pollMax");
        if (!signal.isCatchable()) {
            throw new IllegalArgumentException("the first signal of a graceful stop must be one a process can"
                    + " handle, not " + signal + "; KILL is sent anyway when the grace period ends");
        }
        if (gracePeriod.isNegative()) {
            throw new IllegalArgumentException("grace period must not be negative: " + gracePeriod);
        }
        if (killWait.isNegative() || killWait.isZero()) {
            throw new IllegalArgumentException("the wait after KILL must be positive: " + killWait);
        }
        if (pollInitial.isNegative() || pollInitial.isZero()) {
            throw new IllegalArgumentException("the first poll interval must be positive: " + pollInitial);
        }
        if (pollMax.compareTo(pollInitial) < 0) {
            throw new IllegalArgumentException("the longest poll interval (" + pollMax
                    + ") must not be shorter than the first (" + pollInitial + ")");
        }
    }

    /**
     * {@return TERM, a 10 second grace period, 5 seconds to wait after KILL, polling from 5 ms up to 250 ms}
     */
    public static StopOptions defaults() {
        return new StopOptions(Signal.TERM, Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofMillis(5),
                Duration.ofMillis(250));
    }

    /**
     * {@return these options with that signal}
     *
     * @param newSignal the polite signal to send first (INT for a program that checkpoints on Ctrl-C,
     *                  USR1 for a SLURM-style warning)
     */
    public StopOptions withSignal(Signal newSignal) {
        return new StopOptions(newSignal, gracePeriod, killWait, pollInitial, pollMax);
    }

    /**
     * {@return these options with that grace period}
     *
     * @param grace how long the processes may take to end after the polite signal
     */
    public StopOptions withGracePeriod(Duration grace) {
        return new StopOptions(signal, grace, killWait, pollInitial, pollMax);
    }

    /**
     * {@return these options with that wait}
     *
     * @param wait how long to wait for the processes to be gone after KILL
     */
    public StopOptions withKillWait(Duration wait) {
        return new StopOptions(signal, gracePeriod, wait, pollInitial, pollMax);
    }

    /**
     * {@return these options with that backoff}
     *
     * @param initial the first backoff interval
     * @param max     the longest backoff interval
     */
    public StopOptions withPolling(Duration initial, Duration max) {
        return new StopOptions(signal, gracePeriod, killWait, initial, max);
    }
}
