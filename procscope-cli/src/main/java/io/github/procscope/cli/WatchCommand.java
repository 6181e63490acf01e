package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.Facet;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessState;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code procscope watch PID}: the resident memory, CPU, threads and GPU memory of a process tree over time: the
 * RSS timeline that shows a leak before the OOM killer ends the run.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Follow the RSS, CPU, threads and GPU memory of a process tree.",
                "A process and all its descendants over time: total RSS, CPU (percent of one CPU over each "
                        + "interval, as top computes it), threads, processes, and GPU memory (NVML's figure for the "
                        + "tree's pids; empty without a GPU). A steady RSS climb is a leak: the OOM killer ends such "
                        + "a run with SIGKILL (exit status 137) and leaves no trace in its own logs.",
                "On a terminal: one live line with a sparkline of RSS. Otherwise (a pipe, a file) or with "
                        + "--rows: CSV rows, or one JSON object per line with --json. It ends after --count rows, or "
                        + "when the process exits (the pid is checked with its start time, so a recycled pid is not "
                        + "followed)."},
        footer = {"", "Examples:", "  procscope watch 4121", "  procscope watch 4121 --interval 10s --count 360 > rss.csv",
                "  procscope --json watch 4121 --count 5"})
final class WatchCommand implements Callable<Integer> {
    private static final String BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
    private static final int SPARK = 24;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

    @ParentCommand
    ProcscopeCli root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PID", converter = PidConverter.class, description = "The root of the tree.")
    long pid;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Time between rows (default: 1s).")
    Duration interval = Duration.ofSeconds(1);

    @Option(names = "--count", paramLabel = "N", description = "How many rows (default: until the process exits).")
    Integer count;

    @Option(names = "--live", description = "The live line even when standard output is not a terminal.")
    boolean live;

    @Option(names = "--rows", description = "Rows even on a terminal.")
    boolean rows;

    /** One row: the tree at one moment. */
    record Row(Instant time, long pid, int processes, int threads, long rssBytes, OptionalDouble cpuPercent,
               OptionalLong gpuMemoryBytes) {
    }

