package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.ExporterOptions;
import io.github.procscope.metrics.MetricsSources;
import io.github.procscope.metrics.ProcessGrouper;
import io.github.procscope.metrics.ProcscopeCollector;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import com.sun.jna.Memory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

/**
 * One Prometheus scrape of {@code procscope serve}'s collector with a fleet of {@code fleetSize} idle processes up
 * besides the system's own, against the process snapshot alone (the floor every scrape pays) in the same run:
 *
 * <ul>
 *   <li>{@code snapshot}: {@code ProcessTable.snapshot()}, the peer</li>
 *   <li>{@code cScrapeFloor}: the C reference of {@code src/main/c/floor.c} ({@code pf_scrape}) reading and
 *       parsing the files a default scrape reads per process, in the way the scrape reads them: {@code stat},
 *       {@code statm}, the owner of {@code /proc/PID}, {@code io}, and the open descriptors counted from the size
 *       of {@code /proc/PID/fd} (listed where that is 0); the floor of {@code scrape}, in the same run</li>
 *   <li>{@code cScrapeFloorListing}: the same with every {@code /proc/PID/fd} listed, as kernels before 6.2
 *       require</li>
 *   <li>{@code scrape}: the collector (groups by command name with their open descriptors and I/O counters,
 *       zombies) and the Prometheus text rendering of its answer: the body of {@code /metrics}, as
 *       {@code procscope serve} answers it by default</li>
 *   <li>{@code scrapeRules}: the same with the groups of two rules, one on the command name and one on the
 *       command line ({@code --group-by 'idle=cmdline:idle' --group-by 'other=.*'}): the group of a process is
 *       decided when it is first seen, so a scrape reads no command line of a process seen before</li>
 *   <li>{@code scrapeWithDeletedFiles}: the same plus the deleted-but-open files scan in the scrape
 *       ({@code --deleted-files-every 0}; by default {@code serve} scans on a thread of its own)</li>
 *   <li>{@code cScrapeSameFiles}: the C reference reading every file {@code scrape} reads today: the floor's, plus
 *       {@code status} and {@code limits} of every process and each thread's {@code stat} and {@code status} of a
 *       process of several threads (context switches summed over threads, as process-exporter reports them);
 *       the reference for {@code scrapeRules} too, which reads a command line only at a process's first sight</li>
 *   <li>{@code exporterScrape}, {@code exporterScrapeRules}: one HTTP scrape of {@code /metrics} of
 *       prometheus-process-exporter ({@link ProcessExporter}), started by the benchmark with the configuration
 *       equivalent to {@code scrape}'s (every process by its command name) and {@code scrapeRules}'s (the same two
 *       rules), {@code -threads=false -gather-smaps=false} as {@code serve}'s defaults</li>
 * </ul>
 * No GPU and no doctor: the doctor runs on its own thread, not in the scrape. Run with {@code -prof gc} for the
 * allocation per scrape.
 *
 * <p><b>CPU per scrape.</b> Each measured iteration also prints (and appends to the file named by the system
 * property {@value #CPU_PROPERTY}, if set) the CPU time per operation: for the methods run in this JVM, the
 * calling thread's CPU time of the operations and this JVM's process CPU time (its garbage collection and
 * compilation included) over the iteration; for the exporter, its process CPU time over the iteration from
 * {@code /proc/PID/stat}. A line is {@code cpu METHOD fleetSize=N iteration=I ops=K thread_ms=T process_ms=P}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ScrapeBenchmark {

    /** How many idle processes the benchmark starts before measuring. */
    @Param({"1000", "5000"})
    public int fleetSize;

    private Fleet fleet;
    private ProcessTable table;
    private ProcscopeCollector processes;
    private ProcscopeCollector withDeleted;
    private ProcscopeCollector rules;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 20);
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private NativeParts.Floor floor;
    private Memory floorRecords;
    private int floorCapacity;
    private ProcessExporter exporter;
    private ProcessExporter exporterRules;

    /** The system property naming a file to append the CPU time per operation to. */
    public static final String CPU_PROPERTY = "procscope.bench.cpu";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long ops;
    private long threadCpuNanos;
    private long processCpuAtStart;
    private long exporterTicksAtStart;
    private ProcessExporter measured;

    /**
     * Starts the fleet and checks that a scrape counts it; starts process-exporter for the methods that scrape it.
     *
     * @param params which benchmark this fork runs
     */
    @Setup
    public void setUp(BenchmarkParams params) throws IOException {
        fleet = Fleet.start(fleetSize);
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        if (method.equals("exporterScrape")) {
            exporter = ProcessExporter.start(ProcessExporter.BY_COMMAND_NAME);
            measured = exporter;
            requireFleetCounted(exporter.lastBody(), "idle", "prometheus-process-exporter");
        } else if (method.equals("exporterScrapeRules")) {
            exporterRules = ProcessExporter.start(ProcessExporter.BY_RULES);
            measured = exporterRules;
            requireFleetCounted(exporterRules.lastBody(), "idle", "prometheus-process-exporter with rules");
        }
        table = Procscope.system().processes();
        ExporterOptions options = ExporterOptions.defaults().withHostname("bench");
        processes = new ProcscopeCollector(MetricsSources.of(table), options);
        withDeleted = new ProcscopeCollector(MetricsSources.of(table).withOpenFiles(Procscope.system().openFiles()), options);
        rules = new ProcscopeCollector(MetricsSources.of(table), options.withGrouper(ProcessGrouper.matching(
                java.util.List.of(ProcessGrouper.Rule.parse("idle=cmdline:idle"),
                        ProcessGrouper.Rule.parse("other=.*")))));
        floor = NativeParts.floor();
        floorCapacity = fleetSize + 8192;
        floorRecords = new Memory(floorCapacity * floor.pf_scraped_size());
        int inC = floor.pf_scrape(floorRecords, floorCapacity, 1);
        if (inC < fleetSize) {
            throw new IllegalStateException("the C scrape floor read " + inC + " processes, fewer than the fleet");
        }
        requireFleetCounted(render(processes), "idle", "a scrape");
        requireFleetCounted(render(rules), "idle", "a scrape by rules");
        int inAll = floor.pf_scrape(floorRecords, floorCapacity, NativeParts.Floor.SAME_FILES);
        if (inAll < fleetSize) {
            throw new IllegalStateException("the C reader of the same files read " + inAll + " processes");
        }
    }

    private void requireFleetCounted(String text, String group, String who) {
        String series = "namedprocess_namegroup_num_procs{groupname=\"" + group + "\"} ";
        int at = text.indexOf(series);
        if (at < 0 || Double.parseDouble(text.substring(at + series.length(), text.indexOf('\n', at))) < fleetSize) {
            throw new IllegalStateException(who + " does not count the fleet of " + fleetSize + " idle processes");
        }
    }

    /** Starts the CPU accounting of an iteration. */
    @Setup(Level.Iteration)
    public void startIteration() {
        ops = 0;
        threadCpuNanos = 0;
        processCpuAtStart = OS.getProcessCpuTime();
        exporterTicksAtStart = measured != null ? measured.cpuTicks() : 0;
    }

    /**
     * Prints the CPU time per operation of the iteration that ended (and appends it to the file of
     * {@value #CPU_PROPERTY}).
     *
     * @param benchmark which benchmark
     * @param iteration which iteration
     */
    @TearDown(Level.Iteration)
    public void endIteration(BenchmarkParams benchmark, IterationParams iteration) throws IOException {
        if (ops == 0) {
            return;
        }
        double threadMs;
        double processMs;
        if (measured != null) {
            threadMs = Double.NaN;
            processMs = (measured.cpuTicks() - exporterTicksAtStart) * 1000.0 / CpuTime.TICKS_PER_SECOND / ops;
        } else {
            threadMs = threadCpuNanos / 1e6 / ops;
            processMs = (OS.getProcessCpuTime() - processCpuAtStart) / 1e6 / ops;
        }
        String method = benchmark.getBenchmark().substring(benchmark.getBenchmark().lastIndexOf('.') + 1);
        String line = String.format(java.util.Locale.ROOT, "cpu %s fleetSize=%d iteration=%s ops=%d thread_ms=%.3f"
                + " process_ms=%.3f%n", method, fleetSize, iteration.getType() == IterationType.WARMUP ? "warmup"
                : "measurement", ops, threadMs, processMs);
        System.out.print(line);
        String file = System.getProperty(CPU_PROPERTY);
        if (file != null && iteration.getType() == IterationType.MEASUREMENT) {
            java.nio.file.Files.writeString(java.nio.file.Path.of(file), line, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
    }

    private String render(ProcscopeCollector c) throws IOException {
        body.reset();
        writer.write(body, c.collect(), EscapingScheme.ALLOW_UTF8);
        return body.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Ends the fleet, each process by its pid. */
    @TearDown
    public void tearDown() {
        if (exporter != null) {
            exporter.close();
        }
        if (exporterRules != null) {
            exporterRules.close();
        }
        processes.close();
        withDeleted.close();
        rules.close();
        if (fleet != null) {
            fleet.close();
        }
    }

    /** @return the process snapshot alone: what every scrape pays at least */
    @Benchmark
    public ProcessSnapshot snapshot() {
        long c0 = THREADS.getCurrentThreadCpuTime();
        ProcessSnapshot s = table.snapshot();
        counted(c0);
        return s;
    }

    /** Counts one operation and the calling thread's CPU time since {@code c0}. */
    private void counted(long c0) {
        threadCpuNanos += THREADS.getCurrentThreadCpuTime() - c0;
        ops++;
    }

    /** @return processes read by the C floor of a scrape (descriptors counted by the size of the fd directory) */
    @Benchmark
    public int cScrapeFloor() {
        long c0 = THREADS.getCurrentThreadCpuTime();
        int n = floor.pf_scrape(floorRecords, floorCapacity, NativeParts.Floor.FD_BY_SIZE);
        counted(c0);
        return n;
    }

    /** @return processes read by the C floor of a scrape with every fd directory listed */
    @Benchmark
    public int cScrapeFloorListing() {
        long c0 = THREADS.getCurrentThreadCpuTime();
        int n = floor.pf_scrape(floorRecords, floorCapacity, 0);
        counted(c0);
        return n;
    }

    /** @return processes read by the C reader of every file a scrape reads (status, limits, threads too) */
    @Benchmark
    public int cScrapeSameFiles() {
        long c0 = THREADS.getCurrentThreadCpuTime();
        int n = floor.pf_scrape(floorRecords, floorCapacity, NativeParts.Floor.SAME_FILES);
        counted(c0);
        return n;
    }

    /** @return the bytes of one HTTP scrape of process-exporter grouping by command name */
    @Benchmark
    public int exporterScrape() {
        int n = exporter.scrape();
        ops++;
        return n;
    }

    /** @return the bytes of one HTTP scrape of process-exporter grouping by the two rules */
    @Benchmark
    public int exporterScrapeRules() {
        int n = exporterRules.scrape();
        ops++;
        return n;
    }

    /**
     * @return the bytes of one {@code /metrics} body: process groups and zombies
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrape() throws IOException {
        long c0 = THREADS.getCurrentThreadCpuTime();
        body.reset();
        writer.write(body, processes.collect(), EscapingScheme.ALLOW_UTF8);
        counted(c0);
        return body.size();
    }

    /**
     * @return the bytes of one {@code /metrics} body with the groups of command-name and command-line rules
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrapeRules() throws IOException {
        long c0 = THREADS.getCurrentThreadCpuTime();
        body.reset();
        writer.write(body, rules.collect(), EscapingScheme.ALLOW_UTF8);
        counted(c0);
        return body.size();
    }

    /**
     * @return the bytes of one {@code /metrics} body with the deleted-but-open files scan
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrapeWithDeletedFiles() throws IOException {
        long c0 = THREADS.getCurrentThreadCpuTime();
        body.reset();
        writer.write(body, withDeleted.collect(), EscapingScheme.ALLOW_UTF8);
        counted(c0);
        return body.size();
    }
}
