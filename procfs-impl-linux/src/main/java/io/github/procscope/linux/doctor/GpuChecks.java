package io.github.procscope.linux.doctor;

import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.GpuUser;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two GPU entries of the map: GPUs that hold memory while idle over the window (the seed's
 * {@code idle_holding}: mean utilization under 5% while more than 1 GiB is used), and ghosts: processes
 * holding GPU memory whose parent training process is gone (DataLoader workers left after Ctrl-C).
 */
final class GpuChecks implements DoctorCheck {
    @Override
    public String name() {
        return "GPUs";
    }

    @Override
    public List<Finding> run(Examination e) {
        if (e.gpus().isEmpty()) {
            return List.of();
        }
        Examination.GpuWindow w = e.gpus().get();
        List<Finding> out = new ArrayList<>();
        for (GpuSummary s : w.summaries()) {
            if (!s.isIdleHolding()) {
                continue;
            }
            List<GpuUser> holders = w.users().stream().filter(u -> u.gpuProcesses().stream()
                    .anyMatch(p -> p.deviceUuid().equals(s.deviceUuid()))).toList();
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("gpu", s.deviceIndex());
            ev.put("uuid", s.deviceUuid());
            ev.put("samples", s.samples());
            ev.put("windowSeconds", s.span().toMillis() / 1000.0);
            s.meanGpuUtilizationPercent().ifPresent(v -> ev.put("meanUtilizationPercent", Math.round(v * 10) / 10.0));
            s.minMemoryUsedBytes().ifPresent(v -> ev.put("memoryUsedBytes", v));
            s.memoryTotalBytes().ifPresent(v -> ev.put("memoryTotalBytes", v));
            ev.put("holders", holders.stream().map(u -> u.pid() + " " + u.process().map(ProcessInfo::comm).orElse("?")
                    + u.usedMemoryBytes().stream().mapToObj(b -> " " + (b >> 20) + " MiB").findFirst().orElse("")).toList());
            out.add(new Finding(FindingKind.GPU_IDLE_HOLDING, Severity.WARNING,
                    holders.stream().map(GpuUser::pid).toList(),
                    String.format("GPU %d holds %d MiB but its utilization stayed at %.1f%% over %d samples",
                            s.deviceIndex(), s.minMemoryUsedBytes().orElse(0) >> 20,
                            s.meanGpuUtilizationPercent().orElse(0), s.samples()),
                    ev, "Memory held by an idle GPU is memory no one else can use: an open notebook kernel, a "
                    + "finished run still alive, or a leftover of a dead one. Check the holders; if they are "
                    + "yours and done, end them (procscope stop PID --tree)."));
        }
        for (GpuUser u : w.users()) {
            if (!u.ghost()) {
                continue;
            }
            ProcessInfo p = u.process().orElseThrow();
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("pid", u.pid());
            ev.put("comm", p.comm());
            ev.put("ppid", p.ppid());
            ev.put("ageSeconds", p.elapsed().toSeconds());
            u.usedMemoryBytes().ifPresent(b -> ev.put("usedMemoryBytes", b));
            ev.put("devices", u.gpuProcesses().stream().map(g -> g.deviceUuid()).distinct().toList());
            ev.put("openDeviceMinors", List.copyOf(u.openDeviceMinors()));
            u.runRoot().ifPresent(r -> ev.put("runRoot", r.pid() + " " + r.comm()));
            out.add(new Finding(FindingKind.GPU_GHOST, Severity.WARNING, List.of(u.pid()),
                    "pid " + u.pid() + " (" + p.comm() + ") holds GPU memory"
                            + u.usedMemoryBytes().stream().mapToObj(b -> " (" + (b >> 20) + " MiB)").findFirst().orElse("")
                            + " but its parent is gone (adopted by " + p.ppid() + ")",
                    ev, "A worker that outlived its training process (after Ctrl-C, the parent died but a "
                    + "DataLoader or multiprocessing child kept the CUDA context). If it is yours, end it with "
                    + "TERM: procscope stop " + u.pid() + "."));
        }
        return out;
    }
}
