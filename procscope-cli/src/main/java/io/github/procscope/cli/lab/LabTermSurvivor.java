package io.github.procscope.cli.lab;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;

/**
 * Lab helper for step 7: a JVM that handles TERM (through {@link PreemptionGuard}) and carries on instead
 * of exiting. Prints {@code ready}, then {@code TERM caught, carrying on} each time TERM arrives; only
 * KILL ends it.
 */
public final class LabTermSurvivor {
    private LabTermSurvivor() {
    }

    /** @param args unused */
    public static void main(String[] args) throws InterruptedException {
        // It means to survive every TERM: a second one must not exit, as it would by default.
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults()
                .withExitOnSecondSignal(false))) {
            guard.addListener(r -> {
                System.out.println("TERM caught, carrying on");
                System.out.flush();
            });
            if (!guard.refused().isEmpty()) {
                System.out.println("refused " + guard.refused());
            }
            System.out.println("ready");
            System.out.flush();
            while (true) {
                Thread.sleep(1000);
            }
        }
    }
}
