package io.github.procscope.linux.signals;

import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;

import java.util.Objects;

/**
 * Installs this JVM's SIGTERM (and other) handlers for a {@link PreemptionGuard}: the front door's
 * {@code preemptionGuard(options)} and the job supervisor's signal forwarding both come here.
 */
public final class GuardInstaller {
    private final ProcessTable table;

    /** @param table the live process table, read for this JVM's {@code /proc/PID/status} */
    public GuardInstaller(ProcessTable table) {
        this.table = Objects.requireNonNull(table, "table");
    }

    /**
     * @param options the signals to guard and how to escalate
     * @return the guard, installed; {@link PreemptionGuard#refused()} says what it could not take
     */
    public PreemptionGuard install(PreemptionGuardOptions options) {
        return JvmPreemptionGuard.install(Objects.requireNonNull(options, "options"), table);
    }
}
