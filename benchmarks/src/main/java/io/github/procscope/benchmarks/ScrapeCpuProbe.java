package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import com.sun.jna.Memory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.ExporterOptions;
import io.github.procscope.metrics.MetricsSources;
import io.github.procscope.metrics.ProcscopeCollector;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * {@link ScrapeBenchmark}'s {@code cScrapeFloor}, {@code scrape} and {@code snapshot} timed as the calling thread's
 * CPU time (kernel time of its reads included), interleaved round by round: on a machine so loaded that wall times
 * say more about the scheduler than about the work, and JMH runs one benchmark after the other under changing
 * load, this keeps the ratio to the C floor steady. Garbage collection and compilation, on other threads, are not
 * in it; JMH's figures (wall time, allocation) are the ones quoted first.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar -Dprocscope.bench.native=benchmarks/target/native
 * io.github.procscope.benchmarks.ScrapeCpuProbe [N] [ROUNDS]} (defaults 5,000 and 15, after 5 rounds of warm-up)
 * prints the medians and ratios.
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
        if (n < 1 || rounds < 1) {
            throw new IllegalArgumentException("the fleet size and the rounds must be at least 1");
        }
        NativeParts.Floor floor = NativeParts.floor();
        int capacity = n + 8192;
        Memory records = new Memory(capacity * floor.pf_scraped_size());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String[] names = {"cScrapeFloor", "scrape", "snapshot"};
        long[][] cpu = new long[names.length][rounds];
        long[][] wall = new long[names.length][rounds];
        try (Fleet fleet = Fleet.start(n)) {
            System.out.printf("%d idle processes beside the system's, forked by %d%n", fleet.pids().length,
                    fleet.parentPid());
            ProcessTable table = Procscope.system().processes();
            ExporterOptions options = ExporterOptions.defaults().withHostname("bench");
            try (ProcscopeCollector collector = new ProcscopeCollector(MetricsSources.of(table), options)) {
                PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
                ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 20);
                for (int round = -5; round < rounds; round++) {
                    for (int k = 0; k < names.length; k++) {
                        long c0 = threads.getCurrentThreadCpuTime();
                        long w0 = System.nanoTime();
                        if (k == 0) {
                            floor.pf_scrape(records, capacity, 1);
                        } else if (k == 1) {
                            body.reset();
                            writer.write(body, collector.collect(), EscapingScheme.ALLOW_UTF8);
                        } else {
                            table.snapshot();
                        }
                        if (round >= 0) {
                            cpu[k][round] = threads.getCurrentThreadCpuTime() - c0;
                            wall[k][round] = System.nanoTime() - w0;
                        }
                    }
                }
            }
        }
        double[] median = new double[names.length];
        for (int k = 0; k < names.length; k++) {
            Arrays.sort(cpu[k]);
            Arrays.sort(wall[k]);
            median[k] = cpu[k][rounds / 2] / 1e6;
            System.out.printf("%-13s CPU median %.1f ms, wall median %.1f ms%n", names[k], median[k],
                    wall[k][rounds / 2] / 1e6);
        }
        System.out.printf("scrape / C floor: %.2fx; snapshot / C floor: %.2fx (CPU time)%n", median[1] / median[0],
                median[2] / median[0]);
    }
}
