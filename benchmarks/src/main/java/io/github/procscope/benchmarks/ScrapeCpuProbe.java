package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import com.sun.jna.Memory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.ExporterOptions;
import io.github.procscope.metrics.MetricsSources;
import io.github.procscope.metrics.ProcessGrouper;
import io.github.procscope.metrics.ProcscopeCollector;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;

/**
 * {@link ScrapeBenchmark}'s {@code cScrapeFloor}, {@code scrape}, {@code snapshot}, {@code cScrapeSameFiles} and
 * {@code scrapeRules} (and with {@code exporter}, {@code exporterScrape} and {@code exporterScrapeRules}) timed as the calling thread's
 * CPU time (kernel time of its reads included), interleaved round by round: on a machine so loaded that wall times
 * say more about the scheduler than about the work, and JMH runs one benchmark after the other under changing
 * load, this keeps the ratio to the C floor steady. Garbage collection and compilation, on other threads, are not
 * in it; JMH's figures (wall time, allocation) are the ones quoted first.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar -Dprocscope.bench.native=benchmarks/target/native
 * io.github.procscope.benchmarks.ScrapeCpuProbe [N] [ROUNDS] [WARMUP] [exporter]} (defaults 5,000, 15 and 5 rounds
 * of warm-up) prints the medians and ratios. With {@code exporter} it also starts prometheus-process-exporter twice
 * ({@link ProcessExporter}: by command name and by the rules of {@code scrapeRules}) and scrapes each once a round:
 * its CPU time is the exporter process's, in clock ticks, summed over the measured rounds, so every column of a
 * round reads the same process table.
 */
public final class ScrapeCpuProbe {
    private ScrapeCpuProbe() {
    }

    /**
     * @param args the fleet size and the number of measured rounds, both optional
     * @throws IOException never (the body is in memory)
     */
    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        boolean exporters = args.length > 3 && args[3].equals("exporter");
        if (n < 1 || rounds < 1 || warmup < 0) {
            throw new IllegalArgumentException("the fleet size and the rounds must be at least 1, the warm-up 0");
        }
        NativeParts.Floor floor = NativeParts.floor();
        int capacity = n + 8192;
        Memory records = new Memory(capacity * floor.pf_scraped_size());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String[] names = exporters
                ? new String[] {"cScrapeFloor", "scrape", "snapshot", "cScrapeSameFiles", "scrapeRules",
                    "exporterScrape", "exporterScrapeRules"}
                : new String[] {"cScrapeFloor", "scrape", "snapshot", "cScrapeSameFiles", "scrapeRules"};
        long[][] cpu = new long[names.length][rounds];
        long[][] wall = new long[names.length][rounds];
        long[] exporterTicks = new long[names.length];
        try (Fleet fleet = Fleet.start(n);
             ProcessExporter byName = exporters ? ProcessExporter.start(ProcessExporter.BY_COMMAND_NAME) : null;
             ProcessExporter byRules = exporters ? ProcessExporter.start(ProcessExporter.BY_RULES) : null) {
            System.out.printf("%d idle processes beside the system's, forked by %d%n", fleet.pids().length,
                    fleet.parentPid());
            ProcessTable table = Procscope.system().processes();
            ExporterOptions options = ExporterOptions.defaults().withHostname("bench");
            ExporterOptions rules = options.withGrouper(ProcessGrouper.matching(List.of(
                    ProcessGrouper.Rule.parse("idle=cmdline:idle"), ProcessGrouper.Rule.parse("other=.*"))));
            try (ProcscopeCollector collector = new ProcscopeCollector(MetricsSources.of(table), options);
                 ProcscopeCollector byRule = new ProcscopeCollector(MetricsSources.of(table), rules)) {
                PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
                ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 20);
                for (int round = -warmup; round < rounds; round++) {
                    for (int k = 0; k < names.length; k++) {
                        long c0 = threads.getCurrentThreadCpuTime();
                        long w0 = System.nanoTime();
                        long t0 = k >= 5 ? (k == 5 ? byName : byRules).cpuTicks() : 0;
                        switch (k) {
                            case 0 -> floor.pf_scrape(records, capacity, 1);
                            case 1 -> {
                                body.reset();
                                writer.write(body, collector.collect(), EscapingScheme.ALLOW_UTF8);
                            }
                            case 2 -> table.snapshot();
                            case 3 -> floor.pf_scrape(records, capacity, NativeParts.Floor.SAME_FILES);
                            case 4 -> {
                                body.reset();
                                writer.write(body, byRule.collect(), EscapingScheme.ALLOW_UTF8);
                            }
                            default -> (k == 5 ? byName : byRules).scrape();
                        }
                        if (round >= 0) {
                            cpu[k][round] = threads.getCurrentThreadCpuTime() - c0;
                            wall[k][round] = System.nanoTime() - w0;
                            if (k >= 5) {
                                exporterTicks[k] += (k == 5 ? byName : byRules).cpuTicks() - t0;
                            }
                        }
                    }
                }
            }
        }
        double[] median = new double[names.length];
        for (int k = 0; k < names.length; k++) {
            double mean = Arrays.stream(cpu[k]).average().orElse(0) / 1e6;
            Arrays.sort(cpu[k]);
            Arrays.sort(wall[k]);
            median[k] = cpu[k][rounds / 2] / 1e6;
            if (k >= 5) {
                // the exporter's own CPU time, in clock ticks: a mean over the rounds, not a median of 10 ms steps
                median[k] = exporterTicks[k] * 1000.0 / CpuTime.TICKS_PER_SECOND / rounds;
                System.out.printf("%-19s exporter process CPU mean %.1f ms, wall median %.1f ms%n", names[k],
                        median[k], wall[k][rounds / 2] / 1e6);
            } else {
                System.out.printf("%-19s CPU median %.1f ms (mean %.1f), wall median %.1f ms%n", names[k],
                        median[k], mean, wall[k][rounds / 2] / 1e6);
            }
        }
        System.out.printf("scrape / C floor: %.2fx; snapshot / C floor: %.2fx; scrape / C of the same files: %.2fx;"
                + " scrapeRules / C of the same files: %.2fx (CPU time of this thread)%n", median[1] / median[0],
                median[2] / median[0], median[1] / median[3], median[4] / median[3]);
        if (exporters) {
            System.out.printf("exporter / scrape: %.2fx by command name, %.2fx by rules (exporter's process CPU over"
                    + " this thread's)%n", median[5] / median[1], median[6] / median[4]);
        }
    }
}
