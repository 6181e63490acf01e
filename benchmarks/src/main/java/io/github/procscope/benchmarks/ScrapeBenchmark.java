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
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
 * </ul>
 * No GPU and no doctor: the doctor runs on its own thread, not in the scrape. Run with {@code -prof gc} for the
 * allocation per scrape.
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

    /** Starts the fleet and checks that a scrape counts it. */
    @Setup
    public void setUp() throws IOException {
        fleet = Fleet.start(fleetSize);
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
        String text = render(processes);
        String idle = "namedprocess_namegroup_num_procs{groupname=\"idle\"} ";
        int at = text.indexOf(idle);
        if (at < 0 || Double.parseDouble(text.substring(at + idle.length(), text.indexOf('\n', at))) < fleetSize) {
            throw new IllegalStateException("a scrape does not count the fleet of " + fleetSize + " idle processes");
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
        return table.snapshot();
    }

    /** @return processes read by the C floor of a scrape (descriptors counted by the size of the fd directory) */
    @Benchmark
    public int cScrapeFloor() {
        return floor.pf_scrape(floorRecords, floorCapacity, 1);
    }

    /** @return processes read by the C floor of a scrape with every fd directory listed */
    @Benchmark
    public int cScrapeFloorListing() {
        return floor.pf_scrape(floorRecords, floorCapacity, 0);
    }

    /**
     * @return the bytes of one {@code /metrics} body: process groups and zombies
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrape() throws IOException {
        body.reset();
        writer.write(body, processes.collect(), EscapingScheme.ALLOW_UTF8);
        return body.size();
    }

    /**
     * @return the bytes of one {@code /metrics} body with the groups of command-name and command-line rules
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrapeRules() throws IOException {
        body.reset();
        writer.write(body, rules.collect(), EscapingScheme.ALLOW_UTF8);
        return body.size();
    }

    /**
     * @return the bytes of one {@code /metrics} body with the deleted-but-open files scan
     * @throws IOException never (the body is in memory)
     */
    @Benchmark
    public int scrapeWithDeletedFiles() throws IOException {
        body.reset();
        writer.write(body, withDeleted.collect(), EscapingScheme.ALLOW_UTF8);
        return body.size();
    }
}
