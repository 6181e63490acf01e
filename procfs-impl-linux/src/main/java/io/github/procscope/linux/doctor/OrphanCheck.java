package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.process.CpuUsage;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTree;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Processes adopted by PID 1 (or a named subreaper) that are not session leaders. Services are started
 * in sessions of their own (systemd, daemons calling {@code setsid}); a process that still carries the
 * session of a shell that is gone was left behind when its parent ended: a {@code nohup} run whose shell
 * was closed, or a worker of an experiment that died. Idle ones older than the threshold are warnings.
 */
final class OrphanCheck implements DoctorCheck {
    private static final Set<Facet> CMDLINE = Set.of(Facet.CMDLINE);

    @Override
    public String name() {
        return "orphans";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<Finding> out = new ArrayList<>();
        for (ProcessTree.Orphan o : e.tree().orphans(e.options().subreapers())) {
            ProcessInfo p = o.process();
            if (p.sid() == p.pid() || p.state() == io.github.procscope.api.process.ProcessState.ZOMBIE) {
                continue;
            }
            if (e.before().find(p.key()).isEmpty()) {
                continue; // started during the window: too new to judge
            }
            double cpu = CpuUsage.percent(e.before(), e.after(), p.pid()).orElse(0);
            boolean idle = cpu == 0.0;
            boolean old = o.age().compareTo(e.options().orphanMinAge()) >= 0;
            String cmd = e.reread(p, CMDLINE).flatMap(ProcessInfo::cmdline).filter(c -> !c.isEmpty())
                    .map(c -> String.join(" ", c)).orElse(p.comm());
            Evidence ev = new Evidence.Orphan(p.pid(), p.comm(), cmd, o.adopterPid(), o.age().toMillis(),
                    Math.round(cpu * 10) / 10.0, p.rssBytes(), p.sid());
            Severity sev = idle && old ? Severity.WARNING : Severity.INFO;
            out.add(new Finding(sev, List.of(p.pid()),
                    "pid " + p.pid() + " (" + p.comm() + ") was adopted by pid " + o.adopterPid() + "; "
                            + (idle ? "idle" : "busy (" + String.format(java.util.Locale.ROOT, "%.1f", cpu) + "% CPU)") + ", running for "
                            + o.age().toSeconds() + " s",
                    ev, idle
                    ? "Its parent is gone and it does nothing: if it is a leftover of a finished or dead run, end it "
                    + "(procscope stop " + p.pid() + "); if it is a nohup run, it is fine."
                    : "Its parent is gone but it still works: check its command line and logs before ending it."));
        }
        return out;
    }
}
