package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

import java.util.concurrent.TimeUnit;

/**
 * One process in depth: {@code /proc/PID/status}, the totals of {@code /proc/PID/smaps_rollup} and the
 * open descriptors. The process is the benchmark JVM itself: a realistic Java process, with its compiler,
 * GC and JMH threads, its open jars and pipes, and hundreds of mappings.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
public class DepthBenchmark {
    private long pid;
    private ProcessTable table;
    private ProcessMemory memory;
    private OpenFiles files;
    private OperatingSystem oshi;

    /** Opens the readers. */
    @Setup
    public void setUp() {
        pid = ProcessHandle.current().pid();
        table = Procscope.system().processes();
        memory = Procscope.system().memory();
        files = Procscope.system().openFiles();
        oshi = new SystemInfo().getOperatingSystem();
    }

    /**
     * procscope: status, smaps_rollup totals (PSS, USS, swap, ...) and every descriptor with its target,
     * kind, flags and position.
     *
     * @param bh the sink
     */
    @Benchmark
    public void procscope(Blackhole bh) {
        bh.consume(table.status(pid));
        bh.consume(memory.totals(pid));
        bh.consume(files.fds(pid));
    }

    /**
     * OSHI's nearest equivalent: the process (stat, status, io, cmdline and more, read when it is made),
     * its resident and private memory and its count of open files.
     *
     * @param bh the sink
     */
    @Benchmark
    public void oshi(Blackhole bh) {
        OSProcess p = oshi.getProcess((int) pid);
        bh.consume(p.getState());
        bh.consume(p.getThreadCount());
        bh.consume(p.getResidentMemory());
        bh.consume(p.getPrivateResidentMemory());
        bh.consume(p.getVirtualSize());
        bh.consume(p.getVoluntaryContextSwitches());
        bh.consume(p.getInvoluntaryContextSwitches());
        bh.consume(p.getUser());
        bh.consume(p.getOpenFiles());
    }
}
