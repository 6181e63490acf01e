package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.family.JobTreeUsage;
import io.github.procscope.metrics.model.MetricFamily;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.Objects;

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
 * (the families of {@link JobTreeUsage}, names as Prometheus writes them), tagged {@code root_pid}. The collector
 * behind {@code procscope serve} exports the same families for the jobs its sources name, labelled {@code job_id}
 * and {@code root_pid}: tag a binder with {@code job_id} ({@link JobTreeUsage#JOB_ID}) and its series are those.
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
    private JobTreeUsage.Totals reading;
    private long readAtNanos;

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
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags")).and(JobTreeUsage.ROOT_PID, Long.toString(rootPid));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (MetricFamily family : JobTreeUsage.FAMILIES) {
            Gauge.builder(family.name(), this, m -> m.read().of(family)).baseUnit(Meters.unit(family))
                    .description(family.help()).tags(tags).strongReference(true).register(registry);
        }
    }

    private synchronized JobTreeUsage.Totals read() {
        long now = System.nanoTime();
        if (reading == null || now - readAtNanos > maxAge.toNanos()) {
            ProcessSnapshot snapshot = table.snapshot();
            reading = snapshot.find(rootPid).map(root -> JobTreeUsage.Totals.of(snapshot, root))
                    .orElse(JobTreeUsage.Totals.NONE);
            readAtNanos = now;
        }
        return reading;
    }
}
