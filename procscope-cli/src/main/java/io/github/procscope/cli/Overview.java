package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.memory.SystemMemory;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.system.LoadAverage;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What {@code procscope} prints without a subcommand: this machine at a glance. Each part is read on its own;
 * one that cannot be read (a fixture tree without {@code loadavg}, no GPU) is reported as missing, with why,
 * and does not hide the others.
 */
final class Overview {
    private static final int TOP = 5;

    private final Context ctx;

    Overview(Context ctx) {
        this.ctx = ctx;
    }

    /** One part of the overview: its value, or why it could not be read. */
    private record Part<T>(Optional<T> value, String why) {
        static <T> Part<T> of(Supplier<T> read) {
            try {
                return new Part<>(Optional.of(read.get()), "");
            } catch (ProcscopeException e) {
                return new Part<>(Optional.empty(), ProcscopeCli.message(e));
            }
        }
    }

    /** The GPUs in one sentence each, or why there are none. */
    private record GpuPart(boolean available, String message, String reason, String line, List<GpuLine> devices) {
    }

    /**
     * A GPU of the overview, its fields named as {@link GpuSample}'s accessors.
     *
     * @param index                 as {@link GpuDevice#index()}
     * @param name                  as {@link GpuDevice#name()}
     * @param memoryUsedBytes       as {@link GpuSample#memoryUsedBytes()}
     * @param memoryTotalBytes      as {@link GpuSample#memoryTotalBytes()}
     * @param gpuUtilizationPercent as {@link GpuSample#gpuUtilizationPercent()}
     */
    private record GpuLine(int index, String name, OptionalLong memoryUsedBytes, OptionalLong memoryTotalBytes,
                           OptionalInt gpuUtilizationPercent) {
    }

    /**
     * The overview's JSON.
     *
     * @param host          the host name, if known
     * @param uptime        as {@link ProcessSnapshot#uptime()}
     * @param bootTime      the boot time
     * @param loadAverage   uptime's three averages and the task counts, null when unreadable
     * @param memory        the memory line, null when unreadable
     * @param processes     how many processes
     * @param running       how many of them in state R
     * @param zombies       how many zombies
     * @param leftOut       what the snapshot left out, flat
     * @param topByRss      the five largest by resident memory, as ps writes them
     * @param gpus          the GPUs, or why there are none
     * @param problems      the doctor's problems (warnings and worse), null when it could not examine
     */
    private record Summary(Optional<String> host, Duration uptime, java.time.Instant bootTime, Optional<Load> loadAverage,
                           Optional<Memory> memory, int processes, long running, long zombies,
                           @JsonUnwrapped Json.LeftOut leftOut, List<PsCommand.Row> topByRss, GpusJson gpus,
                           Optional<Problems> problems) {
    }

    /** {@link LoadAverage}'s averages and task counts; the last pid is not the overview's. */
    private record Load(double oneMinute, double fiveMinutes, double fifteenMinutes, int runnableTasks,
                        int totalTasks) {
    }

    /** {@link SystemMemory}'s total, available and swap figures. */
    private record Memory(long totalBytes, long availableBytes, long swapTotalBytes, long swapFreeBytes) {
    }

    /** The GPUs: available, else the reason and message of the exception that said why not. */
    private record GpusJson(boolean available, String reason, String message, List<GpuLine> devices) {
    }

    /** How many problems, and their kinds. */
    private record Problems(int count, List<String> kinds) {
    }

