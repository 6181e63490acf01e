package io.github.procscope.cli;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.DiskStat;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.disk.IoStat;
import io.github.procscope.api.system.SystemResources;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code procscope iostat [INTERVAL [COUNT]]}: disk figures as {@code iostat -x} computes them. */
@Command(name = "iostat", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show disk activity, like iostat -x.",
                "From /proc/diskstats. Without INTERVAL: one report of the averages since boot. With "
                        + "INTERVAL: a report every INTERVAL of the activity during it, COUNT times (forever without "
                        + "COUNT; with --json a COUNT is required, so that the array ends).",
                "r/s w/s: requests completed per second; rkB/s wkB/s: KiB per second; r_await w_await: the "
                        + "average time of a request in ms, queueing included; aqu-sz: requests in flight on "
                        + "average; %%util: the share of time with a request in flight. Near 100%% a simple disk is "
                        + "saturated, but NVMe and RAID serve requests in parallel: look at await and aqu-sz for "
                        + "queueing.",
                "Devices that never did any I/O are left out unless --all is given."},
        footer = {"", "Examples:", "  procscope iostat", "  procscope iostat 1s 5", "  procscope --json iostat 2 3"})
final class IostatCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "INTERVAL", converter = DurationConverter.Interval.class,
            description = "Time between reports: 1s, 500ms, 2 (seconds).")
    Duration interval;

    @Parameters(index = "1", arity = "0..1", paramLabel = "COUNT", description = "How many reports (default: until interrupted).")
    Integer count;

    @Option(names = {"-a", "--all"}, description = "Include devices that never did any I/O (unused loop devices...).")
    boolean all;

    @Override
    public Integer call() throws InterruptedException {
        Context ctx = root.context();
        if (count != null && count < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "COUNT must be at least 1, not " + count);
        }
        if (interval != null && count == null && ctx.json()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "with --json, give a COUNT after the INTERVAL (the JSON array is printed when the reports end)");
        }
        SystemResources res = ctx.resources();
        DiskStats previous = res.diskStats();
        Set<String> active = active(previous);
        List<Row> arr = new java.util.ArrayList<>();
        if (interval == null) {
            report(ctx, arr, Instant.now(), previous.uptime(), IoStat.sinceBoot(previous), active, true);
        } else {
            for (int i = 0; count == null || i < count; i++) {
                Thread.sleep(interval.toMillis());
                DiskStats now = res.diskStats();
                if (now.uptime().compareTo(previous.uptime()) < 0) {
                    throw new ProcscopeException("the uptime in " + ctx.procfsRoot().resolve("uptime")
                            + " went backwards between two readings");
                }
                active.addAll(active(now));
                report(ctx, arr, Instant.now(), now.uptime().minus(previous.uptime()), IoStat.between(previous, now),
                        active, i == 0);
                previous = now;
            }
        }
        if (ctx.json()) {
            ctx.printJson(Json.of(arr));
        }
        return ProcscopeCli.OK;
    }

    private Set<String> active(DiskStats reading) {
        Set<String> out = new HashSet<>();
        for (DiskStat d : reading.devices()) {
            if (all || d.readsCompleted() != 0 || d.writesCompleted() != 0 || d.ioTime().toMillis() != 0) {
                out.add(d.name());
            }
        }
        return out;
    }

    private static void report(Context ctx, List<Row> arr, Instant time, Duration over, List<IoStat> stats,
                               Set<String> active, boolean first) {
        if (ctx.json()) {
            for (IoStat s : stats) {
                if (active.contains(s.name())) {
                    arr.add(Row.of(s, time, over));
                }
            }
            return;
        }
        if (!first) {
            ctx.out().println();
        }
        Table t = new Table().left("Device").right("r/s").right("w/s").right("rkB/s").right("wkB/s").right("r_await")
                .right("w_await").right("aqu-sz").right("%util");
        for (IoStat s : stats) {
            if (active.contains(s.name())) {
                t.row(s.name(), f(s.readsPerSecond()), f(s.writesPerSecond()), f(s.readKilobytesPerSecond()),
                        f(s.writeKilobytesPerSecond()), f(s.readAwaitMillis()), f(s.writeAwaitMillis()),
                        f(s.averageQueueSize()), f(s.utilizationPercent()));
            }
        }
        t.print(ctx.out(), ctx.width());
        ctx.out().flush();
    }

    /**
     * A device's row of {@code iostat}'s JSON: iostat -x's main columns, named as {@link IoStat}'s accessors and
     * rounded to two decimals as iostat prints them, with the time the counters were read.
     *
     * @param name                    as {@link IoStat#name()}
     * @param time                    when the counters were read
     * @param interval                as {@link IoStat#interval()}
     * @param readsPerSecond          as {@link IoStat#readsPerSecond()}
     * @param writesPerSecond         as {@link IoStat#writesPerSecond()}
     * @param readKilobytesPerSecond  as {@link IoStat#readKilobytesPerSecond()}
     * @param writeKilobytesPerSecond as {@link IoStat#writeKilobytesPerSecond()}
     * @param readAwaitMillis         as {@link IoStat#readAwaitMillis()}
     * @param writeAwaitMillis        as {@link IoStat#writeAwaitMillis()}
     * @param averageQueueSize        as {@link IoStat#averageQueueSize()}
     * @param utilizationPercent      as {@link IoStat#utilizationPercent()}
     */
    record Row(String name, Instant time, Duration interval, double readsPerSecond, double writesPerSecond,
               double readKilobytesPerSecond, double writeKilobytesPerSecond, double readAwaitMillis,
               double writeAwaitMillis, double averageQueueSize, double utilizationPercent) {
        static Row of(IoStat s, Instant time, Duration over) {
            return new Row(s.name(), time, over, Json.round2(s.readsPerSecond()), Json.round2(s.writesPerSecond()),
                    Json.round2(s.readKilobytesPerSecond()), Json.round2(s.writeKilobytesPerSecond()),
                    Json.round2(s.readAwaitMillis()), Json.round2(s.writeAwaitMillis()),
                    Json.round2(s.averageQueueSize()), Json.round2(s.utilizationPercent()));
        }
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
