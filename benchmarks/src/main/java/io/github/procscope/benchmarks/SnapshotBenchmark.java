package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import com.sun.jna.Memory;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The full-system snapshot, the {@code ps -e} fields (pid, ppid, state, comm, owner, RSS, VSZ, threads,
 * start time, CPU times), with a fleet of {@code fleetSize} idle processes up besides the system's own:
 * procscope, OSHI, {@link ProcessHandle} and the two C references.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class SnapshotBenchmark {

    /** How many idle processes the benchmark starts before measuring. */
    @Param({"100", "1000", "5000"})
    public int fleetSize;

    private Fleet fleet;
    private ProcessTable table;
    private OperatingSystem oshi;
    private NativeParts.Floor floor;
    private Memory floorRecords;
    private int floorCapacity;

    /**
     * Starts the fleet, checks that every reader sees it, and records the census.
     *
     * @param params the benchmark being set up
     */
    @Setup
    public void setUp(BenchmarkParams params) {
        fleet = Fleet.start(fleetSize);
        table = Procscope.system().processes();
        oshi = new SystemInfo().getOperatingSystem();
        floor = NativeParts.floor();
        floorCapacity = fleetSize + 8192;
        floorRecords = new Memory(floorCapacity * floor.pf_record_size());

        ProcessSnapshot first = table.snapshot();
        ProcessSnapshot second = table.snapshot();
        for (long pid : fleet.pids()) {
            if (second.find(pid).isEmpty()) {
                throw new IllegalStateException("procscope's snapshot misses fleet process " + pid);
            }
        }
        int inC = floor.pf_snapshot(floorRecords, floorCapacity, 1);
        if (inC < fleetSize) {
            throw new IllegalStateException("the C reference read " + inC + " processes, fewer than the fleet");
        }
        if (params.getBenchmark().endsWith(".procscope")) {
            census(second);
        }
        if (first.size() < fleetSize) {
            throw new IllegalStateException("the snapshot holds " + first.size() + " processes, fewer than the fleet");
        }
    }

    /** Records the processes in a snapshot and the bytes of the records one returns (median of five). */
    private void census(ProcessSnapshot second) {
        long[] fresh = new long[5];
        ProcessSnapshot earlier = second;
        int processes = second.size();
        for (int i = 0; i < fresh.length; i++) {
            ProcessSnapshot later = table.snapshot();
            fresh[i] = RetainedSize.fresh(earlier, later);
            processes = later.size();
            earlier = later;
        }
        Arrays.sort(fresh);
        Census.record(SnapshotBenchmark.class.getName() + ".procscope", fleetSize, processes,
                fresh[fresh.length / 2], RetainedSize.method());
    }

    /** Ends the fleet, each process by its pid. */
    @TearDown
    public void tearDown() {
        if (fleet != null) {
            fleet.close();
        }
    }

    /** @return procscope's snapshot */
    @Benchmark
    public ProcessSnapshot procscope() {
        return table.snapshot();
    }

    /** @return OSHI's process list */
    @Benchmark
    public List<OSProcess> oshi() {
        return oshi.getProcesses();
    }

    /**
     * Every process through {@link ProcessHandle}: the parent and the {@code info()} fields (command, user,
     * start, CPU time); ProcessHandle has no state, RSS, VSZ or thread count.
     *
     * @param bh the sink
     */
    @Benchmark
    public void processHandle(Blackhole bh) {
        ProcessHandle.allProcesses().forEach(h -> {
            ProcessHandle.Info info = h.info();
            bh.consume(h.pid());
            bh.consume(h.parent());
            bh.consume(info.command());
            bh.consume(info.user());
            bh.consume(info.startInstant());
            bh.consume(info.totalCpuDuration());
        });
    }

    /** @return processes read by the C floor: {@code /proc/PID/stat} parsed and {@code /proc/PID} stat()ed */
    @Benchmark
    public int cFloor() {
        return floor.pf_snapshot(floorRecords, floorCapacity, 0);
    }

    /** @return processes read by the C reference that also reads {@code /proc/PID/statm}, as procscope does */
    @Benchmark
    public int cEqualWork() {
        return floor.pf_snapshot(floorRecords, floorCapacity, 1);
    }
}
