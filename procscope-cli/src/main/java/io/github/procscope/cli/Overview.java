package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    private record GpuLine(int index, String name, OptionalLong usedBytes, OptionalLong totalBytes, OptionalInt util) {
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
            ObjectNode o = Json.object();
            Json.putText(o, "host", host);
            Json.put(o, "uptimeSeconds", s.uptime());
            Json.put(o, "bootTime", ctx.procfs().bootTime());
            if (load.value().isPresent()) {
                LoadAverage l = load.value().get();
                ObjectNode n = o.putObject("loadAverage");
                n.put("oneMinute", l.oneMinute());
                n.put("fiveMinutes", l.fiveMinutes());
                n.put("fifteenMinutes", l.fifteenMinutes());
                n.put("runnableTasks", l.runnableTasks());
                n.put("totalTasks", l.totalTasks());
            } else {
                o.putNull("loadAverage");
            }
            if (memory.value().isPresent()) {
                SystemMemory m = memory.value().get();
                ObjectNode n = o.putObject("memory");
                n.put("totalBytes", m.totalBytes());
                n.put("availableBytes", m.availableBytes());
                n.put("swapTotalBytes", m.swapTotalBytes());
                n.put("swapFreeBytes", m.swapFreeBytes());
            } else {
                o.putNull("memory");
            }
            o.put("processes", s.size());
            o.put("running", running);
            o.put("zombies", zombies);
            Json.putLeftOut(o, s);
            ArrayNode arr = o.putArray("topByRss");
            top.forEach(p -> arr.add(PsCommand.json(p)));
            ObjectNode g = o.putObject("gpus");
            g.put("available", gpus.available());
            if (gpus.available()) {
                g.putNull("reason");
                g.putNull("message");
            } else {
                g.put("reason", gpus.reason());
                g.put("message", gpus.message());
            }
            ArrayNode devices = g.putArray("devices");
            for (GpuLine d : gpus.devices()) {
                ObjectNode n = devices.addObject();
                n.put("index", d.index());
                n.put("name", d.name());
                Json.put(n, "memoryUsedBytes", d.usedBytes());
                Json.put(n, "memoryTotalBytes", d.totalBytes());
                Json.put(n, "gpuUtilizationPercent", d.util());
            }
            if (doctor.value().isPresent()) {
                ObjectNode n = o.putObject("problems");
                n.put("count", problems.size());
                Json.putStrings(n, "kinds", kinds(problems));
            } else {
                o.putNull("problems");
            }
            ctx.printJson(o);
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
                        d.usedBytes().isPresent() ? Units.bytes(d.usedBytes().getAsLong()) : "-",
                        d.totalBytes().isPresent() ? Units.bytes(d.totalBytes().getAsLong()) : "-",
                        d.util().isPresent() ? d.util().getAsInt() + "%" : "-");
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