    @Override
    public Integer call() throws InterruptedException {
        if (interval.toMillis() < 10) {
            throw usage("--interval must be at least 10ms, not " + interval);
        }
        if (count != null && count < 1) {
            throw usage("--count must be at least 1, not " + count);
        }
        if (live && rows) {
            throw usage("--live and --rows cannot be combined");
        }
        Context ctx = root.context();
        boolean liveLine = live || (!rows && !ctx.json() && ctx.stdoutIsTerminal());
        ProcessSnapshot previous = ctx.procfs().snapshot(Set.of(Facet.CGROUP));
        ProcessInfo first = previous.find(pid).orElseThrow(() -> new NoSuchProcessException(pid));
        ProcessKey key = first.key();
        Gpus gpus = null;
        try {
            gpus = ctx.openGpus();
        } catch (GpuUnavailableException e) {
            if (liveLine) {
                ctx.err().println("(no GPU figures: " + ProcscopeCli.message(e) + ")");
            }
        }
        PrintStream out = ctx.out();
        if (!liveLine && !ctx.json()) {
            out.println("time,pid,processes,threads,rssBytes,cpuPercent,gpuMemoryBytes");
        }
        Deque<Long> history = new ArrayDeque<>();
        Row start = null;
        Row last = null;
        try {
            for (int i = 0; count == null || i < count; i++) {
                Thread.sleep(interval.toMillis());
                ProcessSnapshot now = ctx.procfs().snapshot();
                Optional<ProcessInfo> rootNow = now.find(key);
                if (rootNow.isEmpty() || rootNow.get().state() == ProcessState.ZOMBIE) {
                    if (liveLine) {
                        out.println();
                    }
                    ctx.err().println("procscope watch: process " + pid + " (" + Table.printable(first.comm())
                            + ") ended");
                    break;
                }
                Row row = row(previous, now, gpus == null ? null : GpuCommand.memoryByPid(gpus));
                if (start == null) {
                    start = row;
                }
                last = row;
                if (liveLine) {
                    history.addLast(row.rssBytes());
                    if (history.size() > SPARK) {
                        history.removeFirst();
                    }
                    out.print("\r" + liveLine(first, row, start, history) + "\u001b[K");
                } else if (ctx.json()) {
                    ctx.printJsonLine(json(row, first.owner()));
                } else {
                    out.println(csv(row));
                }
                out.flush();
                previous = now;
            }
        } finally {
            if (gpus != null) {
                gpus.close();
            }
        }
        if (liveLine && last != null) {
            out.println();
            out.printf("RSS %s -> %s (%s) over %s%n", Units.bytes(start.rssBytes()), Units.bytes(last.rssBytes()),
                    signedBytes(last.rssBytes() - start.rssBytes()),
                    Units.elapsed(Duration.between(start.time(), last.time())));
        }
        return ProcscopeCli.OK;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** @return the tree under the watched pid in {@code now}, with CPU measured since {@code previous} */
    Row row(ProcessSnapshot previous, ProcessSnapshot now, Map<Long, Long> gpuMemory) {
        ProcessTree tree = now.tree();
        List<ProcessInfo> members = new ArrayList<>();
        members.add(now.get(pid));
        members.addAll(tree.descendants(pid));
        long rss = 0;
        int threads = 0;
        long cpuNanos = 0;
        long gpu = 0;
        boolean anyGpu = false;
        for (ProcessInfo p : members) {
            rss += p.rssBytes();
            threads += p.threads();
            Optional<ProcessInfo> before = previous.find(p.key());
            // A member that was not there before started during the interval: all its CPU time is new.
            cpuNanos += p.cpuTime().toNanos() - before.map(b -> b.cpuTime().toNanos()).orElse(0L);
            if (gpuMemory != null && gpuMemory.containsKey(p.pid())) {
                gpu += gpuMemory.get(p.pid());
                anyGpu = true;
            }
        }
        long wallNanos = now.uptime().toNanos() - previous.uptime().toNanos();
        OptionalDouble cpu = wallNanos > 0
                ? OptionalDouble.of(Math.round(1000.0 * Math.max(0, cpuNanos) / wallNanos) / 10.0) : OptionalDouble.empty();
        OptionalLong gpuBytes = gpuMemory == null ? OptionalLong.empty() : OptionalLong.of(anyGpu ? gpu : 0);
        return new Row(now.takenAt(), pid, members.size(), threads, rss, cpu, gpuBytes);
    }

    static ObjectNode json(Row r, Optional<Owner> owner) {
        ObjectNode o = Json.object();
        Json.put(o, "time", r.time());
        o.put("pid", r.pid());
        o.put("processes", r.processes());
        o.put("threads", r.threads());
        o.put("rssBytes", r.rssBytes());
        Json.put(o, "cpuPercent", r.cpuPercent());
        Json.put(o, "gpuMemoryBytes", r.gpuMemoryBytes());
        Owners.putOwnerJson(o, owner);
        return o;
    }

    static String csv(Row r) {
        return r.time() + "," + r.pid() + "," + r.processes() + "," + r.threads() + "," + r.rssBytes() + ","
                + (r.cpuPercent().isPresent() ? String.format(Locale.ROOT, "%.1f", r.cpuPercent().getAsDouble()) : "")
                + "," + (r.gpuMemoryBytes().isPresent() ? Long.toString(r.gpuMemoryBytes().getAsLong()) : "");
    }

    static String liveLine(ProcessInfo first, Row r, Row start, Deque<Long> history) {
        String owner = Owners.label(first);
        return String.format(Locale.ROOT, "%s %d %s%s  rss %s %s %s  cpu %s  thr %d  procs %d  gpu %s",
                CLOCK.format(LocalTime.ofInstant(r.time(), ZoneId.systemDefault())), r.pid(),
                Table.printable(first.comm()), owner.equals("-") ? "" : " " + owner, Units.bytes(r.rssBytes()), sparkline(history),
                signedBytes(r.rssBytes() - start.rssBytes()),
                r.cpuPercent().isPresent() ? String.format(Locale.ROOT, "%.1f%%", r.cpuPercent().getAsDouble()) : "-",
                r.threads(), r.processes(),
                r.gpuMemoryBytes().isPresent() ? Units.bytes(r.gpuMemoryBytes().getAsLong()) : "-");
    }

    /** @return one bar per value, scaled between the smallest and the largest value shown */
    static String sparkline(Iterable<Long> values) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long v : values) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        StringBuilder sb = new StringBuilder();
        for (long v : values) {
            int level = max == min ? 0 : (int) Math.round((double) (v - min) / (max - min) * (BARS.length() - 1));
            sb.append(BARS.charAt(level));
        }
        return sb.toString();
    }

    static String signedBytes(long delta) {
        return (delta < 0 ? "-" : "+") + Units.bytes(Math.abs(delta));
    }
}
