package io.github.procscope.linux.jobs;

import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.signals.GuardInstaller;
import io.github.procscope.linux.sys.ProcessCalls;

import java.util.ArrayList;
import java.util.List;

/**
 * The handlers that pass the signals this JVM receives on to a job. Installed before the job is spawned: a signal
 * this JVM ignored as inherited ({@code trap '' TERM}) and now takes ({@link JobSpec#ignoredSignalsForwarded()})
 * must be caught when the job starts, since the job inherits an ignored signal as ignored and a caught one at its
 * default action. A signal that arrives before the job is attached is passed on as soon as it is.
 */
final class Forwarding {
    private final PreemptionGuard guard;
    private final List<Signal> unignored;
    private final ProcessCalls nat;
    /** Guarded by {@code this}. */
    private LinuxJob job;
    private final List<Signal> early = new ArrayList<>();

    private Forwarding(PreemptionGuard guard, List<Signal> unignored, ProcessCalls nat) {
        this.guard = guard;
        this.unignored = unignored;
        this.nat = nat;
    }

    /** Installs the handlers of the spec's forwarded signals (none if it forwards none). */
    static Forwarding install(JobSpec spec, ProcessCalls nat, ProcessTable table) {
        List<Signal> unignored = new ArrayList<>();
        if (spec.forwardedSignals().isEmpty()) {
            return new Forwarding(null, unignored, nat);
        }
        if (spec.ignoredSignalsForwarded()) {
            for (Signal s : spec.forwardedSignals()) {
                // From here until the guard's handler is installed, the signal has its default action.
                if (s.isCatchable() && nat.stopIgnoring(s)) {
                    unignored.add(s);
                }
            }
        }
        Forwarding[] self = new Forwarding[1];
        PreemptionGuard guard = new GuardInstaller(table).install(PreemptionGuardOptions.defaults()
                .withSignals(spec.forwardedSignals()).withListener(r -> self[0].arrived(r.signal())));
        self[0] = new Forwarding(guard, unignored, nat);
        return self[0];
    }

    private void arrived(Signal s) {
        LinuxJob target;
        synchronized (this) {
            if (job == null) {
                early.add(s);
                return;
            }
            target = job;
        }
        target.forward(s);
    }

    /** Passes signals on to this job from now on, and those that came before it. */
    void attach(LinuxJob j) {
        List<Signal> pending;
        synchronized (this) {
            job = j;
            pending = new ArrayList<>(early);
            early.clear();
        }
        pending.forEach(j::forward);
    }

    /** @return the forwarded signals the guard could not take, with why */
    List<PreemptionGuard.Refusal> refused() {
        return guard == null ? List.of() : List.copyOf(guard.refused());
    }

    /** Removes the handlers, and ignores again the signals that were ignored before. */
    void close() {
        if (guard != null) {
            guard.close();
        }
        for (Signal s : unignored) {
            nat.ignoreIfDefault(s);
        }
    }
}
