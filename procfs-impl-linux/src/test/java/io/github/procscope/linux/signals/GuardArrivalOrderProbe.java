package io.github.procscope.linux.signals;

import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.sys.NativeWalls;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A child JVM that, round after round, makes the handler of the first signal run after the handler of the
 * second: it installs a guard for USR1 and TERM, holds the monitor the guard's handlers record under, raises
 * USR1 and waits until USR1's handler thread is blocked on that monitor, raises TERM and waits until TERM's
 * handler thread is blocked too, then lets go. HotSpot hands a contended monitor to the most recent waiter first,
 * so TERM's handler mostly records (and tells its listener) before USR1's, although USR1 arrived first.
 * Counts the rounds in which {@code firstRequest()} was not USR1 ({@code wrong}) and those in which the handlers
 * did run in the inverted order ({@code inverted}: TERM's listener was told first). Argument: the number of
 * rounds. Prints {@code rounds N wrong W inverted I}.
 */
public final class GuardArrivalOrderProbe {
    private GuardArrivalOrderProbe() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        Field requests = PreemptionGuard.class.getDeclaredField("requests");
        requests.setAccessible(true);
        int wrong = 0;
        int inverted = 0;
        for (int i = 0; i < rounds; i++) {
            List<Signal> told = Collections.synchronizedList(new ArrayList<>());
            try (PreemptionGuard guard = PreemptionGuard.builder().signals(List.of(Signal.USR1, Signal.TERM))
                    .exitOnSecondSignal(false).listener(r -> told.add(r.signal())).install()) {
                if (!guard.refused().isEmpty()) {
                    throw new IllegalStateException("refused " + guard.refused());
                }
                Object lock = requests.get(guard);
                synchronized (lock) {
                    raise(Signal.USR1);
                    awaitBlocked("USR1 handler");
                    raise(Signal.TERM);
                    awaitBlocked("TERM handler");
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (guard.requests().size() < 2 || told.size() < 2) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("arrivals " + guard.requests() + ", told " + told);
                    }
                    Thread.sleep(1);
                }
                if (told.get(0) == Signal.TERM) {
                    inverted++;
                }
                if (guard.firstRequest().orElseThrow().signal() != Signal.USR1) {
                    wrong++;
                    System.out.println("round " + i + ": " + guard.requests());
                }
            }
        }
        System.out.println("rounds " + rounds + " wrong " + wrong + " inverted " + inverted);
        System.out.flush();
    }

    /** Sends a signal to this JVM through the native wall. */
    private static void raise(Signal signal) {
        int rc = NativeWalls.get("kill").kill(ProcessHandle.current().pid(), signal.number());
        if (rc != 0) {
            throw new IllegalStateException("kill(" + signal + ") of this JVM: errno " + -rc);
        }
    }

    /** Waits until the handler thread whose name ends with {@code name} is blocked on a monitor. */
    private static void awaitBlocked(String name) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().endsWith(name) && t.getState() == Thread.State.BLOCKED) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no blocked thread '" + name + "' after 30 s");
            }
            Thread.sleep(1);
        }
    }
}