    int print() {
        ProcessSnapshot s = ctx.procfs().snapshot(java.util.Set.of(io.github.procscope.api.process.Facet.CGROUP));
        ctx.noteUnreadable("overview", s);
        Optional<String> host = hostname();
        Part<LoadAverage> load = Part.of(() -> ctx.resources().loadAverage());
        Part<SystemMemory> memory = Part.of(() -> ctx.resources().memory());
        List<ProcessInfo> top = s.processes().stream()
                .sorted(Comparator.comparingLong(ProcessInfo::rssBytes).reversed()
                        .thenComparingLong(ProcessInfo::pid)).limit(TOP).toList();
        long running = s.processes().stream().filter(p -> p.state() == ProcessState.RUNNING).count();
        long zombies = s.processes().stream().filter(p -> p.state() == ProcessState.ZOMBIE).count();
        GpuPart gpus = gpus();
        Part<Diagnosis> doctor = Part.of(this::diagnose);
        List<Finding> problems = doctor.value().map(d -> d.findings().stream()
                .filter(f -> f.severity().atLeast(Severity.WARNING)).toList()).orElse(List.of());
        if (ctx.json()) {
            ctx.printJson(Json.of(new Summary(host, s.uptime(), ctx.procfs().bootTime(),
                    load.value().map(l -> new Load(l.oneMinute(), l.fiveMinutes(), l.fifteenMinutes(),
                            l.runnableTasks(), l.totalTasks())),
                    memory.value().map(m -> new Memory(m.totalBytes(), m.availableBytes(), m.swapTotalBytes(),
                            m.swapFreeBytes())),
                    s.size(), running, zombies, Json.LeftOut.of(s),
                    top.stream().map(p -> PsCommand.Row.of(p, PodNames.NONE)).toList(),
                    new GpusJson(gpus.available(), gpus.available() ? null : gpus.reason(),
                            gpus.available() ? null : gpus.message(), gpus.devices()),
                    doctor.value().map(d -> new Problems(problems.size(), kinds(problems))))));
            return ProcscopeCli.OK;
        }
        PrintStream out = ctx.out();
        out.printf("%s, up %s, load %s%n", host.orElse("(host name unknown)"), Units.uptime(s.uptime()),
                load.value().map(l -> String.format(Locale.ROOT, "%.2f %.2f %.2f (1, 5, 15 min)", l.oneMinute(),
                        l.fiveMinutes(), l.fifteenMinutes())).orElse("unknown (" + load.why() + ")"));
        out.println("memory: " + memory.value().map(m -> String.format(Locale.ROOT, "%s available of %s (%d%%), swap %s"
                        + " used of %s", Units.bytes(m.availableBytes()), Units.bytes(m.totalBytes()),
                m.totalBytes() == 0 ? 0 : Math.round(100.0 * m.availableBytes() / m.totalBytes()),
                Units.bytes(m.swapUsedBytes()), Units.bytes(m.swapTotalBytes()))).orElse("unknown (" + memory.why() + ")"));
        // "running" is the processes in state R when read (JSON: running); the load's runnable count is the
        // kernel's tasks (threads) that were runnable (JSON: load.runnableTasks). Both are named as what they are.
        out.printf("%d processes (%d in state R), %s%d zombie(s)%n", s.size(), running,
                load.value().map(l -> l.runnableTasks() + " runnable task(s), ").orElse(""), zombies);
        out.println();
        out.println("Largest resident memory:");
        Table t = new Table().right("PID").left("USER").right("RSS").right("VSZ").right("%CPU").left("COMMAND");
        for (ProcessInfo p : top) {
            t.row(p.pid(), PsCommand.shortUser(p), Units.bytes(p.rssBytes()), Units.bytes(p.vszBytes()),
                    Units.percent(p.lifetimeCpuPercent()), p.comm());
        }
        t.print(out, ctx.width());
        out.println();
        if (!gpus.available()) {
            Table.wrap(out, "GPUs: none usable (" + gpus.line() + ")", "  ", ctx.width());
        } else {
            out.println("GPUs:");
            for (GpuLine d : gpus.devices()) {
                out.printf("  %d %s  memory %s of %s  util %s%n", d.index(), d.name(),
                        d.memoryUsedBytes().isPresent() ? Units.bytes(d.memoryUsedBytes().getAsLong()) : "-",
                        d.memoryTotalBytes().isPresent() ? Units.bytes(d.memoryTotalBytes().getAsLong()) : "-",
                        d.gpuUtilizationPercent().isPresent() ? d.gpuUtilizationPercent().getAsInt() + "%" : "-");
            }
        }
        if (doctor.value().isEmpty()) {
            Table.wrap(out, "doctor: could not examine (" + doctor.why() + ")", "  ", ctx.width());
        } else if (problems.isEmpty()) {
            out.println("doctor: no problems found");
        } else {
            Table.wrap(out, String.format("doctor: %d problem(s) (%s); 'procscope doctor' explains them",
                    problems.size(), String.join(", ", kinds(problems))), "  ", ctx.width());
        }
        return ProcscopeCli.OK;
    }

    private static List<String> kinds(List<Finding> findings) {
        TreeSet<String> k = new TreeSet<>();
        findings.forEach(f -> k.add(f.kind().name()));
        return new ArrayList<>(k);
    }

    private Diagnosis diagnose() {
        return ctx.doctor(null, true).examine(DoctorOptions.defaults().withSampleWindow(Duration.ZERO));
    }

    private GpuPart gpus() {
        try (Gpus g = ctx.openGpus()) {
            List<GpuLine> lines = new ArrayList<>();
            for (GpuDevice d : g.devices()) {
                Optional<GpuSample> s;
                try {
                    s = d.isLost() ? Optional.empty() : Optional.of(d.sample());
                } catch (NvmlException e) {
                    s = Optional.empty();
                }
                lines.add(new GpuLine(d.index(), d.name(),
                        s.map(GpuSample::memoryUsedBytes).orElse(OptionalLong.empty()),
                        s.map(GpuSample::memoryTotalBytes).orElse(OptionalLong.empty()),
                        s.map(GpuSample::gpuUtilizationPercent).orElse(OptionalInt.empty())));
            }
            return new GpuPart(true, "", "", "", lines);
        } catch (GpuUnavailableException e) {
            return new GpuPart(false, e.getMessage(), e.reason().name(), ProcscopeCli.message(e), List.of());
        }
    }

    private Optional<String> hostname() {
        Path f = ctx.procfsRoot().resolve("sys/kernel/hostname");
        // One read with room for the whole name (64 bytes at most): a sysctl file read in small pieces may end early.
        if (!Files.isRegularFile(f)) {
            return Optional.empty(); // a FIFO would block the open
        }
        try (InputStream in = Files.newInputStream(f)) {
            String h = new String(in.readNBytes(256), StandardCharsets.UTF_8).strip();
            return h.isEmpty() ? Optional.empty() : Optional.of(h);
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
