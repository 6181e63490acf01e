package io.github.procscope.metrics.family;

import io.github.procscope.metrics.model.MetricFamily;

import java.util.List;

/**
 * The families of a job tree (a process and every process below it), as the Micrometer binder
 * {@code JobTreeMetrics} registers them, tagged {@code root_pid}: processes, resident and virtual memory, threads,
 * CPU time of the live processes, zombies.
 */
public final class JobTreeUsage {
    /** {@code procscope_job_processes}. */
    public static final MetricFamily PROCESSES = MetricFamily.gauge("procscope_job_processes",
            "Processes in the job tree, its root included.");
    /** {@code procscope_job_memory_resident_bytes}. */
    public static final MetricFamily RESIDENT = MetricFamily.gauge("procscope_job_memory_resident_bytes",
            "Resident memory of the job tree's processes.", "bytes");
    /** {@code procscope_job_memory_virtual_bytes}. */
    public static final MetricFamily VIRTUAL = MetricFamily.gauge("procscope_job_memory_virtual_bytes",
            "Address space of the job tree's processes.", "bytes");
    /** {@code procscope_job_threads}. */
    public static final MetricFamily THREADS = MetricFamily.gauge("procscope_job_threads",
            "Threads of the job tree's processes.");
    /** {@code procscope_job_cpu_time_seconds}. */
    public static final MetricFamily CPU_TIME = MetricFamily.gauge("procscope_job_cpu_time_seconds",
            "CPU time used by the job tree's live processes.", "seconds");
    /** {@code procscope_job_zombies}. */
    public static final MetricFamily ZOMBIES = MetricFamily.gauge("procscope_job_zombies",
            "Exited processes of the job tree not yet reaped.");
    /** Every family of this class. */
    public static final List<MetricFamily> FAMILIES = List.of(PROCESSES, RESIDENT, VIRTUAL, THREADS, CPU_TIME,
            ZOMBIES);

    private JobTreeUsage() {
    }
}
