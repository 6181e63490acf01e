package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Refreshing a 20-process job with {@link JobTree} (children lists: the tree's files only) against what a caller
 * did before it: a full snapshot and the root's descendants in it, with {@code fleetSize} idle processes up besides.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class JobTreeBenchmark {
    /** Idle processes besides the job and the system's own. */
    @Param({"5000"})
    public int fleetSize;

    private Fleet fleet;
    private Process job;
    private ProcessTable table;
    private JobTree tree;
    private ProcessKey root;

    /** Starts the fleet and the job (a shell with 19 sleeping children), and opens the tree. */
    @Setup
    public void setUp() throws Exception {
        fleet = Fleet.start(fleetSize);
        job = new ProcessBuilder("sh", "-c", "for i in $(seq 19); do sleep 3600 & done; echo ready; wait").start();
        BufferedReader out = new BufferedReader(new InputStreamReader(job.getInputStream(), StandardCharsets.UTF_8));
        if (!"ready".equals(out.readLine())) {
            throw new IllegalStateException("the job did not start");
        }
        table = Procscope.system().processes();
        root = table.process(job.pid(), Set.of()).key();
        tree = Procscope.system().jobTree(root, JobTreeOptions.basic());
        JobSample s = tree.refresh();
        if (s.members().size() != 20) {
            throw new IllegalStateException("the job has " + s.members().size() + " processes, not 20");
        }
        if (table.snapshot().size() < fleetSize) {
            throw new IllegalStateException("the fleet is not up");
        }
    }

    /** Ends the job and the fleet, by their pids. */
    @TearDown
    public void tearDown() throws Exception {
        job.descendants().forEach(ProcessHandle::destroyForcibly);
        job.destroyForcibly();
        job.waitFor();
        fleet.close();
    }

    /** @return one refresh of the job's tree */
    @Benchmark
    public JobSample jobTreeRefresh() {
        return tree.refresh();
    }

    /** @return the job's processes the old way: a snapshot of the machine, then the root's descendants in it */
    @Benchmark
    public List<ProcessInfo> fullSnapshot() {
        ProcessSnapshot s = table.snapshot();
        return s.tree().descendants(root.pid());
    }
}
