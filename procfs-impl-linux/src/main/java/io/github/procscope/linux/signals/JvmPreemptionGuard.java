package io.github.procscope.linux.signals;

import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalSet;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.sys.JvmSignalBridge;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@link PreemptionGuard} of this JVM: its handlers installed through {@link JvmSignalBridge}
 * ({@code sun.misc.Signal}), which runs them on a Java thread of their own, never inside the native signal
 * handler. Before installing, it reads {@code SigIgn} of this process's {@code status} (an inherited
 * {@code SIG_IGN} for HUP, INT or TERM makes the JVM install nothing and say nothing) and asks HotSpot
 * whether the JVM runs with {@code -Xrs}; after, it checks {@code SigCgt}. Made by {@link GuardInstaller}.
 */
final class JvmPreemptionGuard implements PreemptionGuard {

    private static final SignalSet JVM_OWNED = SignalSet.of(Signal.QUIT, Signal.ILL, Signal.TRAP, Signal.ABRT,
            Signal.BUS, Signal.FPE, Signal.SEGV, Signal.USR2, Signal.PIPE, Signal.XFSZ);
    private static final SignalSet SHUTDOWN_SIGNALS = SignalSet.of(Signal.HUP, Signal.INT, Signal.TERM);

    /** Which open guard holds each signal number. */
    private static final Map<Integer, JvmPreemptionGuard> OWNERS = new HashMap<>();

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

    private JvmPreemptionGuard(PreemptionGuardOptions options) {
        listeners.addAll(options.listeners());
        this.exitOnSecond = options.exitOnSecondSignal();
        this.deadline = options.checkpointDeadline().orElse(null);
    }

    /**
     * Installs a guard.
     *
     * @param options the signals and the escalation
     * @param table   the process table to read this JVM's {@code status} from
     * @return the guard, installed; {@link #refused()} says what it could not take
     */
    static JvmPreemptionGuard install(PreemptionGuardOptions options, ProcessTable table) {
        JvmPreemptionGuard g = new JvmPreemptionGuard(options);
        g.installAll(options.signals(), table);
        return g;
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
        JvmPreemptionGuard owner = OWNERS.get(s.number());
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

    @Override
    public boolean stopRequested() {
        return stopRequested;
    }

    @Override
    public Optional<StopRequest> firstRequest() {
        synchronized (requests) {
            return requests.isEmpty() ? Optional.empty() : Optional.of(requests.get(0).request());
        }
    }

    @Override
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

    @Override
    public Optional<StopRequest> awaitStop(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (stopped.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS)) {
            return firstRequest();
        }
        return Optional.empty();
    }

    @Override
    public void addListener(Consumer<StopRequest> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(Consumer<StopRequest> listener) {
        listeners.remove(listener);
    }

    @Override
    public SignalSet installed() {
        synchronized (OWNERS) {
            return SignalSet.of(installations.keySet());
        }
    }

    @Override
    public List<Refusal> refused() {
        synchronized (OWNERS) {
            return List.copyOf(refusals);
        }
    }

    @Override
    public int exitStatus() {
        return firstRequest().orElseThrow(() -> new IllegalStateException("no guarded signal has arrived; "
                + "exit with a status of your own (0 when the run is complete)")).exitStatus();
    }

    @Override
    public void exitAfterCheckpoint() {
        int status = exitStatus();
        done = true;
        System.exit(status);
    }

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
}
