package io.github.procscope.linux;

import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.diagnose.Severity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** OOM kills recorded in the kernel log: the trace a SIGKILLed training run leaves nowhere else. */
final class OomKillCheck implements DoctorCheck {
    private final KernelLog log;

    OomKillCheck(KernelLog log) {
        this.log = log;
    }

    @Override
    public String name() {
        return "kernel log";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<Finding> out = new ArrayList<>();
        for (OomKill k : log.oomKills()) {
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("pid", k.pid());
            ev.put("comm", k.comm());
            k.time().ifPresent(t -> ev.put("time", t.toString()));
            k.totalVmBytes().ifPresent(v -> ev.put("totalVmBytes", v));
            k.anonRssBytes().ifPresent(v -> ev.put("anonRssBytes", v));
            k.fileRssBytes().ifPresent(v -> ev.put("fileRssBytes", v));
            k.shmemRssBytes().ifPresent(v -> ev.put("shmemRssBytes", v));
            k.uid().ifPresent(v -> ev.put("uid", v));
            ev.put("memoryCgroup", k.memoryCgroup());
            k.cgroup().ifPresent(v -> ev.put("cgroup", v));
            k.constraint().ifPresent(v -> ev.put("constraint", v));
            String where = k.memoryCgroup() ? "its memory cgroup" + k.cgroup().map(c -> " " + c).orElse("") + " hit its limit"
                    : "the machine ran out of memory";
            out.add(new Finding(FindingKind.OOM_KILL, Severity.WARNING, List.of(k.pid()),
                    "the OOM killer ended pid " + k.pid() + " (" + k.comm() + ")" + k.time().map(t -> " at " + t).orElse("")
                            + ": " + where + k.anonRssBytes().stream().mapToObj(v -> ", anon-rss " + (v >> 20) + " MiB")
                            .findFirst().orElse(""),
                    ev, "It got SIGKILL (exit status 137) and could leave no traceback. Record its RSS over time "
                    + "(procscope watch PID) to see it climb; look for a dataset loaded whole into RAM, a copy per "
                    + "DataLoader worker, or tensors kept with their graphs; or give it a higher memory limit."));
        }
        return out;
    }
}
