package io.github.procscope.api.signals;

import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.ProcscopeException;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Lets a JVM training loop save its state when a scheduler preempts it. Kubernetes sends TERM and
 * KILLs after {@code terminationGracePeriodSeconds}; SLURM sends TERM, or with {@code --signal} USR1,
 * ahead of the time limit; submitit uses USR1 and HUP. The guard installs a handler for those signals
 * that only records which signal arrived and when, and sets a flag; the loop looks at the flag at each
 * step boundary, so that it never saves a half-done step:
 *
 * <pre>{@code
 * try (PreemptionGuard guard = PreemptionGuard.install(Signal.TERM, Signal.USR1)) {
 *     guard.refused().forEach(r -> System.err.println("warning: " + r.explanation()));
 *     for (int step = resumeFrom; step < totalSteps; step++) {
 *         trainOneStep(step);
 *         if (guard.stopRequested()) {        // at the step boundary only
 *             saveCheckpoint(step);           // to a temporary file, then rename it into place
 *             guard.exitAfterCheckpoint();    // System.exit(128 + N): shutdown hooks still run
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p><b>What it will not take, and says so.</b> A handler that cannot work is reported in
 * {@link #refused()} with its {@link Reason}, never dropped silently:
 * <ul>
 *   <li>{@link Reason#INHERITED_IGNORED}: HUP, INT or TERM were ignored when the JVM started (under
 *       {@code nohup}, HUP is). The JVM then installs nothing for them and says nothing; the guard
 *       reads {@code SigIgn} of {@code /proc/self/status} first.</li>
 *   <li>{@link Reason#REDUCED_SIGNAL_USAGE}: the JVM runs with {@code -Xrs}, which leaves HUP, INT,
 *       TERM and QUIT to native code and starts no signal dispatcher thread: a Java handler for any
 *       signal, USR1 included, would be installed but never run, swallowing the signal. Every signal
 *       is refused.</li>
 *   <li>{@link Reason#JVM_OWNED}: QUIT (thread dumps), USR2 (thread suspension), SEGV, BUS, ILL, FPE,
 *       TRAP (the JVM's own fault handling), ABRT (its fatal-error path), PIPE and XFSZ (turned into I/O
 *       errors): taking these would break the JVM. So a job's default forwarded signals
 *       ({@link io.github.procscope.api.job.JobSpec#DEFAULT_FORWARDED}: TERM, INT, HUP, USR1) hold none of
 *       them.</li>
 *   <li>{@link Reason#UNCATCHABLE}: KILL and STOP; {@link Reason#UNKNOWN_TO_JVM}: real-time signals,
 *       which {@code sun.misc.Signal} cannot name; {@link Reason#ALREADY_GUARDED}: another open guard
 *       holds the signal; {@link Reason#NOT_INSTALLED}: the JVM accepted the handler but the kernel's
 *       {@code SigCgt} does not show it.</li>
 * </ul>
 *
 * <p><b>Handlers and listeners.</b> Handlers are installed through {@code sun.misc.Signal}; the JVM runs
 * them on a Java thread of their own, never inside the native signal handler. Listeners run on that
 * thread after the arrival has been recorded; keep them short. If a listener throws, the others still
 * run and the first exception is rethrown there, reaching that thread's uncaught-exception handler.
 *
 * <p><b>When the loop never reaches its next step boundary.</b> A program blocked before its next step
 * (opening a FIFO, loading a library, a collective that waits for a dead peer) would otherwise ignore TERM
 * forever. So the guard escalates, as a person pressing Ctrl-C twice expects:
 * <ul>
 *   <li>By default, a <b>second arrival of the same signal</b> exits the JVM at once with 128 + N, through
 *       {@link System#exit(int)} (shutdown hooks run); turn this off with
 *       {@link Builder#exitOnSecondSignal(boolean)}.</li>
 *   <li>Optionally, a <b>deadline</b> after the first arrival
 *       ({@link Builder#exitUnlessCheckpointedWithin(Duration)}): unless {@link #exitAfterCheckpoint()} or
 *       {@link #close()} was called by then, the guard exits with 128 + N of the first signal. Choose it
 *       shorter than the scheduler's grace period (Kubernetes' {@code terminationGracePeriodSeconds}), so that
 *       the hooks run before KILL. There is no deadline by default.</li>
 * </ul>
 *
 * <p><b>Order of arrivals.</b> {@link #requests()} and {@link #firstRequest()} follow the order in which the
 * JVM's signal dispatcher took the signals, not the order in which the handler threads (one per signal,
 * racing each other) happened to run. That is the order of arrival, except for signals that arrive within
 * microseconds of each other: the JVM's native handler runs on whichever thread the kernel picked, and its
 * dispatcher takes signals pending together in signal-number order, so such near-simultaneous arrivals may
 * be listed either way.
 *
 * <p>Thread-safe. {@link #close()} puts the previous handlers back (for TERM, the JVM's own, which
 * runs the shutdown hooks and exits with 143).
 */
public final class PreemptionGuard implements AutoCloseable {

    /** Why a signal was not taken. */
    public enum Reason {
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
        /** {@code sun.misc.Signal} does not know the signal (the real-time signals). */
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
    public record StopRequest(Signal signal, Instant receivedAt) {
        /** Checks that no component is null. */
        public StopRequest {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(receivedAt, "receivedAt");
        }

        /** @return the exit status that reports this signal by the shell convention: 128 + its number */
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
    public record Refusal(Signal signal, Reason reason, String explanation) {
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

    private static final SignalSet JVM_OWNED = SignalSet.of(Signal.QUIT, Signal.ILL, Signal.TRAP, Signal.ABRT,
            Signal.BUS, Signal.FPE, Signal.SEGV, Signal.USR2, Signal.PIPE, Signal.XFSZ);
    private static final SignalSet SHUTDOWN_SIGNALS = SignalSet.of(Signal.HUP, Signal.INT, Signal.TERM);

    /** Which open guard holds each signal number. */
    private static final Map<Integer, PreemptionGuard> OWNERS = new HashMap<>();

    private final Map<Signal, JvmSignalBridge.Installation> installations = new LinkedHashMap<>();
    private final List<Refusal> refusals = new ArrayList<>();
    private final List<Consumer<StopRequest>> listeners = new CopyOnWriteArrayList<>();
    /** The arrivals, each with its dispatch sequence, kept in that order. */
    private final List<Arrival> requests = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final boolean exitOnSecond;
    private final Duration deadline;
    private volatile boolean stopRequested;
    private volatile boolean closed;
    private volatile boolean done;

    /** A request with the order in which the JVM dispatched it. */
    private record Arrival(long sequence, StopRequest request) {
    }

    private PreemptionGuard(List<Consumer<StopRequest>> initialListeners, boolean exitOnSecond, Duration deadline) {
        listeners.addAll(initialListeners);
        this.exitOnSecond = exitOnSecond;
        this.deadline = deadline;
    }

    /**
     * Installs the guard for TERM.
     *
     * @return the guard; see {@link #refused()} for whether TERM could be taken
     */
    public static PreemptionGuard install() {
        return builder().install();
    }

    /**
     * Installs the guard for the given signals.
     *
     * @param first the first signal (usually TERM)
     * @param more  more: USR1 (SLURM's {@code --signal}), HUP (submitit, a closed terminal), INT (Ctrl-C)
     * @return the guard; see {@link #installed()} and {@link #refused()}
     */
    public static PreemptionGuard install(Signal first, Signal... more) {
        List<Signal> all = new ArrayList<>();
        all.add(first);
        all.addAll(List.of(more));
        return builder().signals(all).install();
    }

    /** @return a builder: signals, listeners, the procfs to read {@code /proc/self/status} from */
    public static Builder builder() {
        return new Builder();
    }

    private void installAll(List<Signal> signals, ProcessTable table) {
        long self = ProcessHandle.current().pid();
        SignalSet ignoredAtStart = SignalSet.empty();
        try {
            ignoredAtStart = table.status(self).signals().ignored();
        } catch (ProcscopeException e) {
            // Unreadable: an inherited SIG_IGN still shows in what the JVM answers (see installOne).
        }
        Optional<Boolean> reduced = reducedSignalUsage();
        synchronized (OWNERS) {
            for (Signal s : signals) {
                Refusal r = precheck(s, ignoredAtStart, reduced);
                if (r == null) {
                    r = installOne(s, reduced);
                }
                if (r != null) {
                    refusals.add(r);
                }
            }
        }
        if (!installations.isEmpty()) {
            verifyCaught(table, self);
        }
    }

    private Refusal precheck(Signal s, SignalSet ignoredAtStart, Optional<Boolean> reduced) {
        if (!s.isCatchable()) {
            return new Refusal(s, Reason.UNCATCHABLE, s + " cannot be caught, blocked or ignored by any process;"
                    + " a checkpoint must happen before it arrives (on TERM, during the grace period)");
        }
        if (JVM_OWNED.contains(s)) {
            return new Refusal(s, Reason.JVM_OWNED, s + " is used by the JVM itself (" + jvmUse(s)
                    + "); a handler would break it. Ask the scheduler for TERM or USR1 instead");
        }
        if (s.isRealtime()) {
            return new Refusal(s, Reason.UNKNOWN_TO_JVM, s + " is a real-time signal, which sun.misc.Signal cannot"
                    + " name; use TERM, USR1, HUP or INT");
        }
        if (reduced.orElse(false)) {
            return new Refusal(s, Reason.REDUCED_SIGNAL_USAGE, s + " cannot be handled: this JVM runs with -Xrs"
                    + " (ReduceSignalUsage), which starts no signal dispatcher thread, so no Java signal handler"
                    + " would ever run" + (SHUTDOWN_SIGNALS.contains(s) ? ", and leaves HUP, INT, TERM and QUIT to"
                    + " native code" : " (installing one would only swallow the signal)") + ". Remove -Xrs (also"
                    + " from JAVA_TOOL_OPTIONS) to checkpoint on " + s);
        }
        if (SHUTDOWN_SIGNALS.contains(s) && ignoredAtStart.contains(s)) {
            return new Refusal(s, Reason.INHERITED_IGNORED, s + " was already ignored when this JVM started"
                    + (s == Signal.HUP ? " (it runs under nohup, which ignores HUP)" : " (its parent ignored it)")
                    + ", and the JVM then installs no handler and says nothing; " + s
                    + " will not reach this program. Start it without nohup (use tmux or a service) to handle it");
        }
        PreemptionGuard owner = OWNERS.get(s.number());
        if (owner != null) {
            return new Refusal(s, Reason.ALREADY_GUARDED, s + " is held by another open PreemptionGuard; close"
                    + " that one first (or use one guard for the whole program)");
        }
        return null;
    }

    private Refusal installOne(Signal s, Optional<Boolean> reduced) {
        JvmSignalBridge.Installation inst;
        try {
            inst = JvmSignalBridge.install(s.name(), this::arrived);
        } catch (JvmSignalBridge.UnknownSignalException e) {
            return new Refusal(s, Reason.UNKNOWN_TO_JVM, s + " is not known to this JVM (" + e.getMessage() + ")");
        } catch (JvmSignalBridge.RefusedException e) {
            if (SHUTDOWN_SIGNALS.contains(s) && reduced.isEmpty()) {
                return new Refusal(s, Reason.REDUCED_SIGNAL_USAGE, s + " cannot be handled: the JVM refused it ("
                        + e.getMessage() + "), as it does under -Xrs; remove -Xrs to checkpoint on " + s);
            }
            return new Refusal(s, Reason.JVM_OWNED, s + " is used by the JVM itself: " + e.getMessage());
        }
        if (inst.previousWasIgnore && SHUTDOWN_SIGNALS.contains(s)) {
            // The JVM answered "it was ignored" and installed nothing (HotSpot keeps inherited SIG_IGN).
            return new Refusal(s, Reason.INHERITED_IGNORED, s + " was already ignored when this JVM started, and"
                    + " the JVM installed no handler; " + s + " will not reach this program");
        }
        installations.put(s, inst);
        OWNERS.put(s.number(), this);
        return null;
    }

    private void verifyCaught(ProcessTable table, long self) {
        SignalSet caught;
        try {
            caught = table.status(self).signals().caught();
        } catch (ProcscopeException e) {
            return; // cannot check; the JVM said yes
        }
        synchronized (OWNERS) {
            for (Signal s : new ArrayList<>(installations.keySet())) {
                if (!caught.contains(s)) {
                    JvmSignalBridge.restore(installations.remove(s));
                    OWNERS.remove(s.number());
                    refusals.add(new Refusal(s, Reason.NOT_INSTALLED, "the JVM accepted a handler for " + s
                            + ", but SigCgt of /proc/self/status does not show one; " + s
                            + " would not reach this program"));
                }
            }
        }
    }

    private static String jvmUse(Signal s) {
        switch (s.number()) {
            case 3: return "SIGQUIT prints a thread dump";
            case 12: return "HotSpot suspends and resumes threads with SIGUSR2";
            case 13:
            case 25: return "the JVM turns it into an I/O error";
            case 6: return "the JVM's fatal error handler aborts with it";
            default: return "the JVM handles its own faults with it: null checks, safepoints, stack overflow";
        }
    }

    /** @return whether the JVM runs with {@code -Xrs}, if that can be told */
    private static Optional<Boolean> reducedSignalUsage() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean hotspot =
                    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            if (hotspot != null) {
                return Optional.of(Boolean.parseBoolean(hotspot.getVMOption("ReduceSignalUsage").getValue()));
            }
        } catch (RuntimeException | LinkageError e) {
            // Not HotSpot, or jdk.management is absent: look at the arguments instead.
        }
        try {
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.equals("-Xrs") || arg.equals("-XX:+ReduceSignalUsage")) {
                    return Optional.of(true);
                }
            }
            return Optional.empty();
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * The handler: records, sets the flag, escalates if asked to, then tells the listeners. The JVM's
     * dispatcher starts one handler thread per signal, in the order it takes them, and thread ids grow in
     * the order threads are created: the id orders the arrivals, however the threads race afterwards.
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19
    private void arrived(int number) {
        if (closed) {
            return;
        }
        StopRequest r = new StopRequest(Signal.of(number), Instant.now());
        long sequence = Thread.currentThread().getId();
        boolean repeated = false;
        boolean first;
        synchronized (requests) {
            int at = requests.size();
            while (at > 0 && requests.get(at - 1).sequence() > sequence) {
                at--;
            }
            for (Arrival a : requests) {
                repeated |= a.request().signal() == r.signal();
            }
            first = requests.isEmpty();
            requests.add(at, new Arrival(sequence, r));
        }
        stopRequested = true;
        stopped.countDown();
        if (repeated && exitOnSecond && !closed) {
            exit(r.exitStatus());
        }
        if (first && deadline != null) {
            startDeadline();
        }
        RuntimeException failure = null;
        for (Consumer<StopRequest> l : listeners) {
            try {
                l.accept(r);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** @return whether a guarded signal has arrived: look at this at every step boundary */
    public boolean stopRequested() {
        return stopRequested;
    }

    /** @return the first signal that arrived, if any (in the order the JVM dispatched them) */
    public Optional<StopRequest> firstRequest() {
        synchronized (requests) {
            return requests.isEmpty() ? Optional.empty() : Optional.of(requests.get(0).request());
        }
    }

    /** @return every arrival so far, in the order the JVM dispatched them (a scheduler may repeat its signal) */
    public List<StopRequest> requests() {
        synchronized (requests) {
            List<StopRequest> out = new ArrayList<>(requests.size());
            for (Arrival a : requests) {
                out.add(a.request());
            }
            return Collections.unmodifiableList(out);
        }
    }

    /** Exits when the deadline after the first arrival passes, unless the program is done by then. */
    private void startDeadline() {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(deadline.toMillis(), (int) (deadline.toNanos() % 1_000_000));
            } catch (InterruptedException e) {
                return;
            }
            if (!done && !closed) {
                exit(exitStatus());
            }
        }, "procscope-preemption-deadline");
        t.setDaemon(true);
        t.start();
    }

    /** The escalation: {@link System#exit(int)}, so that shutdown hooks run. */
    private void exit(int status) {
        done = true;
        System.exit(status);
    }

    /**
     * Blocks until a guarded signal arrives (for a supervising thread, not for the training loop itself).
     *
     * @param timeout the longest wait
     * @return the first arrival, or empty when none came in time
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public Optional<StopRequest> awaitStop(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (stopped.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS)) {
            return firstRequest();
        }
        return Optional.empty();
    }

    /**
     * @param listener called with each arrival, on the JVM's signal thread, after it has been recorded
     */
    public void addListener(Consumer<StopRequest> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener a listener added before; removed if present */
    public void removeListener(Consumer<StopRequest> listener) {
        listeners.remove(listener);
    }

    /** @return the signals this guard handles (empty after {@link #close()}) */
    public SignalSet installed() {
        synchronized (OWNERS) {
            return SignalSet.of(installations.keySet());
        }
    }

    /** @return the signals asked for but not taken, each with its reason, in the order asked */
    public List<Refusal> refused() {
        synchronized (OWNERS) {
            return List.copyOf(refusals);
        }
    }

    /**
     * @return the exit status that reports the first arrival: 128 + its number (143 for TERM), the value
     *         a JVM without the guard would have exited with
     * @throws IllegalStateException if no guarded signal has arrived
     */
    public int exitStatus() {
        return firstRequest().orElseThrow(() -> new IllegalStateException("no guarded signal has arrived; "
                + "exit with a status of your own (0 when the run is complete)")).exitStatus();
    }

    /**
     * Exits the JVM with {@link #exitStatus()} through {@link System#exit(int)}, so that shutdown hooks
     * run, as they would have without the guard. Call it after the checkpoint is safely written. Does
     * not return.
     *
     * @throws IllegalStateException if no guarded signal has arrived
     */
    public void exitAfterCheckpoint() {
        int status = exitStatus();
        done = true;
        System.exit(status);
    }

    /**
     * Puts back the handlers that were there before; later signals no longer reach this guard, and a
     * deadline ({@link Builder#exitUnlessCheckpointedWithin(Duration)}) no longer applies. Idempotent.
     */
    @Override
    public void close() {
        synchronized (OWNERS) {
            if (closed) {
                return;
            }
            closed = true;
            for (Map.Entry<Signal, JvmSignalBridge.Installation> e : installations.entrySet()) {
                JvmSignalBridge.restore(e.getValue());
                OWNERS.remove(e.getKey().number(), this);
            }
            installations.clear();
        }
    }

    @Override
    public String toString() {
        return "PreemptionGuard[installed " + installed() + ", refused " + refusedSignals()
                + (stopRequested ? ", stop requested by " + firstRequest().map(r -> r.signal().toString()).orElse("?")
                : "") + "]";
    }

    private List<Signal> refusedSignals() {
        List<Signal> out = new ArrayList<>();
        for (Refusal r : refused()) {
            out.add(r.signal());
        }
        return Collections.unmodifiableList(out);
    }

    /** Configures and installs a {@link PreemptionGuard}. */
    public static final class Builder {
        private final Set<Signal> signals = new LinkedHashSet<>();
        private final List<Consumer<StopRequest>> listeners = new ArrayList<>();
        private ProcessTable table;
        private boolean exitOnSecond = true;
        private Duration deadline;

        private Builder() {
        }

        /**
         * @param guarded the signals to guard, in order (default: TERM)
         * @return this builder
         */
        public Builder signals(Collection<Signal> guarded) {
            for (Signal s : guarded) {
                signals.add(Objects.requireNonNull(s, "signal"));
            }
            return this;
        }

        /**
         * @param listener called with each arrival, on the JVM's signal thread
         * @return this builder
         */
        public Builder listener(Consumer<StopRequest> listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @param procfs the process table to read this JVM's {@code /proc/self/status} from (default
         *               {@link ProcessTable#system()})
         * @return this builder
         */
        public Builder procfs(ProcessTable procfs) {
            this.table = Objects.requireNonNull(procfs, "procfs");
            return this;
        }

        /**
         * @param exit whether a second arrival of a signal already received exits the JVM at once with
         *             128 + N through {@link System#exit(int)} (default: true, as Ctrl-C pressed twice). Off,
         *             repeats are only recorded
         * @return this builder
         */
        public Builder exitOnSecondSignal(boolean exit) {
            this.exitOnSecond = exit;
            return this;
        }

        /**
         * @param limit how long after the first arrival the program may take to call
         *              {@link PreemptionGuard#exitAfterCheckpoint()} (or close the guard); when it passes, the
         *              guard exits with 128 + N of the first signal through {@link System#exit(int)}. Default:
         *              no limit
         * @return this builder
         * @throws IllegalArgumentException if the limit is not positive or longer than a day
         */
        public Builder exitUnlessCheckpointedWithin(Duration limit) {
            Objects.requireNonNull(limit, "limit");
            if (limit.isNegative() || limit.isZero() || limit.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("the checkpoint deadline must be positive and at most a day: "
                        + limit);
            }
            this.deadline = limit;
            return this;
        }

        /** @return the guard, installed; see {@link PreemptionGuard#refused()} for what it could not take */
        public PreemptionGuard install() {
            List<Signal> list = new ArrayList<>(signals.isEmpty() ? Set.of(Signal.TERM) : signals);
            PreemptionGuard g = new PreemptionGuard(listeners, exitOnSecond, deadline);
            g.installAll(list, table != null ? table : ProcessTable.system());
            return g;
        }
    }
}
