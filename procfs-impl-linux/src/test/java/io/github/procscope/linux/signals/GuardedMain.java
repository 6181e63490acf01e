package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A child JVM for the tests: installs a {@link PreemptionGuard} for the signals named in its first
 * argument (comma-separated), prints what it took and refused, then "ready", waits for a stop request,
 * prints it and leaves through {@link PreemptionGuard#exitAfterCheckpoint()}; a shutdown hook prints
 * "hook ran". Output goes to stdout, one fact per line, flushed.
 */
public final class GuardedMain {
    private GuardedMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        List<Signal> signals = new ArrayList<>();
        for (String name : args[0].split(",")) {
            signals.add(Signal.parse(name));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("hook ran");
            System.out.flush();
        }));
        PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(signals));
        System.out.println("pid " + ProcessHandle.current().pid());
        System.out.println("installed " + guard.installed().names());
        for (PreemptionGuard.Refusal r : guard.refused()) {
            System.out.println("refused " + r.signal().name() + " " + r.reason() + ": " + r.explanation());
        }
        System.out.println("ready");
        System.out.flush();
        Optional<PreemptionGuard.StopRequest> stop = guard.awaitStop(Duration.ofMinutes(5));
        if (stop.isEmpty()) {
            System.out.println("no stop request");
            System.exit(3);
        }
        System.out.println("stop " + stop.get().signal().name());
        System.out.flush();
        guard.exitAfterCheckpoint();
    }
}
