package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.ExporterOptions;
import io.github.procscope.metrics.MetricsSources;
import io.github.procscope.metrics.ProcscopeCollector;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a default scrape's time goes: the reads it makes, timed one by one as the calling thread's CPU time,
 * interleaved round by round with the whole scrape ({@code collect}) and the C reader of the same files: the
 * snapshot alone, the snapshot with the facets a scrape asks for (open descriptors, I/O counters) and with the whole
 * status besides (what a scrape read before it read the status's counters alone), the soft limit on open files of
 * every process ({@code worst_fd_ratio}), the status counters of every process (swap, context switches summed over
 * threads: {@code statusCounters}, what a scrape reads now), and the threads of every multi-threaded process with
 * their whole status (the sums as a scrape read them before).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar -Dprocscope.bench.native=benchmarks/target/native
 * io.github.procscope.benchmarks.ScrapeSplitProbe [N] [ROUNDS]} (defaults 1,000 and 15, after 5 rounds of warm-up)
 * prints the medians.
 */
public final class ScrapeSplitProbe {
    private ScrapeSplitProbe() {
    }

    /**
     * @param args the fleet size and the number of measured rounds, both optional
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        if (n < 0 || rounds < 1) {
            throw new IllegalArgumentException("the fleet size must be at least 0 and the rounds at least 1");
        }
        NativeParts.Floor floor = NativeParts.floor();
        int capacity = n + 8192;
        com.sun.jna.Memory records = new com.sun.jna.Memory(capacity * floor.pf_scraped_size());
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        String[] names = {"snapshot (stat, statm, owner)", "snapshot with FDS, IO", "snapshot with FDS, IO, STATUS",
            "openFilesLimit, every process", "statusCounters, every process", "threads(STATUS), multi-threaded ones",
            "the whole scrape (collect)", "C reader of the same files"};
        long[][] took = new long[names.length][rounds];
        int processes = 0;
        int threads = 0;
        Set<Facet> scrapeFacets = EnumSet.of(Facet.FDS, Facet.IO);
        Set<Facet> wholeStatus = EnumSet.of(Facet.FDS, Facet.IO, Facet.STATUS);
        try (Fleet fleet = Fleet.start(n);
             ProcscopeCollector collector = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                     ExporterOptions.defaults().withHostname("bench"))) {
            ProcessTable table = Procscope.system().processes();
            System.out.printf("%d idle processes beside the system's, forked by %d%n", fleet.pids().length,
                    fleet.parentPid());
            for (int round = -5; round < rounds; round++) {
                long[] t = new long[names.length + 1];
                t[0] = cpu.getCurrentThreadCpuTime();
                table.snapshot();
                t[1] = cpu.getCurrentThreadCpuTime();
                ProcessSnapshot s = table.snapshot(scrapeFacets);
                t[2] = cpu.getCurrentThreadCpuTime();
                table.snapshot(wholeStatus);
                t[3] = cpu.getCurrentThreadCpuTime();
                for (ProcessInfo p : s.processes()) {
                    try {
                        table.openFilesLimit(p.pid());
                    } catch (ProcscopeException e) {
                        // gone or refused: as the scrape, it goes on
                    }
                }
                t[4] = cpu.getCurrentThreadCpuTime();
                for (ProcessInfo p : s.processes()) {
                    try {
                        table.statusCounters(p.pid());
                    } catch (ProcscopeException e) {
                        // gone or refused
                    }
                }
                t[5] = cpu.getCurrentThreadCpuTime();
                int th = 0;
                for (ProcessInfo p : s.processes()) {
                    if (p.threads() > 1) {
                        try {
                            th += table.threads(p.pid(), EnumSet.of(Facet.STATUS)).size();
                        } catch (ProcscopeException e) {
                            // gone or refused
                        }
                    }
                }
                t[6] = cpu.getCurrentThreadCpuTime();
                collector.collect();
                t[7] = cpu.getCurrentThreadCpuTime();
                floor.pf_scrape(records, capacity, NativeParts.Floor.SAME_FILES);
                t[8] = cpu.getCurrentThreadCpuTime();
                if (round >= 0) {
                    for (int k = 0; k < names.length; k++) {
                        took[k][round] = t[k + 1] - t[k];
                    }
                    processes = s.processes().size();
                    threads = th;
                }
            }
        }
        System.out.printf("%d processes, %d threads in multi-threaded ones (last round); CPU time, median of %d"
                + " rounds:%n", processes, threads, rounds);
        for (int k = 0; k < names.length; k++) {
            Arrays.sort(took[k]);
            System.out.printf("  %-42s %7.1f ms%n", names[k], took[k][rounds / 2] / 1e6);
        }
    }
}
