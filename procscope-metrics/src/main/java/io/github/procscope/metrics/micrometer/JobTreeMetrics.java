package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.metrics.family.JobTreeUsage;
import io.github.procscope.metrics.model.MetricFamily;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer gauges for a job tree: a process (by default this JVM) and every process below it, such as the
 * DataLoader workers and tools a training run starts.
 *
 * <ul>
 *   <li>{@code procscope_job_processes}: processes in the tree, the root included</li>
 *   <li>{@code procscope_job_memory_resident_bytes} (bytes): their resident memory, summed</li>
 *   <li>{@code procscope_job_memory_virtual_bytes} (bytes): their address space, summed</li>
 *   <li>{@code procscope_job_threads}: their threads</li>
 *   <li>{@code procscope_job_cpu_time_seconds} (seconds): CPU time used by the processes alive now</li>
 *   <li>{@code procscope_job_zombies}: exited processes in the tree not yet reaped</li>
 * </ul>
 * (the families of {@link JobTreeUsage}, names as Prometheus writes them), tagged {@code root_pid}.
 *
 * <p>One gauge reading takes a snapshot of the process table; the others read within {@code maxAge} of it share
 * that snapshot, so one publication of the registry reads the process table once. When the root is gone every
 * gauge reads 0. Thread-safe.
 */
public final class JobTreeMetrics implements MeterBinder {
    private final ProcessTable table;
    private final long rootPid;
    private final Duration maxAge;
    private final Iterable<Tag> tags;
    private Reading reading;

    /**
     * Watches this JVM's tree, sharing one snapshot among readings within a second.
     *
     * @param table the process table
     */
    public JobTreeMetrics(ProcessTable table) {
        this(table, ProcessHandle.current().pid(), Duration.ofSeconds(1), Tags.empty());
    }

    /**
     * @param table   the process table
     * @param rootPid the root of the tree
     * @param maxAge  how old a snapshot may be to serve another gauge's reading
     * @param tags    tags for every gauge (for example the job's name)
     * @throws IllegalArgumentException if the pid is not positive or the age negative
     */
    public JobTreeMetrics(ProcessTable table, long rootPid, Duration maxAge, Iterable<Tag> tags) {
        this.table = Objects.requireNonNull(table, "table");
        if (rootPid <= 0) {
            throw new IllegalArgumentException("the root pid must be positive: " + rootPid);
        }
        this.rootPid = rootPid;
        this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("the snapshot age must not be negative: " + maxAge);
        }
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags")).and("root_pid", Long.toString(rootPid));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, JobTreeUsage.PROCESSES, r -> r.processes);
        gauge(registry, JobTreeUsage.RESIDENT, r -> r.residentBytes);
        gauge(registry, JobTreeUsage.VIRTUAL, r -> r.virtualBytes);
        gauge(registry, JobTreeUsage.THREADS, r -> r.threads);
        gauge(registry, JobTreeUsage.CPU_TIME, r -> r.cpuSeconds);
        gauge(registry, JobTreeUsage.ZOMBIES, r -> r.zombies);
    }

    private void gauge(MeterRegistry registry, MetricFamily family, ToDoubleFunction<Reading> f) {
        Gauge.builder(family.name(), this, m -> f.applyAsDouble(m.read())).baseUnit(Meters.unit(family))
                .description(family.help()).tags(tags).strongReference(true).register(registry);
    }

    private synchronized Reading read() {
        long now = System.nanoTime();
        if (reading == null || now - reading.atNanos > maxAge.toNanos()) {
            reading = Reading.of(table.snapshot(), rootPid, now);
        }
        return reading;
    }

    /** One reading of the tree. */
    private static final class Reading {
        long atNanos;
        double processes;
        double residentBytes;
        double virtualBytes;
        double threads;
        double cpuSeconds;
        double zombies;

        static Reading of(ProcessSnapshot snapshot, long rootPid, long atNanos) {
            Reading r = new Reading();
            r.atNanos = atNanos;
            ProcessTree tree = snapshot.tree();
            ProcessInfo root;
            try {
                root = snapshot.get(rootPid);
            } catch (NoSuchProcessException e) {
                return r;
            }
            List<ProcessInfo> all = new ArrayList<>();
            all.add(root);
            all.addAll(tree.descendants(rootPid));
            for (ProcessInfo p : all) {
                r.processes++;
                r.residentBytes += p.rssBytes();
                r.virtualBytes += p.vszBytes();
                r.threads += p.threads();
                r.cpuSeconds += p.cpuTime().toNanos() / 1e9;
                if (p.state() == ProcessState.ZOMBIE) {
                    r.zombies++;
                }
            }
            return r;
        }
    }
}
