package io.github.procscope.linux.doctor;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.CgroupOomCount;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.diagnose.Severity;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * OOM kills: each kill the kernel log still holds (pid, comm, time, memory figures, cgroup), and the
 * memory cgroups' own {@code oom_kill} counters, which need no privilege and never scroll away but name
 * no process. A counter whose kills are all in the log adds its count to those findings; one whose kills
 * are not (the log was unreadable or has scrolled) is a finding of its own.
 */
final class OomKillCheck implements DoctorCheck {
    private final Optional<KernelLog> log;
    private final Supplier<List<CgroupOomCount>> counters;

    OomKillCheck(Optional<KernelLog> log, Supplier<List<CgroupOomCount>> counters) {
        this.log = log;
        this.counters = counters;
    }

    @Override
    public String name() {
        return "OOM kills";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<OomKill> kills = List.of();
        if (log.isPresent()) {
            try {
                kills = log.get().oomKills();
            } catch (ProcscopeException ex) {
                e.note("kernel log: " + ex.getMessage());
            }
        }
        List<CgroupOomCount> counts = counters.get();
        List<Finding> out = new ArrayList<>();
        for (OomKill k : kills) {
            Evidence ev = new Evidence.OomKilled(k, k.cgroup()
                    .flatMap(cg -> counts.stream().filter(c -> c.cgroup().equals(cg)).findFirst())
                    .map(c -> OptionalLong.of(c.oomKills())).orElse(OptionalLong.empty()));
            String where = k.memoryCgroup() ? "its memory cgroup" + k.cgroup().map(c -> " " + c).orElse("") + " hit its limit"
                    : "the machine ran out of memory";
            out.add(new Finding(Severity.WARNING, List.of(k.pid()),
                    "the OOM killer ended pid " + k.pid() + " (" + k.comm() + ")" + k.time().map(t -> " at " + t).orElse("")
                            + ": " + where + k.anonRssBytes().stream().mapToObj(v -> ", anon-rss " + (v >> 20) + " MiB")
                            .findFirst().orElse(""),
                    ev, ADVICE));
        }
        for (CgroupOomCount c : counts) {
            long logged = kills.stream().filter(k -> k.cgroup().map(c.cgroup()::equals).orElse(false)).count();
            if (logged >= c.oomKills()) {
                continue;
            }
            Evidence ev = new Evidence.CgroupOomKills(c.cgroup(), c.version(), c.oomKills(), c.ooms(), logged);
            out.add(new Finding(Severity.WARNING, List.of(),
                    "cgroup " + c.cgroup() + " recorded " + c.oomKills() + " OOM kill(s)"
                            + (logged > 0 ? ", " + logged + " of them in the kernel log" : ""),
                    ev, ADVICE + " The kernel log (dmesg, as root) names the processes."));
        }
        return out;
    }

    private static final String ADVICE = "It got SIGKILL (exit status 137) and could leave no traceback. Record its "
            + "RSS over time (procscope watch PID) to see it climb; look for a dataset loaded whole into RAM, a copy "
            + "per DataLoader worker, or tensors kept with their graphs; or give it a higher memory limit.";
}
