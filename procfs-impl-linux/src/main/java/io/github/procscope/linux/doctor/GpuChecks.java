package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.process.ProcessInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The two GPU checks: GPUs that hold memory while idle over the window (mean utilization under 5% while
 * more than 1 GiB is used), and ghosts: processes
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
            OptionalDouble mean = s.meanGpuUtilizationPercent();
            Evidence ev = new Evidence.GpuIdleHolding(s.deviceIndex(), s.deviceUuid(), s.samples(), s.span().toMillis(),
                    mean.isPresent() ? OptionalDouble.of(Math.round(mean.getAsDouble() * 10) / 10.0) : mean,
                    s.minMemoryUsedBytes(), s.memoryTotalBytes(),
                    holders.stream().map(u -> new Evidence.GpuHolder(u.pid(), u.process().map(ProcessInfo::comm),
                            u.usedMemoryBytes())).toList());
            out.add(new Finding(Severity.WARNING,
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
            Evidence ev = new Evidence.GpuGhost(u.pid(), p.comm(), p.ppid(), p.elapsed().toMillis(),
                    u.usedMemoryBytes(), u.gpuProcesses().stream().map(g -> g.deviceUuid()).distinct().toList(),
                    List.copyOf(u.openDeviceMinors()),
                    u.runRoot().map(r -> OptionalLong.of(r.pid())).orElse(OptionalLong.empty()),
                    u.runRoot().map(ProcessInfo::comm));
            out.add(new Finding(Severity.WARNING, List.of(u.pid()),
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
