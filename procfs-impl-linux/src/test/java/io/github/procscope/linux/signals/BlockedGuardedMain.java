package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;

import java.io.FileInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A guarded program that blocks before its next step boundary: it opens a FIFO that no one writes, which
 * blocks in {@code open(2)} for good. Arguments: the FIFO, then {@code second} (the default escalation),
 * {@code deadline=MILLIS} ({@code PreemptionGuardOptions.withCheckpointDeadline}), or {@code none}
 * (escalation off). A shutdown hook prints "hook ran"; "ready" is printed just before the FIFO is opened.
 */
public final class BlockedGuardedMain {
    private BlockedGuardedMain() {
    }

    public static void main(String[] args) throws IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("hook ran");
            System.out.flush();
        }));
        PreemptionGuardOptions options = PreemptionGuardOptions.defaults().withSignals(List.of(Signal.TERM, Signal.USR1));
        if (args[1].startsWith("deadline=")) {
            options = options.withCheckpointDeadline(Duration.ofMillis(Long.parseLong(args[1].substring(9))));
        } else if (args[1].equals("none")) {
            options = options.withExitOnSecondSignal(false);
        }
        PreemptionGuard guard = Procscope.system().preemptionGuard(options);
        guard.addListener(r -> {
            System.out.println("request " + r.signal().name());
            System.out.flush();
        });
        System.out.println("ready");
        System.out.flush();
        try (FileInputStream in = new FileInputStream(args[0])) { // blocks: no writer, ever
            System.out.println("opened " + in.read());
        }
        if (guard.stopRequested()) {
            guard.exitAfterCheckpoint();
        }
    }
}
