package io.github.procscope.metrics.family;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A GPU's memory by who holds it: per process group, unattributed, held by ghosts (processes whose parent is gone),
 * and, when asked for, per process with its container and pod. All from one join of the GPU's process list with
 * the process snapshot.
 */
public final class GpuMemoryAttribution {
    /** {@code procscope_gpu_process_memory_bytes{gpu,UUID,pid,comm,container,pod_uid}}. */
    public static final MetricFamily PROCESS_MEMORY = MetricFamily.gauge("procscope_gpu_process_memory_bytes",
            "GPU memory used by one process, in bytes.", "bytes");
    /** {@code procscope_gpu_group_memory_bytes{gpu,UUID,groupname}}. */
    public static final MetricFamily GROUP_MEMORY = MetricFamily.gauge("procscope_gpu_group_memory_bytes",
            "GPU memory used by a process group (the groups of namedprocess_namegroup_*), in bytes.", "bytes");
    /** {@code procscope_gpu_unattributed_memory_bytes{gpu,UUID}}. */
    public static final MetricFamily UNATTRIBUTED_MEMORY = MetricFamily.gauge(
            "procscope_gpu_unattributed_memory_bytes",
            "GPU memory used by processes in no group or not visible here (another pid namespace), in bytes.",
            "bytes");
    /** {@code procscope_gpu_ghost_processes{gpu,UUID}}. */
    public static final MetricFamily GHOST_PROCESSES = MetricFamily.gauge("procscope_gpu_ghost_processes",
            "Processes holding this GPU whose parent is gone (adopted by PID 1 or a subreaper).");
    /** {@code procscope_gpu_ghost_memory_bytes{gpu,UUID}}. */
    public static final MetricFamily GHOST_MEMORY = MetricFamily.gauge("procscope_gpu_ghost_memory_bytes",
            "GPU memory held by ghost processes, in bytes.", "bytes");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(PROCESS_MEMORY, GROUP_MEMORY, UNATTRIBUTED_MEMORY,
            GHOST_PROCESSES, GHOST_MEMORY);

    private GpuMemoryAttribution() {
    }

    /**
     * Adds a GPU's memory series.
     *
     * @param s         the scrape
     * @param d         the GPU
     * @param snapshot  the process snapshot its processes are joined with
     * @param groupOf   the group of a process, empty for none
     * @param perPid    whether to add the per-process series
     * @param subreapers the subreapers, for {@link GpuUsers#join}
     */
    public static void collect(Scrape s, GpuDevice d, ProcessSnapshot snapshot,
                               Function<ProcessInfo, Optional<String>> groupOf, boolean perPid, Set<Long> subreapers) {
        var listed = d.processes();
        List<GpuUser> users = GpuUsers.join(listed.processes(), List.of(), snapshot, subreapers);
        String gpu = Integer.toString(d.index());
        Map<String, Long> byGroup = new TreeMap<>();
        long unattributed = 0;
        int ghosts = 0;
        long ghostBytes = 0;
        for (GpuUser u : users) {
            long bytes = u.usedMemoryBytes().orElse(0);
            Optional<String> group = u.process().flatMap(groupOf);
            if (group.isPresent()) {
                byGroup.merge(group.get(), bytes, Long::sum);
            } else {
                unattributed += bytes;
            }
            if (u.ghost()) {
                ghosts++;
                ghostBytes += bytes;
            }
            if (perPid) {
                Optional<Owner> owner = u.process().flatMap(ProcessInfo::owner);
                s.add(PROCESS_MEMORY, Labels.of("gpu", gpu, "UUID", d.uuid(), "pid", Long.toString(u.pid()),
                        "comm", u.process().map(ProcessInfo::comm).orElse(""),
                        "container", owner.flatMap(Owner::container).map(Container::shortId).orElse(""),
                        "pod_uid", owner.flatMap(Owner::podUid).orElse("")), bytes);
            }
        }
        byGroup.forEach((g, bytes) -> s.add(GROUP_MEMORY, Labels.of("gpu", gpu, "UUID", d.uuid(), "groupname", g),
                bytes));
        Labels l = Labels.of("gpu", gpu, "UUID", d.uuid());
        s.add(UNATTRIBUTED_MEMORY, l, unattributed);
        s.add(GHOST_PROCESSES, l, ghosts);
        s.add(GHOST_MEMORY, l, ghostBytes);
    }
}
