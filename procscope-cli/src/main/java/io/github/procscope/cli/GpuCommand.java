package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.gpu.DmonFormat;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.InaccessibleGpu;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.process.ProcessInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/** {@code procscope gpu}: the GPUs as {@code nvidia-smi} shows them, its {@code --query-gpu} and {@code dmon}. */
@Command(name = "gpu", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show the NVIDIA GPUs, like nvidia-smi.",
                "Temperature, power, memory, utilization and the processes holding GPU memory, through "
                        + "NVML. A process whose parent is gone is marked a ghost: a leftover DataLoader worker "
                        + "keeps its VRAM after Ctrl-C.",
                "GPU utilization is a duty cycle: the share of time at least one kernel ran, not how busy "
                        + "the SMs were; 100%% can mean one small kernel at a time.",
                "--query takes nvidia-smi's --query-gpu field names and prints CSV as nvidia-smi does. "
                        + "--watch prints a row per GPU per interval like nvidia-smi dmon, then (with --count) each "
                        + "GPU's means and whether it sat idle while holding memory (below 5%% while holding more "
                        + "than 1 GiB).",
                "Exit status 3 when no GPU can be used (no driver, no device, no permission); with --json "
                        + "the reason is printed as {\"available\": false, \"reason\": ...}."},
        footer = {"", "Examples:", "  procscope gpu",
                "  procscope gpu --query index,name,memory.used --format csv,noheader",
                "  procscope gpu --watch 1s --count 60", "  procscope --json gpu"})
