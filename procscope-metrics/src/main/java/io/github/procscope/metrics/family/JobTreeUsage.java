package io.github.procscope.metrics.family;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The families of a job tree (a process and every process below it): processes, resident and virtual memory,
 * threads, CPU time of the live processes, zombies. The Micrometer binder {@code JobTreeMetrics} registers them for
 * one tree, tagged {@value #ROOT_PID} (and the tags its user gives); the collector adds them for every job its
 * sources name ({@link #collect}), labelled {@value #JOB_ID} and {@value #ROOT_PID}. Both sum the same way
 * ({@link Totals#of}).
 */
public final class JobTreeUsage {
    /** The label that names a job's root process by its pid. */
    public static final String ROOT_PID = "root_pid";
    /** The label that names a job by its id (the id {@code procscope jobs} shows). */
    public static final String JOB_ID = "job_id";
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
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(PROCESSES, RESIDENT, VIRTUAL, THREADS, CPU_TIME,
            ZOMBIES);

    private JobTreeUsage() {
    }

    /**
     * A tree's sums, one value per family of {@link #FAMILIES}.
     *
     * @param processes     processes in the tree, the root included
     * @param residentBytes their resident memory
     * @param virtualBytes  their address space
     * @param threads       their threads
     * @param cpuSeconds    their CPU time
     * @param zombies       those that are zombies
     */
    public record Totals(double processes, double residentBytes, double virtualBytes, double threads,
                         double cpuSeconds, double zombies) {
        /** A tree whose root is gone: every value 0. */
        public static final Totals NONE = new Totals(0, 0, 0, 0, 0, 0);

        /**
         * @param snapshot a process snapshot
         * @param root     a process of it, the root of the tree
         * @return the sums over the root and every process below it in the snapshot's tree
         */
        public static Totals of(ProcessSnapshot snapshot, ProcessInfo root) {
            double processes = 0;
            double resident = 0;
            double virtual = 0;
            double threads = 0;
            double cpu = 0;
            double zombies = 0;
            List<ProcessInfo> below = snapshot.tree().descendants(root.pid());
            for (int i = -1; i < below.size(); i++) {
                ProcessInfo p = i < 0 ? root : below.get(i);
                processes++;
                resident += p.rssBytes();
                virtual += p.vszBytes();
                threads += p.threads();
                cpu += p.cpuTime().toNanos() / 1e9;
                if (p.state() == ProcessState.ZOMBIE) {
                    zombies++;
                }
            }
            return new Totals(processes, resident, virtual, threads, cpu, zombies);
        }

        /**
         * @param family one of {@link #FAMILIES}
         * @return this tree's value of it
         */
        public double of(MetricFamily family) {
            if (family == PROCESSES) {
                return processes;
            } else if (family == RESIDENT) {
                return residentBytes;
            } else if (family == VIRTUAL) {
                return virtualBytes;
            } else if (family == THREADS) {
                return threads;
            } else if (family == CPU_TIME) {
                return cpuSeconds;
            } else if (family == ZOMBIES) {
                return zombies;
            }
            throw new IllegalArgumentException("not a job family: " + family.name());
        }
    }

    /**
     * Adds the families of every job whose root runs in the snapshot (the same process: pid and start time), in the
     * order of the jobs' ids; a job whose root is gone has no series.
     *
     * @param s        the scrape
     * @param snapshot the processes
     * @param jobs     the jobs, by id, each with its root
     */
    public static void collect(Scrape s, ProcessSnapshot snapshot, Map<String, ProcessKey> jobs) {
        Map<String, Totals> totals = new TreeMap<>();
        Map<String, Labels> labels = new TreeMap<>();
        for (Map.Entry<String, ProcessKey> j : jobs.entrySet()) {
            ProcessKey key = j.getValue();
            Optional<ProcessInfo> root = snapshot.find(key.pid())
                    .filter(p -> p.startTimeTicks() == key.startTimeTicks());
            if (root.isPresent()) {
                totals.put(j.getKey(), Totals.of(snapshot, root.get()));
                labels.put(j.getKey(), Labels.of(JOB_ID, j.getKey(), ROOT_PID, Long.toString(key.pid())));
            }
        }
        for (MetricFamily f : FAMILIES) {
            totals.forEach((id, t) -> s.add(f, labels.get(id), t.of(f)));
        }
    }
}
