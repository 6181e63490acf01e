package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Inits;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether PID 1 of this pid namespace is an init, which reaps the orphans it adopts. In a container,
 * PID 1 is usually the application itself, and then adopted zombies accumulate.
 */
final class Pid1Check implements DoctorCheck {
    @Override
    public String name() {
        return "pid 1";
    }

    @Override
    public List<Finding> run(Examination e) {
        Optional<ProcessInfo> one = e.after().find(1);
        if (one.isEmpty() || Inits.isInit(one.get().comm())) {
            return List.of();
        }
        ProcessInfo p = one.get();
        List<ProcessInfo> adoptedZombies = e.tree().zombiesByParent().getOrDefault(1L, List.of());
        Evidence ev = new Evidence.Pid1NotInit(p.comm(),
                e.reread(p, Set.of(Facet.CMDLINE)).flatMap(ProcessInfo::cmdline).map(c -> String.join(" ", c))
                        .orElse(p.comm()),
                adoptedZombies.stream().map(ProcessInfo::pid).toList());
        return List.of(new Finding(
                adoptedZombies.isEmpty() ? Severity.INFO : Severity.WARNING, List.of(1L),
                "PID 1 is " + p.comm() + ", not an init: zombies it adopts are never reaped"
                        + (adoptedZombies.isEmpty() ? "" : " (" + adoptedZombies.size() + " now)"),
                ev, "Start the container with an init as PID 1 (docker run --init, Kubernetes "
                + "shareProcessNamespace, tini or dumb-init as the entrypoint) so that orphans are reaped."));
    }
}
