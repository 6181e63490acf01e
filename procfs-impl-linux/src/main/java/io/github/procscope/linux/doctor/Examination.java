package io.github.procscope.linux.doctor;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the checks of one diagnosis share: two process snapshots and two disk readings taken a sample window
 * apart, the GPU summaries of that window, and the options. Neither snapshot reads a facet: the few processes a
 * check needs more of (the signal masks of processes on a terminal, the command line of an orphan) are read again
 * by {@link #reread}, so that an examination of thousands of processes does not hold every status and command
 * line.
 *
 * @param table        the process table both snapshots were read from
 * @param before       the snapshot at the start of the window (checks compare states, start times and CPU times
 *                     with it)
 * @param after        the snapshot at its end
 * @param disksBefore  {@code /proc/diskstats} at the start, when it could be read
 * @param disksAfter   {@code /proc/diskstats} at the end, when it could be read
 * @param gpus         what the GPUs showed over the window; empty when no GPU could be examined
 * @param options      thresholds
 * @param notes        where checks record what they could only partly examine (shared, appended to)
 */
record Examination(ProcessTable table, ProcessSnapshot before, ProcessSnapshot after, Optional<DiskStats> disksBefore,
                   Optional<DiskStats> disksAfter, Optional<GpuWindow> gpus, DoctorOptions options,
                   List<String> notes) {

    /** Records that a check could examine only part of what it looks at, and why. */
    void note(String text) {
        notes.add(text);
    }

    /**
     * A process of the later snapshot read again with facets, by its key: never another process that took its pid.
     *
     * @param p      a process of {@link #after}
     * @param facets what to read
     * @return the process as read now; empty when it has ended since, or what was asked for could not be read
     */
    Optional<ProcessInfo> reread(ProcessInfo p, Set<Facet> facets) {
        try {
            return Optional.of(table.process(p.key(), facets));
        } catch (ProcscopeException ex) {
            return Optional.empty();
        }
    }

    ProcessTree tree() {
        return after.tree();
    }

    /**
     * The GPUs over the window, or why they could not be examined.
     *
     * @param summaries one per device, judged with the options' idle-holding rule
     * @param users     processes using GPUs, joined with the process table
     */
    record GpuWindow(List<GpuSummary> summaries, List<GpuUser> users) {
        GpuWindow {
            summaries = List.copyOf(summaries);
            users = List.copyOf(users);
        }
    }
}
