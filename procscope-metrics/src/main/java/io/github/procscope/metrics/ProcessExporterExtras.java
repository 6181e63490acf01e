package io.github.procscope.metrics;

import io.github.procscope.api.Facet;
import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessStatus;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.ResourceLimit;
import io.github.procscope.api.ThreadInfo;
import io.github.procscope.api.memory.MemoryTotals;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.EnumSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What a group adds, beyond the facets of the snapshot, to match process-exporter's families: swapped memory
 * ({@code VmSwap}), the proportional memory types of {@code smaps_rollup} ({@code -gather-smaps}), the worst ratio of
 * open descriptors to the soft limit of {@code /proc/PID/limits}, and the group's threads ({@code -threads}, in
 * {@link ThreadFamilies}). One per group and scrape.
 */
final class ProcessExporterExtras {
    private static final Set<Facet> THREAD_FACETS = EnumSet.of(Facet.STATUS, Facet.IO, Facet.WCHAN);

    private long swapBytes;
    private long pssBytes;
    private long swapPssBytes;
    private double worstFdRatio;

    /**
     * Adds one process of the group, reading its limits, and its {@code smaps_rollup} and threads where the options
     * ask for them. A process gone meanwhile adds what the snapshot had of it.
     *
     * @param sources the readers
     * @param options what to export
     * @param group   the group's name
     * @param p       the process, as the snapshot read it
     * @param into    the group's extras
     * @param threads the per-thread families
     * @return 1 when a file of the process was withheld or malformed (process-exporter's partial error), else 0
     */
    static int add(MetricsSources sources, ExporterOptions options, String group, ProcessInfo p,
                   ProcessExporterExtras into, ThreadFamilies threads) {
        boolean partial = p.status().isEmpty() || p.io().isEmpty() || p.openFds().isEmpty();
        if (p.status().isPresent()) {
            ProcessStatus st = p.status().get();
            into.swapBytes += st.memory().swapBytes().orElse(0);
        }
        try {
            if (p.openFds().isPresent()) {
                OptionalLong soft = sources.processes().limits(p.pid()).openFiles()
                        .map(ResourceLimit::soft).orElse(OptionalLong.empty());
                if (soft.isPresent() && soft.getAsLong() > 0) {
                    into.worstFdRatio = Math.max(into.worstFdRatio, p.openFds().getAsInt() / (double) soft.getAsLong());
                }
            }
            if (options.gatherSmaps() && sources.memory().isPresent()) {
                MemoryTotals t = sources.memory().get().totals(p.pid());
                into.pssBytes += t.pssBytes();
                into.swapPssBytes += t.counters().swapPssBytes().orElse(0);
            }
            if (options.threads()) {
                List<ThreadInfo> list = sources.processes().threads(p.pid(), THREAD_FACETS);
                threads.add(group, list);
            }
        } catch (NoSuchProcessException e) {
            // Gone since the snapshot: what the snapshot read of it stands.
        } catch (ProcscopeException | UnsupportedOperationException e) {
            partial = true;
        }
        return partial ? 1 : 0;
    }

    /** Writes the group's series. */
    void write(Scrape s, String group, ExporterOptions options) {
        String help = "Memory of this group's processes, in bytes, by type.";
        s.gauge("namedprocess_namegroup_memory_bytes", help, Labels.of("groupname", group, "memtype", "swapped"),
                swapBytes);
        if (options.gatherSmaps()) {
            s.gauge("namedprocess_namegroup_memory_bytes", help,
                    Labels.of("groupname", group, "memtype", "proportionalResident"), pssBytes);
            s.gauge("namedprocess_namegroup_memory_bytes", help,
                    Labels.of("groupname", group, "memtype", "proportionalSwapped"), swapPssBytes);
        }
        s.gauge("namedprocess_namegroup_worst_fd_ratio",
                "The worst (closest to 1) ratio of open descriptors to the soft limit on them among the group's"
                        + " processes.", Labels.of("groupname", group), worstFdRatio);
    }
}
