package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.api.memory.SystemMemory;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.proc.CgroupMemoryStat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Little memory available ({@code free}'s "available", not "free": Linux fills free memory with cache it
 * gives back), and the current cgroup near its limit, which in a container is the real ceiling. A
 * cgroup's usage counts page cache too, so it is judged by its working set: usage minus inactive file
 * pages ({@code memory.stat}), as the kubelet judges it.
 */
final class MemoryPressureCheck implements DoctorCheck {
    private final SystemResources resources;

    MemoryPressureCheck(SystemResources resources) {
        this.resources = resources;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<Finding> out = new ArrayList<>();
        SystemMemory m = resources.memory();
        double availablePercent = m.totalBytes() == 0 ? 100 : 100.0 * m.availableBytes() / m.totalBytes();
        if (availablePercent < e.options().memoryAvailablePercent()) {
            Evidence ev = new Evidence.LowMemory(m.totalBytes(), m.availableBytes(),
                    Math.round(availablePercent * 10) / 10.0, m.freeBytes(), m.swapTotalBytes(), m.swapFreeBytes(),
                    m.availableSource());
            out.add(new Finding(availablePercent < 2 ? Severity.CRITICAL : Severity.WARNING,
                    topByRss(e), String.format("only %.1f%% of memory is available (%d MiB of %d MiB)", availablePercent,
                            m.availableBytes() >> 20, m.totalBytes() >> 20), ev,
                    "The OOM killer ends the largest process when memory runs out. Find the biggest users "
                    + "(procscope ps --sort=-rss) and watch one that grows (procscope watch PID)."));
        }
        Optional<CgroupMemory> cg = resources.cgroupMemory();
        if (cg.isPresent() && cg.get().effectiveLimitBytes().isPresent()) {
            CgroupMemory c = cg.get();
            long limit = c.effectiveLimitBytes().getAsLong();
            long inactiveFile = CgroupMemoryStat.inactiveFileBytes(c);
            long workingSet = Math.max(0, c.usageBytes() - inactiveFile);
            double percent = limit == 0 ? 100 : 100.0 * workingSet / limit;
            if (percent >= e.options().cgroupUsagePercent()) {
                Evidence ev = new Evidence.CgroupMemoryPressure(c.cgroupPath(), c.version(), limit, c.usageBytes(),
                        inactiveFile, workingSet, Math.round(percent * 10) / 10.0);
                out.add(new Finding(percent >= 98 ? Severity.CRITICAL : Severity.WARNING,
                        List.of(), String.format("cgroup %s uses %.1f%% of its %d MiB limit", c.cgroupPath(), percent,
                                limit >> 20), ev,
                        "In a container the cgroup limit, not the machine's memory, is the ceiling: past it the "
                        + "OOM killer ends a process of this cgroup (exit 137). Lower the memory use or raise the limit."));
            }
        }
        return out;
    }

    private static List<Long> topByRss(Examination e) {
        return e.after().processes().stream().sorted((a, b) -> Long.compare(b.rssBytes(), a.rssBytes()))
                .limit(3).map(p -> p.pid()).toList();
    }
}
