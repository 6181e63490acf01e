package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code procscope doctor}: the usual causes of trouble on a training host, each checked on this machine. */
@Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Diagnose process, memory, disk and GPU problems.",
                "It looks for zombies, orphans, a PID 1 that does not reap, terminal sessions that die on",
                "hang-up, OOM kills, deleted files still holding space, full disks and inodes, memory",
                "pressure, I/O bottlenecks, idle GPUs holding memory and GPU ghosts: each with the pids",
                "involved, the numbers read and advice.",
                "Exit status: 0 when clean, 1 when a finding of warning severity or above exists."},
        footer = {"", "Examples:", "  procscope doctor", "  procscope --json doctor --window 10s --disk-threshold 95"})
final class DoctorCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--window", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long to watch CPU, disks and GPUs (default: 3s).")
    Duration window = DoctorOptions.defaults().sampleWindow();

    @Option(names = "--disk-threshold", paramLabel = "PERCENT", description = "Disk use%% that counts as full (default: 90).")
    double disk = DoctorOptions.defaults().diskUsedPercent();

    @Option(names = "--inode-threshold", paramLabel = "PERCENT", description = "Inode use%% that counts as exhausted (default: 90).")
    double inodes = DoctorOptions.defaults().inodesUsedPercent();

    @Option(names = "--memory-available", paramLabel = "PERCENT",
            description = "Memory available below this %% of total is pressure (default: 10).")
    double memoryAvailable = DoctorOptions.defaults().memoryAvailablePercent();

    @Option(names = "--orphan-min-age", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Idle orphans older than this are warnings (default: 10m).")
    Duration orphanAge = DoctorOptions.defaults().orphanMinAge();

    @Option(names = "--hangup-min-age", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Terminal processes younger than this are not reported (default: 1m).")
    Duration hangupAge = DoctorOptions.defaults().hangupMinAge();

    @Option(names = "--subreaper", split = ",", paramLabel = "PID", converter = PidConverter.class,
            description = "Pids known to be subreapers (their adoptees count as orphans).")
    List<Long> subreapers = List.of();

    @Option(names = "--kmsg", paramLabel = "FILE", description = "Read this kernel log (kmsg format) instead of /dev/kmsg; one that cannot be read "
            + "(missing, a FIFO, a device) is a usage error.")
    Path kmsg;

    @Option(names = "--cgroup-threshold", paramLabel = "PERCENT",
            description = "A memory cgroup's working set at this %% of its limit is pressure (default: 90).")
    double cgroupThreshold = DoctorOptions.defaults().cgroupUsagePercent();

    @Option(names = "--gpu-idle-util", paramLabel = "PERCENT",
            description = "Mean GPU utilization below this is idle (default: 5).")
    double gpuIdleUtil = DoctorOptions.defaults().gpuIdleUtilizationPercent();

    @Option(names = "--gpu-idle-memory-mib", paramLabel = "MIB",
            description = "An idle GPU using more than this holds memory (default: 1024).")
    long gpuIdleMemoryMib = DoctorOptions.defaults().gpuIdleMemoryBytes() >> 20;

    @Option(names = "--io-util", paramLabel = "PERCENT", description = "Disk %%util that counts as busy (default: 80).")
    double ioUtil = DoctorOptions.defaults().ioUtilPercent();

    @Option(names = "--io-await", paramLabel = "MS", description = "Mean wait that counts as slow (default: 50).")
    double ioAwait = DoctorOptions.defaults().ioAwaitMillis();

    @Option(names = "--deleted-min-mib", paramLabel = "MIB",
            description = "Report deleted-but-open files from this much per file system (default: 10).")
    long deletedMinMib = DoctorOptions.defaults().deletedOpenMinBytes() >> 20;

    @Option(names = "--no-gpu", description = "Do not look at GPUs.")
    boolean noGpu;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Context ctx = root.context();
        DoctorOptions options = DoctorOptions.defaults().withSampleWindow(window)
                .withDiskThresholds(disk, inodes)
                .withMemoryThresholds(memoryAvailable, cgroupThreshold)
                .withGpuIdleThresholds(gpuIdleUtil, gpuIdleMemoryMib << 20)
                .withIoThresholds(ioUtil, ioAwait)
                .withDeletedOpenMinBytes(deletedMinMib << 20)
                .withAges(orphanAge, hangupAge)
                .withSubreapers(Set.copyOf(subreapers));
        if (kmsg != null) {
            requireReadableKmsg(ctx);
        }
        var doctor = ctx.doctor(kmsg, !noGpu);
        Diagnosis d = doctor.examine(options);
        if (ctx.json()) {
            ctx.printJson(json(d));
        } else {
            print(ctx.out(), d, ctx.width(), ctx.verbose());
        }
        return d.hasWarnings() ? 1 : ProcscopeCli.OK;
    }

    /**
     * A kernel log the user named must be one: a file that cannot be read (missing, a FIFO that would block,
     * {@code /dev/zero} that never ends, a malformed file) is a usage error with one line, not a check silently
     * skipped. It is read here once, bounded and without blocking, as the doctor will read it.
     */
    private void requireReadableKmsg(Context ctx) {
        try {
            ctx.scope().kernelLog(kmsg).oomKills();
        } catch (io.github.procscope.api.core.ProcscopeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new CommandLine.ParameterException(spec.commandLine(), "--kmsg " + kmsg + ": " + why);
        }
    }

    static JsonNode json(Diagnosis d) {
        return Json.of(new View(d.takenAt(), d.findings().stream().map(f -> new FindingView(f.kind(), f)).toList(),
                d.skipped(), new Json.LeftOut(d.unreadable().size(), d.unreadable())));
    }

    /**
     * {@code doctor}'s JSON: the {@link Diagnosis}, with how many processes it left out.
     *
     * @param takenAt  as {@link Diagnosis#takenAt()}
     * @param findings the findings, each with its kind
     * @param skipped  as {@link Diagnosis#skipped()}
     * @param leftOut  the processes left out ({@link Diagnosis#unreadable()}) and how many, flat
     */
    record View(Instant takenAt, List<FindingView> findings, List<String> skipped,
                @JsonUnwrapped Json.LeftOut leftOut) {
    }

    /**
     * A finding: its kind ({@link Finding#kind()}, which its evidence names), then the {@link Finding} record's
     * components, flat.
     *
     * @param kind    as {@link Finding#kind()}
     * @param finding the finding
     */
    record FindingView(FindingKind kind, @JsonUnwrapped Finding finding) {
    }

    private static void print(PrintStream out, Diagnosis d, int width, boolean verbose) {
        if (d.findings().isEmpty()) {
            out.println("No problems found.");
        }
        String indent = "         ";
        for (Finding f : d.findings()) {
            Table.wrap(out, String.format("%-8s %-18s %s", f.severity(), f.kind(), f.summary()), indent + "  ", width);
            if (!f.pids().isEmpty()) {
                Table.wrap(out, indent + "pids: " + f.pids().stream().map(String::valueOf)
                        .collect(Collectors.joining(" ")), indent + "  ", width);
            }
            out.println(indent + "evidence:");
            for (String line : evidence(f.evidence())) {
                int lead = line.length() - line.stripLeading().length();
                Table.wrap(out, indent + "  " + line, indent + "  " + " ".repeat(lead + 4), width);
            }
            Table.wrap(out, indent + "advice: " + f.advice(), indent + "  ", width);
        }
        for (String s : d.skipped()) {
            Table.wrap(out, "not checked: " + s, "  ", width);
        }
        if (!d.unreadable().isEmpty()) {
            Table.wrap(out, "left out: " + d.unreadable().size() + " process(es) whose kernel files are malformed"
                    + (verbose ? ":" : " (--verbose names them)"), "  ", width);
            if (verbose) {
                for (var u : d.unreadable()) {
                    Table.wrap(out, "  pid " + u.pid() + ": " + u.reason(), "    ", width);
                }
            }
        }
    }

    /**
     * @return the evidence as lines a person reads, one fact each ({@code parent pid: 4100}): sizes in KiB to
     *         TiB, durations as elapsed times, lists joined by commas, nested records indented under their name;
     *         facts that were not read are left out. {@code --json} has the same facts under their accessors' names.
     */
    static List<String> evidence(Evidence ev) {
        List<String> lines = new ArrayList<>();
        facts(Json.of(ev), "", lines);
        return lines;
    }

    private static void facts(JsonNode o, String indent, List<String> lines) {
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            String name = e.getKey();
            JsonNode v = e.getValue();
            if (v.isNull()) {
                continue;
            }
            String label = indent + words(name) + ":";
            if (v.isObject()) {
                lines.add(label);
                facts(v, indent + "  ", lines);
            } else if (v.isArray() && v.size() > 0 && v.get(0).isObject()) {
                lines.add(label);
                for (JsonNode element : v) {
                    List<String> one = new ArrayList<>();
                    facts(element, "", one);
                    lines.add(indent + "  - " + one.stream().map(String::strip).collect(Collectors.joining(", ")));
                }
            } else if (v.isArray()) {
                List<String> values = new ArrayList<>();
                v.forEach(x -> values.add(Table.printable(x.asText())));
                lines.add(label + " " + (values.isEmpty() ? "none" : String.join(", ", values)));
            } else {
                String shown = value(name, v);
                // The unit is in the value now: "rss: 1.1M", not "rss bytes: 1.1M".
                String bare = shown.equals(v.asText()) ? name : name.replaceFirst("(Bytes|Millis|Percent)$", "");
                lines.add(indent + words(bare.isEmpty() ? name : bare) + ": " + shown);
            }
        }
    }

    /** @return a value as a person reads it: bytes and milliseconds by their size, text with its controls escaped */
    private static String value(String name, JsonNode v) {
        if (v.isIntegralNumber() && name.endsWith("Bytes")) {
            return Units.bytes(v.asLong());
        }
        if (v.isIntegralNumber() && name.endsWith("Millis") && v.asLong() >= 1000) {
            return Units.elapsed(Duration.ofMillis(v.asLong()));
        }
        if (v.isNumber() && name.endsWith("Percent")) {
            return v.asText() + "%";
        }
        String text = Table.printable(v.asText());
        // A command line can be kilobytes long; --json has it whole.
        return name.toLowerCase(java.util.Locale.ROOT).endsWith("cmdline") && text.length() > MAX_COMMAND_LINE
                ? text.substring(0, MAX_COMMAND_LINE - 3) + "..." : text;
    }

    /** The most characters of a command line the evidence shows. */
    private static final int MAX_COMMAND_LINE = 160;

    /** @return an accessor's name as words: {@code parentPid} as {@code parent pid} */
    static String words(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && !Character.isUpperCase(name.charAt(i - 1))) {
                sb.append(' ');
            }
            sb.append(i > 0 && Character.isUpperCase(c) && (i + 1 >= name.length()
                    || !Character.isUpperCase(name.charAt(i + 1))) ? Character.toLowerCase(c) : c);
        }
        return sb.toString();
    }
}
