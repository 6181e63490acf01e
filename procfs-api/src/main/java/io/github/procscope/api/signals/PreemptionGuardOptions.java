package io.github.procscope.api.signals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a {@link PreemptionGuard} guards and how it escalates; given to
 * {@link io.github.procscope.api.Procscope#preemptionGuard(PreemptionGuardOptions)}.
 *
 * @param signals            the signals to guard, in order, without repeats (default: TERM); more are USR1
 *                           (SLURM's {@code --signal}), HUP (submitit, a closed terminal), INT (Ctrl-C)
 * @param listeners          called with each arrival, on the JVM's signal thread (default: none)
 * @param exitOnSecondSignal whether a second arrival of a signal already received exits the JVM at once with
 *                           128 + N through {@link System#exit(int)} (default: true, as Ctrl-C pressed twice);
 *                           off, repeats are only recorded
 * @param checkpointDeadline how long after the first arrival the program may take to call
 *                           {@link PreemptionGuard#exitAfterCheckpoint()} (or close the guard); when it passes,
 *                           the guard exits with 128 + N of the first signal. Choose it shorter than the
 *                           scheduler's grace period. Default: none
 */
public record PreemptionGuardOptions(List<Signal> signals, List<Consumer<PreemptionGuard.StopRequest>> listeners,
                                     boolean exitOnSecondSignal, Optional<Duration> checkpointDeadline) {

    /**
     * Copies the lists and checks the values.
     *
     * @throws IllegalArgumentException if no signal is given, or the deadline is not positive or longer than a
     *                                  day
     */
    public PreemptionGuardOptions {
        Objects.requireNonNull(signals, "signals");
        Objects.requireNonNull(listeners, "listeners");
        Objects.requireNonNull(checkpointDeadline, "checkpointDeadline");
        signals = List.copyOf(new LinkedHashSet<>(List.copyOf(signals)));
        listeners = List.copyOf(listeners);
        if (signals.isEmpty()) {
            throw new IllegalArgumentException("a preemption guard needs at least one signal to guard");
        }
        checkpointDeadline.ifPresent(limit -> {
            if (limit.isNegative() || limit.isZero() || limit.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("the checkpoint deadline must be positive and at most a day: "
                        + limit);
            }
        });
    }

    /** {@return TERM, no listener, exit on a second signal, no checkpoint deadline} */
    public static PreemptionGuardOptions defaults() {
        return new PreemptionGuardOptions(List.of(Signal.TERM), List.of(), true, Optional.empty());
    }

    /**
     * {@return these options guarding exactly those signals}
     *
     * @param first the first signal (usually TERM)
     * @param more  more signals
     */
    public PreemptionGuardOptions withSignals(Signal first, Signal... more) {
        List<Signal> all = new ArrayList<>();
        all.add(Objects.requireNonNull(first, "first"));
        for (Signal s : more) {
            all.add(Objects.requireNonNull(s, "signal"));
        }
        return new PreemptionGuardOptions(all, listeners, exitOnSecondSignal, checkpointDeadline);
    }

    /**
     * {@return these options guarding exactly those signals}
     *
     * @param guarded the signals to guard, in order
     */
    public PreemptionGuardOptions withSignals(List<Signal> guarded) {
        return new PreemptionGuardOptions(guarded, listeners, exitOnSecondSignal, checkpointDeadline);
    }

    /**
     * {@return these options with the listener added}
     *
     * @param listener called with each arrival, on the JVM's signal thread
     */
    public PreemptionGuardOptions withListener(Consumer<PreemptionGuard.StopRequest> listener) {
        List<Consumer<PreemptionGuard.StopRequest>> all = new ArrayList<>(listeners);
        all.add(Objects.requireNonNull(listener, "listener"));
        return new PreemptionGuardOptions(signals, all, exitOnSecondSignal, checkpointDeadline);
    }

    /**
     * {@return these options with that setting}
     *
     * @param exit whether a second arrival of the same signal exits the JVM at once
     */
    public PreemptionGuardOptions withExitOnSecondSignal(boolean exit) {
        return new PreemptionGuardOptions(signals, listeners, exit, checkpointDeadline);
    }

    /**
     * {@return these options with that deadline}
     *
     * @param limit how long after the first arrival the program may take to checkpoint
     * @throws IllegalArgumentException if the limit is not positive or longer than a day
     */
    public PreemptionGuardOptions withCheckpointDeadline(Duration limit) {
        return new PreemptionGuardOptions(signals, listeners, exitOnSecondSignal,
                Optional.of(Objects.requireNonNull(limit, "limit")));
    }
}