final class GpuCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Spec
    CommandSpec spec;

    @Option(names = {"--query", "--query-gpu"}, split = ",", paramLabel = "FIELD",
            description = "Print these fields as CSV (nvidia-smi's names: index, name, memory.used, ...).")
    List<String> query;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "csv, optionally with noheader and nounits (default: csv).")
    String format;

    @Option(names = {"--watch", "-l"}, paramLabel = "INTERVAL", converter = DurationConverter.Interval.class,
            description = "Sample every INTERVAL and print dmon rows (with --json: one JSON object per line).")
    Duration watch;

    @Option(names = "--count", paramLabel = "N", description = "With --watch: how many rounds (default: until interrupted).")
    Integer count;

    @CommandLine.Mixin
    KubernetesSockets kubernetes = new KubernetesSockets();

    @Override
    public Integer call() throws InterruptedException {
        Context ctx = root.context();
        GpuQuery q = checkOptions();
        Gpus gpus;
        try {
            gpus = ctx.openGpus();
        } catch (GpuUnavailableException e) {
            if (ctx.json() && q == null && watch == null) {
                ctx.printJson(unavailableJson(e));
            }
            ctx.err().println("procscope gpu: " + ProcscopeCli.message(e));
            return ProcscopeCli.GPU_UNAVAILABLE;
        }
        try (gpus) {
            if (q != null) {
                query(ctx.out(), gpus, q);
            } else if (watch != null) {
                watch(ctx, gpus);
            } else {
                Map<Long, GpuUser> users = users(gpus, ctx);
                try (PodNames names = kubernetes.names(ctx, "gpu",
                        users.values().stream().map(GpuUser::owner).toList())) {
                    if (ctx.json()) {
                        ctx.printJson(json(gpus, users, names));
                    } else {
                        print(ctx.out(), gpus, users, ctx.width(), names);
                    }
                }
            }
        }
        return ProcscopeCli.OK;
    }

    private GpuQuery checkOptions() {
        if (format != null && query == null) {
            throw usage("--format goes with --query");
        }
        if (query != null && watch != null) {
            throw usage("--query and --watch cannot be combined");
        }
        if (count != null && watch == null) {
            throw usage("--count goes with --watch");
        }
        if (count != null && count < 1) {
            throw usage("--count must be at least 1, not " + count);
        }
        if (query == null) {
            return null;
        }
        try {
            return GpuQuery.parse(query, format == null ? "csv" : format);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    // ------------------------------------------------------------------ --query

    private static void query(PrintStream out, Gpus gpus, GpuQuery q) {
        q.header().ifPresent(out::println);
        Instant now = Instant.now();
        for (GpuDevice d : gpus.devices()) {
            Optional<GpuSample> s = sample(d);
            if (s.isPresent()) {
                out.println(q.line(new GpuQuery.Row(gpus, d, s.get(), now)));
            }
        }
    }

    // ------------------------------------------------------------------ --watch

    private void watch(Context ctx, Gpus gpus) throws InterruptedException {
        // The verdict covers the whole run when it has a count (however slowly the rounds come); a run without one
        // keeps the last five minutes.
        Duration window = count == null ? Duration.ofMinutes(5) : watch.multipliedBy(count).plusMinutes(1);
        try (GpuMonitor monitor = gpus.monitor(GpuMonitorOptions.defaults().withInterval(watch).withWindow(window))) {
            if (!ctx.json()) {
                ctx.out().println(DmonFormat.header());
            }
            for (int i = 0; count == null || i < count; i++) {
                if (i > 0) {
                    Thread.sleep(watch.toMillis());
                }
                for (GpuSample s : monitor.sampleNow()) {
                    if (ctx.json()) {
                        ctx.printJsonLine(dmonJson(s));
                    } else {
                        ctx.out().println(DmonFormat.row(s));
                    }
                }
                ctx.out().flush();
            }
            if (!ctx.json()) {
                for (GpuSummary s : monitor.summaries()) {
                    ctx.out().println(summary(s));
                }
            }
        }
    }

    /**
     * A row of {@code gpu --watch --json}: a sample's main counters, named as {@link GpuSample}'s accessors.
     *
     * @param takenAt                  as {@link GpuSample#takenAt()}
     * @param deviceIndex              as {@link GpuSample#deviceIndex()}
     * @param deviceUuid               as {@link GpuSample#deviceUuid()}
     * @param powerDrawWatts           as {@link GpuSample#powerDrawWatts()}
     * @param temperatureCelsius       as {@link GpuSample#temperatureCelsius()}
     * @param gpuUtilizationPercent    as {@link GpuSample#gpuUtilizationPercent()}
     * @param memoryUtilizationPercent as {@link GpuSample#memoryUtilizationPercent()}
     * @param memoryUsedBytes          as {@link GpuSample#memoryUsedBytes()}
     * @param memoryClockMhz           as {@link GpuSample#memoryClockMhz()}
     * @param smClockMhz               as {@link GpuSample#smClockMhz()}
     */
    record DmonRow(Instant takenAt, int deviceIndex, String deviceUuid, OptionalDouble powerDrawWatts,
                   OptionalInt temperatureCelsius, OptionalInt gpuUtilizationPercent,
                   OptionalInt memoryUtilizationPercent, OptionalLong memoryUsedBytes, OptionalInt memoryClockMhz,
                   OptionalInt smClockMhz) {
        static DmonRow of(GpuSample s) {
            return new DmonRow(s.takenAt(), s.deviceIndex(), s.deviceUuid(), s.powerDrawWatts(),
                    s.temperatureCelsius(), s.gpuUtilizationPercent(), s.memoryUtilizationPercent(),
                    s.memoryUsedBytes(), s.memoryClockMhz(), s.smClockMhz());
        }
    }

    static JsonNode dmonJson(GpuSample s) {
        return Json.of(DmonRow.of(s));
    }

    private static String summary(GpuSummary s) {
        String verdict = switch (s.idleHolding()) {
            case IDLE_HOLDING -> "IDLE WHILE HOLDING MEMORY: see who holds it with 'procscope gpu'";
            case NOT_IDLE_HOLDING -> "not idle-holding";
            case INSUFFICIENT_DATA -> "too few samples to judge idleness";
        };
        return String.format(Locale.ROOT, "# gpu %d over %.2fs (%d samples): mean util %s, max %s, mean memory %s: %s",
                s.deviceIndex(), Units.seconds(s.span()), s.samples(),
                s.meanGpuUtilizationPercent().isPresent()
                        ? String.format(Locale.ROOT, "%.1f%%", s.meanGpuUtilizationPercent().getAsDouble()) : "-",
                s.maxGpuUtilizationPercent().isPresent() ? s.maxGpuUtilizationPercent().getAsInt() + "%" : "-",
                s.meanMemoryUsedBytes().isPresent() ? Units.bytes((long) s.meanMemoryUsedBytes().getAsDouble()) : "-",
                s.lost() ? "GPU LOST" : verdict);
    }

    // ------------------------------------------------------------------ the table and JSON

    /** @return the GPU users joined with the process table, by pid */
    private static Map<Long, GpuUser> users(Gpus gpus, Context ctx) {
        Map<Long, GpuUser> out = new HashMap<>();
        for (GpuUser u : gpus.users(ctx.procfs())) {
            out.put(u.pid(), u);
        }
        return out;
    }

    private static Optional<GpuSample> sample(GpuDevice d) {
        if (d.isLost()) {
            return Optional.empty();
        }
        try {
            return Optional.of(d.sample());
        } catch (NvmlException e) {
            if (e.nvmlReturn() == NvmlReturn.GPU_IS_LOST) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** @return NVML's processes on a device, and on its MIG devices when its own list is withheld */
    private static List<GpuProcess> processes(GpuDevice d) {
        if (d.isLost()) {
            return List.of();
        }
        GpuProcesses listed = d.processes();
        List<GpuProcess> all = new ArrayList<>(listed.processes());
        if (!listed.isComplete()) {
            for (GpuDevice mig : d.migDevices()) {
                all.addAll(mig.processes().processes());
            }
        }
        return all;
    }

    /**
     * {@code gpu}'s JSON: the driver and its devices, or, when no GPU can be opened, why ({@code reason} and
     * {@code message}, named as the exception's accessors; null when the GPUs are available).
     *
     * @param available           whether NVML could be opened
     * @param reason              as {@link GpuUnavailableException#reason()}
     * @param message             as {@link GpuUnavailableException#getMessage()}
     * @param driverVersion       as {@link Gpus#driverVersion()}
     * @param cudaDriverVersion   as {@link Gpus#cudaDriverVersion()}
     * @param devices             the devices
     * @param inaccessibleDevices the devices NVML lists but cannot open; absent when no GPU can be opened
     */
    record Document(boolean available, Optional<GpuUnavailableException.Reason> reason, Optional<String> message,
                    Optional<String> driverVersion, Optional<String> cudaDriverVersion, List<Device> devices,
                    @JsonInclude(JsonInclude.Include.NON_NULL) List<InaccessibleGpu> inaccessibleDevices) {
    }

    /**
     * A device of {@code gpu}'s JSON: nvidia-smi's table, named as {@link GpuDevice}'s and {@link GpuSample}'s
     * accessors; a lost device's counters are null.
     *
     * @param index                    as {@link GpuDevice#index()}
     * @param uuid                     as {@link GpuDevice#uuid()}
     * @param name                     as {@link GpuDevice#name()}
     * @param pciBusId                 as {@link GpuDevice#pciBusId()}
     * @param lost                     whether the device is lost (no sample)
     * @param gpuUtilizationPercent    as {@link GpuSample#gpuUtilizationPercent()}
     * @param memoryUtilizationPercent as {@link GpuSample#memoryUtilizationPercent()}
     * @param memoryTotalBytes         as {@link GpuSample#memoryTotalBytes()}
     * @param memoryUsedBytes          as {@link GpuSample#memoryUsedBytes()}
     * @param memoryFreeBytes          as {@link GpuSample#memoryFreeBytes()}
     * @param temperatureCelsius       as {@link GpuSample#temperatureCelsius()}
     * @param powerDrawWatts           as {@link GpuSample#powerDrawWatts()}
     * @param enforcedPowerLimitWatts  as {@link GpuSample#enforcedPowerLimitWatts()}
     * @param smClockMhz               as {@link GpuSample#smClockMhz()}
     * @param performanceState         as {@link GpuSample#performanceState()}, as nvidia-smi writes it: {@code P0}
     * @param processes                the processes holding it
     */
    record Device(int index, String uuid, String name, Optional<String> pciBusId, boolean lost,
                  OptionalInt gpuUtilizationPercent, OptionalInt memoryUtilizationPercent, OptionalLong memoryTotalBytes,
                  OptionalLong memoryUsedBytes, OptionalLong memoryFreeBytes, OptionalInt temperatureCelsius,
                  OptionalDouble powerDrawWatts, OptionalDouble enforcedPowerLimitWatts, OptionalInt smClockMhz,
                  Optional<String> performanceState, List<Holder> processes) {
    }

    /**
     * A process holding a GPU: NVML's pid, memory and types, the process's comm and owner (null where the process
     * table has no such process), and whether it is a ghost.
     *
     * @param pid             as {@link GpuProcess#pid()}
     * @param usedMemoryBytes as {@link GpuProcess#usedMemoryBytes()}
     * @param typeLetters     as {@link GpuProcess#typeLetters()}
     * @param comm            as {@link ProcessInfo#comm()}
     * @param ghost           as {@link GpuUser#ghost()}
     * @param owner           whose process it is, flat
     */
    record Holder(long pid, OptionalLong usedMemoryBytes, String typeLetters, Optional<String> comm, boolean ghost,
                  @JsonUnwrapped Owners.Fields owner) {
    }

    /** @return the JSON of {@code gpu} when no GPU can be opened: why, named as the exception's accessors */
    static JsonNode unavailableJson(GpuUnavailableException e) {
        return Json.of(new Document(false, Optional.of(e.reason()), Optional.ofNullable(e.getMessage()),
                Optional.empty(), Optional.empty(), List.of(), null));
    }

    static JsonNode json(Gpus gpus, Map<Long, GpuUser> users) {
        return json(gpus, users, PodNames.NONE);
    }

    /** @return as {@link #json(Gpus, Map)}, each holder's container with its Kubernetes names where they resolve */
    static JsonNode json(Gpus gpus, Map<Long, GpuUser> users, PodNames names) {
        List<Device> devices = new ArrayList<>();
        for (GpuDevice d : gpus.devices()) {
            Optional<GpuSample> s = sample(d);
            List<Holder> holders = new ArrayList<>();
            for (GpuProcess p : processes(d)) {
                GpuUser u = users.get(p.pid());
                holders.add(new Holder(p.pid(), p.usedMemoryBytes(), p.typeLetters(),
                        u == null ? Optional.empty() : u.process().map(ProcessInfo::comm), u != null && u.ghost(),
                        Owners.Fields.of(u == null ? Optional.empty() : u.owner(), names)));
            }
            devices.add(new Device(d.index(), d.uuid(), d.name(), d.pciBusId(), s.isEmpty(),
                    s.map(GpuSample::gpuUtilizationPercent).orElse(OptionalInt.empty()),
                    s.map(GpuSample::memoryUtilizationPercent).orElse(OptionalInt.empty()),
                    s.map(GpuSample::memoryTotalBytes).orElse(OptionalLong.empty()),
                    s.map(GpuSample::memoryUsedBytes).orElse(OptionalLong.empty()),
                    s.map(GpuSample::memoryFreeBytes).orElse(OptionalLong.empty()),
                    s.map(GpuSample::temperatureCelsius).orElse(OptionalInt.empty()),
                    s.map(GpuSample::powerDrawWatts).orElse(OptionalDouble.empty()),
                    s.map(GpuSample::enforcedPowerLimitWatts).orElse(OptionalDouble.empty()),
                    s.map(GpuSample::smClockMhz).orElse(OptionalInt.empty()),
                    s.flatMap(x -> x.performanceState().isPresent()
                            ? Optional.of("P" + x.performanceState().getAsInt()) : Optional.empty()),
                    holders));
        }
        return Json.of(new Document(true, Optional.empty(), Optional.empty(), Optional.of(gpus.driverVersion()),
                gpus.cudaDriverVersion().map(Object::toString), devices, gpus.inaccessibleDevices()));
    }

    private static void print(PrintStream out, Gpus gpus, Map<Long, GpuUser> users, int width, PodNames names) {
        Table.wrap(out, String.format("NVIDIA driver %s, CUDA %s, %d GPU(s)", gpus.driverVersion(),
                gpus.cudaDriverVersion().map(Object::toString).orElse("-"), gpus.devices().size()), "  ", width);
        Table t = new Table().right("GPU").left("NAME").left("BUS-ID").right("TEMP").right("POWER").right("MEMORY")
                .right("UTIL").right("MEM%").left("PERF");
        List<Object[]> procRows = new ArrayList<>();
        for (GpuDevice d : gpus.devices()) {
            Optional<GpuSample> so = sample(d);
            if (so.isEmpty()) {
                t.row(d.index(), shorten(d.name(), 24), shortBus(d.pciBusId()), "-", "-", "-", "-", "-", "LOST");
                continue;
            }
            GpuSample s = so.get();
            t.row(d.index(), shorten(d.name(), 24), shortBus(d.pciBusId()),
                    s.temperatureCelsius().isPresent() ? s.temperatureCelsius().getAsInt() + "C" : "-",
                    watts(s), memory(s), percent(s.gpuUtilizationPercent()), percent(s.memoryUtilizationPercent()),
                    s.performanceState().isPresent() ? "P" + s.performanceState().getAsInt() : "-");
            for (GpuProcess p : processes(d)) {
                GpuUser u = users.get(p.pid());
                String comm = u == null ? "?" : u.process().map(ProcessInfo::comm).orElse("(not visible here)");
                String note = u != null && u.ghost() ? "ghost: parent gone" : "";
                procRows.add(new Object[] {d.index(), p.pid(), p.typeLetters(), shorten(comm, 20),
                        p.usedMemoryBytes().isPresent() ? Units.bytes(p.usedMemoryBytes().getAsLong()) : "-",
                        Owners.label(u == null ? Optional.empty() : u.owner(), names), note});
            }
        }
        t.print(out, width);
        for (InaccessibleGpu g : gpus.inaccessibleDevices()) {
            Table.wrap(out, "GPU " + g.index() + " not accessible: " + g.nvmlReturn() + ": " + g.message(), "  ", width);
        }
        out.println();
        if (procRows.isEmpty()) {
            out.println("No process is using a GPU (that NVML lists).");
        } else {
            boolean owners = procRows.stream().anyMatch(r -> !"-".equals(r[5]));
            Table pt = new Table().right("GPU").right("PID").left("TYPE").left("COMMAND").right("GPU MEM");
            if (owners) {
                pt.left("OWNER");
            }
            pt.left("NOTE");
            for (Object[] r : procRows) {
                pt.row(owners ? r : new Object[] {r[0], r[1], r[2], r[3], r[4], r[6]});
            }
            pt.print(out, width);
        }
        List<GpuUser> fdOnly = users.values().stream().filter(u -> !u.listedByNvml())
                .sorted(Comparator.comparingLong(GpuUser::pid)).toList();
        for (GpuUser u : fdOnly) {
            String owner = Owners.label(u.owner(), names);
            Table.wrap(out, String.format("pid %d (%s%s) holds %s open but NVML does not list it (another pid"
                    + " namespace?)", u.pid(), u.process().map(ProcessInfo::comm).orElse("?"),
                    owner.equals("-") ? "" : ", " + owner,
                    u.openDeviceMinors().stream().map(m -> "/dev/nvidia" + m).reduce((a, b) -> a + ", " + b)
                            .orElse("/dev/nvidia*")), "  ", width);
        }
        Table.wrap(out, "GPU utilization is a duty cycle (the share of time a kernel ran), not SM occupancy.", "  ",
                width);
    }

    private static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "~";
    }

    /** @return the bus id without an all-zero PCI domain ({@code 18:00.0}), as lspci prints it */
    static String shortBus(Optional<String> busId) {
        if (busId.isEmpty()) {
            return "-";
        }
        String b = busId.get();
        int colon = b.indexOf(':');
        if (colon > 0 && b.substring(0, colon).chars().allMatch(c -> c == '0') && b.indexOf(':', colon + 1) > 0) {
            return b.substring(colon + 1).toLowerCase(Locale.ROOT);
        }
        return b.toLowerCase(Locale.ROOT);
    }

    private static String watts(GpuSample s) {
        String draw = s.powerDrawWatts().isPresent() ? Long.toString(Math.round(s.powerDrawWatts().getAsDouble())) : "-";
        String cap = s.enforcedPowerLimitWatts().isPresent()
                ? Long.toString(Math.round(s.enforcedPowerLimitWatts().getAsDouble())) : "-";
        return draw + "/" + cap + "W";
    }

    private static String memory(GpuSample s) {
        if (s.memory().isEmpty()) {
            return "-";
        }
        GpuMemory m = s.memory().get();
        return Units.bytes(m.usedBytes()) + "/" + Units.bytes(m.totalBytes());
    }

    private static String percent(OptionalInt p) {
        return p.isPresent() ? p.getAsInt() + "%" : "-";
    }

    /** @return the pids holding memory on a GPU in a snapshot, for the overview and watch */
    static Map<Long, Long> memoryByPid(Gpus gpus) {
        Map<Long, Long> out = new HashMap<>();
        for (GpuDevice d : gpus.devices()) {
            try {
                for (GpuProcess p : processes(d)) {
                    if (p.usedMemoryBytes().isPresent()) {
                        out.merge(p.pid(), p.usedMemoryBytes().getAsLong(), Long::sum);
                    }
                }
            } catch (NvmlException e) {
                if (e.nvmlReturn() != NvmlReturn.GPU_IS_LOST) {
                    throw e;
                }
            }
        }
        return out;
    }
}
