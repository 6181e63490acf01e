package io.github.procscope.linux.doctor;

import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.gpu.monitor.GpuSummary;
import io.github.procscope.api.gpu.GpuUser;

import java.util.List;
import java.util.Optional;

/**
 * What the checks of one diagnosis share: two process snapshots (the later with status, command line
 * and cgroups) and two
 * disk readings taken a sample window apart, the GPU summaries of that window, and the options.
 *
 * @param before       the snapshot at the start of the window: {@code stat}, {@code statm} and owner only, no
 *                     facet (checks compare states, start times and CPU times with it)
 * @param after        the snapshot at its end
 * @param disksBefore  {@code /proc/diskstats} at the start, when it could be read
 * @param disksAfter   {@code /proc/diskstats} at the end, when it could be read
 * @param gpus         what the GPUs showed over the window; empty when no GPU could be examined
 * @param options      thresholds
 * @param notes        where checks record what they could only partly examine (shared, appended to)
 */
record Examination(ProcessSnapshot before, ProcessSnapshot after, Optional<DiskStats> disksBefore,
                   Optional<DiskStats> disksAfter, Optional<GpuWindow> gpus, DoctorOptions options,
                   List<String> notes) {

    Examination(ProcessSnapshot before, ProcessSnapshot after, DoctorOptions options) {
        this(before, after, Optional.empty(), Optional.empty(), Optional.empty(), options,
                java.util.Collections.synchronizedList(new java.util.ArrayList<>()));
    }

    /** Records that a check could examine only part of what it looks at, and why. */
    void note(String text) {
        notes.add(text);
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
