package io.github.procscope.api.signals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Lets a JVM training loop save its state when a scheduler preempts it (Kubernetes and SLURM send TERM,
 * SLURM's {@code --signal} USR1). The guard's handler only records the arrival and sets a flag; the loop looks
 * at the flag at each step boundary, so it never saves a half-done step. Obtain one from
 * {@link io.github.procscope.api.Procscope#preemptionGuard(PreemptionGuardOptions)}:
 *
 * <pre>{@code
 * PreemptionGuardOptions options = PreemptionGuardOptions.defaults().withSignals(Signal.TERM, Signal.USR1);
 * try (PreemptionGuard guard = Procscope.system().preemptionGuard(options)) {
 *     guard.refused().forEach(r -> System.err.println("warning: " + r.explanation()));
 *     for (int step = 0; step < 1_000; step++) {
 *         // one training step here
 *         if (guard.stopRequested()) {        // at the step boundary only
 *             // save a checkpoint here, then:
 *             guard.exitAfterCheckpoint();    // System.exit(128 + N): shutdown hooks still run
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>A signal that cannot be handled is never dropped silently: it is listed in {@link #refused()} with its
 * {@link Reason} and a sentence saying what to do (HUP under {@code nohup}, a JVM run with {@code -Xrs}, the
 * signals the JVM uses itself, KILL and STOP, real-time signals, a signal another open guard holds).
 * The JVM's own signals (QUIT, USR2, the fault signals) are refused, so a job's default forwarded signals
 * ({@link io.github.procscope.api.job.JobSpec#DEFAULT_FORWARDED}: TERM, INT, HUP, USR1) hold none of them.
 *
 * <p>Listeners run on a Java thread the JVM starts for the signal, after the arrival has been recorded; keep
 * them short. A loop that never reaches its next step boundary is not left stuck: by default a second arrival
 * of the same signal exits with 128 + N at once, and {@link PreemptionGuardOptions#withCheckpointDeadline}
 * sets a time after the first arrival by which the program must have called {@link #exitAfterCheckpoint()}.
 * {@link #requests()} are in the order the JVM dispatched them (signals arriving within microseconds of each
 * other may be listed either way).
 *
 * <p>Thread-safe. {@link #close()} puts the previous handlers back (for TERM, the JVM's own, which runs the
 * shutdown hooks and exits with 143).
 */
public interface PreemptionGuard extends AutoCloseable {

    /** Why a signal was not taken. */
    enum Reason {
        /** It was ignored when the JVM started (HUP under {@code nohup}); the JVM silently installs nothing. */
        INHERITED_IGNORED,
        /**
         * The JVM runs with {@code -Xrs} ({@code -XX:+ReduceSignalUsage}): it leaves HUP, INT and TERM to
         * native code and starts no signal dispatcher thread, so no Java handler would run for any signal.
         */
        REDUCED_SIGNAL_USAGE,
        /** The JVM uses the signal itself (QUIT, USR2, SEGV, BUS, ILL, FPE, TRAP, ABRT, PIPE, XFSZ). */
        JVM_OWNED,
        /** KILL and STOP cannot be caught by any process. */
        UNCATCHABLE,
        /** The JVM's signal API does not know the signal (the real-time signals). */
        UNKNOWN_TO_JVM,
        /** Another open {@link PreemptionGuard} holds the signal. */
        ALREADY_GUARDED,
        /** The JVM accepted the handler, yet {@code SigCgt} of {@code /proc/self/status} does not show it. */
        NOT_INSTALLED
    }

    /**
     * A signal that arrived.
     *
     * @param signal     the signal
     * @param receivedAt when its handler ran (wall clock); with two signals close together, the later
     *                   arrival's handler may run first, so order by the list, not by this instant
     */
    record StopRequest(Signal signal, Instant receivedAt) {
        /** Checks that no component is null. */
        public StopRequest {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(receivedAt, "receivedAt");
        }

        /** {@return the exit status that reports this signal by the shell convention: 128 + its number} */
        public int exitStatus() {
            return 128 + signal.number();
        }
    }

    /**
     * A signal the guard did not take.
     *
     * @param signal      the signal
     * @param reason      why
     * @param explanation a sentence naming the signal, the reason and what to do
     */
    record Refusal(Signal signal, Reason reason, String explanation) {
        /** Checks that no component is null. */
        public Refusal {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(explanation, "explanation");
        }

        @Override
        public String toString() {
            return explanation;
        }
    }

    /** {@return whether a guarded signal has arrived: look at this at every step boundary} */
    boolean stopRequested();

    /** {@return the first signal that arrived, if any (in the order the JVM dispatched them)} */
    Optional<StopRequest> firstRequest();

    /** {@return every arrival so far, in the order the JVM dispatched them (a scheduler may repeat its signal)} */
    List<StopRequest> requests();

    /**
     * Blocks until a guarded signal arrives (for a supervising thread, not for the training loop itself).
     *
     * @param timeout the longest wait
     * @return the first arrival, or empty when none came in time
     * @throws InterruptedException if the waiting thread is interrupted
     */
    Optional<StopRequest> awaitStop(Duration timeout) throws InterruptedException;

    /**
     * Adds a listener, called with each arrival on the JVM's signal thread after it has been recorded.
     *
     * @param listener the listener
     */
    void addListener(Consumer<StopRequest> listener);

    /**
     * Removes a listener added before, if present.
     *
     * @param listener the listener
     */
    void removeListener(Consumer<StopRequest> listener);

    /** {@return the signals this guard handles (empty after {@link #close()})} */
    SignalSet installed();

    /** {@return the signals asked for but not taken, each with its reason, in the order asked} */
    List<Refusal> refused();

    /**
     * {@return the exit status that reports the first arrival: 128 + its number (143 for TERM), the value a JVM
     * without the guard would have exited with}
     *
     * @throws IllegalStateException if no guarded signal has arrived
     */
    int exitStatus();

    /**
     * Exits the JVM with {@link #exitStatus()} through {@link System#exit(int)}, so that shutdown hooks
     * run, as they would have without the guard. Call it after the checkpoint is safely written. Does
     * not return.
     *
     * @throws IllegalStateException if no guarded signal has arrived
     */
    void exitAfterCheckpoint();

    /**
     * Puts back the handlers that were there before; later signals no longer reach this guard, and a
     * checkpoint deadline no longer applies. Idempotent.
     */
    @Override
    void close();
}
