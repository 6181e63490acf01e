package io.github.procscope.api.diagnose;


/**
 * Examines a machine for the usual causes of trouble on a training host: zombies and their parents,
 * orphans left by dead runs, a PID 1 that does not reap, deleted files still holding disk space, full
 * disks and inodes, memory pressure, OOM kills, sessions that die on hang-up, idle GPUs holding memory,
 * ghost processes on GPUs and I/O bottlenecks. Thread-safe.
 */
public interface Doctor {
    /**
     * Runs every check. It takes about {@link DoctorOptions#sampleWindow()}: CPU, disk and GPU figures
     * are rates over that window. A check that cannot run here is listed in {@link Diagnosis#skipped()}.
     *
     * @param options window and thresholds
     * @return what was found
     */
    Diagnosis examine(DoctorOptions options);
}
