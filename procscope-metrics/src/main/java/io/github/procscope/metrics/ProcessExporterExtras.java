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
     * Reads what one process of the group adds beyond the snapshot: its limits, its {@code smaps_rollup} and its
     * threads where the options ask for them, and its threads' status where it has more than one (the kernel gives
     * a process's context switches in {@code /proc/PID/status} for its main thread only; process-exporter sums its
     * threads'). A process gone meanwhile adds what the snapshot had of it.
     *
     * @param sources the readers
     * @param options what to export
     * @param p       the process, as the snapshot read it
     * @return what was read
     */
    static Read read(MetricsSources sources, ExporterOptions options, ProcessInfo p) {
        Read r = new Read();
        r.partial = p.status().isEmpty() || p.io().isEmpty() || p.openFds().isEmpty();
        if (p.status().isPresent()) {
            ProcessStatus st = p.status().get();
            r.swapBytes = st.memory().swapBytes().orElse(0);
            r.voluntary = st.voluntaryContextSwitches().orElse(0);
            r.nonvoluntary = st.nonvoluntaryContextSwitches().orElse(0);
        }
        try {
            if (p.openFds().isPresent()) {
                OptionalLong soft = sources.processes().limits(p.pid()).openFiles()
                        .map(ResourceLimit::soft).orElse(OptionalLong.empty());
                if (soft.isPresent() && soft.getAsLong() > 0) {
                    r.fdRatio = p.openFds().getAsInt() / (double) soft.getAsLong();
                }
            }
            if (options.gatherSmaps() && sources.memory().isPresent()) {
                MemoryTotals t = sources.memory().get().totals(p.pid());
                r.pssBytes = t.pssBytes();
                r.swapPssBytes = t.counters().swapPssBytes().orElse(0);
            }
            if (options.threads() || p.threads() > 1) {
                r.threads = sources.processes().threads(p.pid(), options.threads() ? THREAD_FACETS
                        : EnumSet.of(Facet.STATUS));
                if (p.threads() > 1) {
                    long voluntary = 0;
                    long nonvoluntary = 0;
                    for (ThreadInfo t : r.threads) {
                        if (t.status().isPresent()) {
                            voluntary += t.status().get().voluntaryContextSwitches().orElse(0);
                            nonvoluntary += t.status().get().nonvoluntaryContextSwitches().orElse(0);
                        }
                    }
                    r.voluntary = voluntary;
                    r.nonvoluntary = nonvoluntary;
                }
            }
        } catch (NoSuchProcessException e) {
            // Gone since the snapshot: what the snapshot read of it stands.
        } catch (ProcscopeException | UnsupportedOperationException e) {
            r.partial = true;
        }
        return r;
    }

    /** What {@link #read} found for one process. */
    static final class Read {
        long swapBytes;
        long pssBytes;
        long swapPssBytes;
        double fdRatio;
        long voluntary;
        long nonvoluntary;
        /** The threads, where they were read; else empty. */
        List<ThreadInfo> threads = List.of();
        boolean partial;
    }

    /** Adds one process's reading to the group's. */
    void add(Read r) {
        swapBytes += r.swapBytes;
        pssBytes += r.pssBytes;
        swapPssBytes += r.swapPssBytes;
        worstFdRatio = Math.max(worstFdRatio, r.fdRatio);
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
