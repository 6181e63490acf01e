package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
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
                "Each refresh reads only the tree's own processes (through the kernel's children lists); a "
                        + "worker re-parented away from the tree (double-forked) stays in it while it lives. Where "
                        + "the kernel has no children lists, each refresh reads every process, and the live line says so.",
                "On a terminal: one live line with a sparkline of RSS. Otherwise (a pipe, a file) or with "
                        + "--rows: CSV rows of the totals, or with --json one JSON object per line: the totals, the tree's "
                        + "processes (members) and which joined and left since the previous row. It ends after --count rows, or "
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

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.Interval.class,
            description = "Time between rows (default: 1s).")
    Duration interval = Duration.ofSeconds(1);

    @Option(names = "--count", paramLabel = "N", description = "How many rows (default: until the process exits).")
    Integer count;

    @Option(names = "--live", description = "The live line even when standard output is not a terminal.")
    boolean live;

    @Option(names = "--rows", description = "Rows even on a terminal.")
    boolean rows;

    @CommandLine.Mixin
    KubernetesSockets kubernetes = new KubernetesSockets();

    /**
     * One process of the tree in a row, as {@code --json} writes it (one field per component).
     *
     * @param pid            its pid
     * @param comm           its command name
     * @param rssBytes       its resident memory
     * @param threads        its threads
     * @param adopted        whether it is in the tree without descending from the root now (re-parented away)
     * @param cpuPercent     its CPU since the previous row, percent of one CPU, one decimal; empty when unknown
     * @param gpuMemoryBytes its GPU memory per GPU index; empty when GPUs are not watched
     */
    record Member(long pid, String comm, long rssBytes, int threads, boolean adopted, OptionalDouble cpuPercent,
                  Optional<Map<Integer, Long>> gpuMemoryBytes) {
    }

    /**
     * One row: the tree at one moment; its totals are the sums of its members' values.
     *
     * @param members the tree's processes, the root first
     * @param joined  processes that are in the tree now and were not at the previous row (or the start)
     * @param left    processes that were in the tree at the previous row (or the start) and are not now
     */
    record Row(Instant takenAt, long pid, int processes, int threads, long rssBytes, OptionalDouble cpuPercent,
               Optional<Map<Integer, Long>> gpuMemoryBytes, java.util.List<Member> members,
               java.util.List<ProcessKey> joined, java.util.List<ProcessKey> left) {
        /** @return the GPU memory of the tree on every GPU together, when GPUs are watched */
        OptionalLong gpuMemoryTotalBytes() {
            return gpuMemoryBytes.isPresent()
                    ? OptionalLong.of(gpuMemoryBytes.get().values().stream().mapToLong(Long::longValue).sum())
                    : OptionalLong.empty();
        }
    }

    @Override
    public Integer call() throws InterruptedException {
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
        PodNames names = kubernetes.names(ctx, "watch", List.of(first.owner()));
        try {
            JobTree tree = ctx.scope().jobTree(key, gpus == null ? JobTreeOptions.basic()
                    : JobTreeOptions.basic().withGpus(gpus));
            if (liveLine && tree.fallbackReason().isPresent()) {
                ctx.err().println("(every refresh reads all processes: " + tree.fallbackReason().get() + ")");
            }
            tree.refresh();
            for (int i = 0; count == null || i < count; i++) {
                Thread.sleep(interval.toMillis());
                JobSample now = tree.refresh();
                if (!now.rootAlive()) {
                    if (liveLine) {
                        out.println();
                    }
                    ctx.err().println("procscope watch: process " + pid + " (" + Table.printable(first.comm())
                            + ") ended");
                    break;
                }
                Row row = row(now, gpus != null);
                if (start == null) {
                    start = row;
                }
                last = row;
                if (liveLine) {
                    history.addLast(row.rssBytes());
                    if (history.size() > SPARK) {
                        history.removeFirst();
                    }
                    out.print("\r" + liveLine(first, row, start, history, names) + "\u001b[K");
                } else if (ctx.json()) {
                    ctx.printJsonLine(json(row, first.owner(), names));
                } else {
                    out.println(csv(row));
                }
                out.flush();
            }
        } finally {
            names.close();
            if (gpus != null) {
                gpus.close();
            }
        }
        if (liveLine && last != null) {
            out.println();
            out.printf("RSS %s -> %s (%s) over %s%n", Units.bytes(start.rssBytes()), Units.bytes(last.rssBytes()),
                    signedBytes(last.rssBytes() - start.rssBytes()),
                    Units.elapsed(Duration.between(start.takenAt(), last.takenAt())));
        }
        return ProcscopeCli.OK;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** @return the job's processes and their totals at one refresh (CPU since the previous one) */
    Row row(JobSample now, boolean withGpus) {
        java.util.List<Member> members = new java.util.ArrayList<>();
        double cpu = 0;
        boolean anyCpu = false;
        for (JobMember m : now.members()) {
            OptionalDouble c = m.cpuPercent().isPresent() ? OptionalDouble.of(tenths(m.cpuPercent().getAsDouble()))
                    : OptionalDouble.empty();
            if (c.isPresent()) {
                cpu += c.getAsDouble();
                anyCpu = true;
            }
            members.add(new Member(m.pid(), m.process().comm(), m.rssBytes(), m.process().threads(), m.adopted(), c,
                    withGpus ? Optional.of(new java.util.TreeMap<>(m.gpuMemoryBytes())) : Optional.empty()));
        }
        // The total is the sum of the members' figures as printed, so that a script's sum matches it.
        return new Row(now.takenAt(), pid, now.members().size(), now.threads(), now.rssBytes(),
                anyCpu ? OptionalDouble.of(tenths(cpu)) : OptionalDouble.empty(),
                withGpus ? Optional.of(new java.util.TreeMap<>(now.gpuMemoryBytes())) : Optional.empty(), members,
                now.joined(), now.left());
    }

    private static double tenths(double v) {
        return Math.round(10.0 * v) / 10.0;
    }

    static JsonNode json(Row r, Optional<Owner> owner) {
        return json(r, owner, PodNames.NONE);
    }

    static JsonNode json(Row r, Optional<Owner> owner, PodNames names) {
        return Json.of(new RowJson(r, Owners.Fields.of(owner, names)));
    }

    /**
     * A row of {@code watch}'s JSON: the row's components, then whose tree it is, flat.
     *
     * @param row   the row
     * @param owner the root's owner
     */
    record RowJson(@JsonUnwrapped Row row, @JsonUnwrapped Owners.Fields owner) {
    }

    static String csv(Row r) {
        return r.takenAt() + "," + r.pid() + "," + r.processes() + "," + r.threads() + "," + r.rssBytes() + ","
                + (r.cpuPercent().isPresent() ? String.format(Locale.ROOT, "%.1f", r.cpuPercent().getAsDouble()) : "")
                + "," + (r.gpuMemoryTotalBytes().isPresent() ? Long.toString(r.gpuMemoryTotalBytes().getAsLong()) : "");
    }

    static String liveLine(ProcessInfo first, Row r, Row start, Deque<Long> history) {
        return liveLine(first, r, start, history, PodNames.NONE);
    }

    static String liveLine(ProcessInfo first, Row r, Row start, Deque<Long> history, PodNames names) {
        String owner = Owners.label(first.owner(), names);
        return String.format(Locale.ROOT, "%s %d %s%s  rss %s %s %s  cpu %s  thr %d  procs %d  gpu %s",
                CLOCK.format(LocalTime.ofInstant(r.takenAt(), ZoneId.systemDefault())), r.pid(),
                Table.printable(first.comm()), owner.equals("-") ? "" : " " + owner, Units.bytes(r.rssBytes()), sparkline(history),
                signedBytes(r.rssBytes() - start.rssBytes()),
                r.cpuPercent().isPresent() ? String.format(Locale.ROOT, "%.1f%%", r.cpuPercent().getAsDouble()) : "-",
                r.threads(), r.processes(),
                r.gpuMemoryTotalBytes().isPresent() ? Units.bytes(r.gpuMemoryTotalBytes().getAsLong()) : "-");
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
