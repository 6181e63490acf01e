package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.proc.LinuxProcfs;

import java.nio.file.Path;
import java.util.List;

/**
 * A child JVM that, round after round, installs a guard for USR1 and TERM, sends itself USR1, and TERM as
 * soon as the JVM has taken USR1 (its handler thread exists), so that the two handler threads may race;
 * waits for both to be recorded, and counts the rounds in which {@code firstRequest()} was not USR1. Argument: the number of rounds. Prints {@code rounds N wrong W}.
 */
public final class GuardOrderProbe {
    private GuardOrderProbe() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        LinuxSignals signals = LinuxSignals.using(LinuxProcfs.at(Path.of("/proc"))).allowingSelf();
        ProcessKey self = signals.key(ProcessHandle.current().pid());
        int wrong = 0;
        for (int i = 0; i < rounds; i++) {
            try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(List.of(Signal.USR1, Signal.TERM))
                    .withExitOnSecondSignal(false))) {
                if (!guard.refused().isEmpty()) {
                    throw new IllegalStateException("refused " + guard.refused());
                }
                signals.send(self, Signal.USR1);
                // TERM goes once the JVM has taken USR1 (its handler thread exists, or has already run):
                // both handler threads may then race, but USR1 was dispatched first.
                while (guard.requests().isEmpty() && !handlerThreadExists("SIGUSR1 handler")) {
                    Thread.onSpinWait();
                }
                signals.send(self, Signal.TERM);
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (guard.requests().size() < 2) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("arrivals " + guard.requests());
                    }
                    Thread.sleep(1);
                }
                if (guard.firstRequest().orElseThrow().signal() != Signal.USR1) {
                    wrong++;
                    System.out.println("round " + i + ": " + guard.requests());
                }
            }
        }
        System.out.println("rounds " + rounds + " wrong " + wrong);
        System.out.flush();
    }

    private static boolean handlerThreadExists(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
