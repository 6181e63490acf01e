package io.github.procscope.cli;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.Gpus;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * {@code nvidia-smi --query-gpu=FIELD,... --format=csv[,noheader][,nounits]}: the fields by nvidia-smi's names,
 * and its CSV conventions: {@code ", "} between values, the unit after a value ({@code 245.12 W},
 * {@code 10240 MiB}, {@code 45 %}) and in the header ({@code power.draw [W]}), {@code [N/A]} for a value the GPU
 * does not report. {@code nounits} drops the units from the values only; the header keeps them.
 */
final class GpuQuery {
    /** What a field is read from: one row of the query. */
    record Row(Gpus gpus, GpuDevice device, GpuSample sample, Instant time) {
    }

    /** A queryable field. */
    record Field(String name, String unit, Function<Row, Optional<String>> value) {
        String header() {
            return unit == null ? name : name + " [" + unit + "]";
        }

        String format(Row row, boolean units) {
            Optional<String> v = value.apply(row);
            if (v.isEmpty()) {
                return "[N/A]";
            }
            return unit == null || !units ? v.get() : v.get() + " " + unit;
        }
    }

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS", Locale.ROOT);
    private static final Map<String, Field> FIELDS = new LinkedHashMap<>();
    private static final Map<String, String> ALIASES = new LinkedHashMap<>();

    static {
        add("timestamp", null, r -> Optional.of(TIMESTAMP.format(r.time().atZone(ZoneId.systemDefault()))));
        add("driver_version", null, r -> Optional.of(r.gpus().driverVersion()));
        add("count", null, r -> Optional.of(Integer.toString(r.gpus().devices().size())));
        add("name", null, r -> Optional.of(r.device().name()));
        add("index", null, r -> Optional.of(Integer.toString(r.device().index())));
        add("uuid", null, r -> Optional.of(r.device().uuid()));
        add("serial", null, r -> r.device().serial());
        add("pci.bus_id", null, r -> r.device().pciBusId());
        alias("gpu_bus_id", "pci.bus_id");
        add("persistence_mode", null, r -> r.device().modes().persistenceEnabled().map(GpuQuery::enabled));
        add("mig.mode.current", null, r -> r.device().modes().migEnabled().map(GpuQuery::enabled));
        add("pstate", null, r -> text(r.sample().performanceState()).map(p -> "P" + p));
        add("temperature.gpu", null, r -> text(r.sample().temperatureCelsius()));
        add("fan.speed", "%", r -> text(r.sample().fanSpeedPercent()));
        add("utilization.gpu", "%", r -> text(r.sample().gpuUtilizationPercent()));
        add("utilization.memory", "%", r -> text(r.sample().memoryUtilizationPercent()));
        add("memory.total", "MiB", r -> r.sample().memory().map(m -> mib(m.totalBytes())));
        add("memory.used", "MiB", r -> r.sample().memory().map(m -> mib(m.usedBytes())));
        add("memory.free", "MiB", r -> r.sample().memory().map(m -> mib(m.freeBytes())));
        add("memory.reserved", "MiB", r -> r.sample().memory().flatMap(GpuQuery::reserved));
        add("power.draw", "W", r -> watts(r.sample().powerDrawMilliwatts()));
        add("power.limit", "W", r -> watts(r.sample().powerManagementLimitMilliwatts()));
        add("enforced.power.limit", "W", r -> watts(r.sample().enforcedPowerLimitMilliwatts()));
        add("clocks.current.graphics", "MHz", r -> text(r.sample().graphicsClockMhz()));
        alias("clocks.gr", "clocks.current.graphics");
        add("clocks.current.sm", "MHz", r -> text(r.sample().smClockMhz()));
        alias("clocks.sm", "clocks.current.sm");
        add("clocks.current.memory", "MHz", r -> text(r.sample().memoryClockMhz()));
        alias("clocks.mem", "clocks.current.memory");
        add("clocks.max.sm", "MHz", r -> text(r.sample().maxSmClockMhz()));
        add("clocks.max.memory", "MHz", r -> text(r.sample().maxMemoryClockMhz()));
        alias("clocks.max.mem", "clocks.max.memory");
    }

    private final List<Field> fields;
    private final boolean header;
    private final boolean units;

    private GpuQuery(List<Field> fields, boolean header, boolean units) {
        this.fields = List.copyOf(fields);
        this.header = header;
        this.units = units;
    }

    /**
     * @param names  field names (nvidia-smi's, or its aliases)
     * @param format {@code csv}, optionally with {@code noheader} and {@code nounits}, comma-separated
     * @return the query
     * @throws IllegalArgumentException naming an unknown field or format word, with the known ones
     */
    static GpuQuery parse(List<String> names, String format) {
        List<Field> fields = new ArrayList<>();
        for (String n : names) {
            String key = n.strip().toLowerCase(Locale.ROOT);
            Field f = FIELDS.get(ALIASES.getOrDefault(key, key));
            if (f == null) {
                throw new IllegalArgumentException("'" + n + "' is not a field to query: use " + String.join(", ",
                        FIELDS.keySet()) + " (or the aliases " + String.join(", ", ALIASES.keySet()) + ")");
            }
            fields.add(f);
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("name at least one field to query, e.g. --query index,memory.used");
        }
        boolean csv = false;
        boolean header = true;
        boolean units = true;
        for (String w : format.split(",", -1)) {
            switch (w.strip().toLowerCase(Locale.ROOT)) {
                case "csv" -> csv = true;
                case "noheader" -> header = false;
                case "nounits" -> units = false;
                default -> throw new IllegalArgumentException("'" + format + "' is not a format: use csv, optionally"
                        + " with noheader and nounits, e.g. csv,noheader,nounits");
            }
        }
        if (!csv) {
            throw new IllegalArgumentException("'" + format + "' is not a format: it must include csv");
        }
        return new GpuQuery(fields, header, units);
    }

    /** @return the header line, or empty under {@code noheader} */
    Optional<String> header() {
        if (!header) {
            return Optional.empty();
        }
        List<String> h = new ArrayList<>();
        fields.forEach(f -> h.add(f.header()));
        return Optional.of(String.join(", ", h));
    }

    /** @return one CSV line for a device */
    String line(Row row) {
        List<String> v = new ArrayList<>();
        fields.forEach(f -> v.add(f.format(row, units)));
        return String.join(", ", v);
    }

    /** @return the field names, in their canonical spelling */
    static List<String> names() {
        return List.copyOf(FIELDS.keySet());
    }

    private static void add(String name, String unit, Function<Row, Optional<String>> value) {
        FIELDS.put(name, new Field(name, unit, value));
    }

    private static void alias(String alias, String name) {
        ALIASES.put(alias, name);
    }

    private static String enabled(boolean b) {
        return b ? "Enabled" : "Disabled";
    }

    private static Optional<String> text(OptionalInt v) {
        return v.isPresent() ? Optional.of(Integer.toString(v.getAsInt())) : Optional.empty();
    }

    private static String mib(long bytes) {
        return Long.toString(bytes >> 20);
    }

    private static Optional<String> reserved(GpuMemory m) {
        return m.reservedBytes().isPresent() ? Optional.of(mib(m.reservedBytes().getAsLong())) : Optional.empty();
    }

    private static Optional<String> watts(OptionalLong milliwatts) {
        return milliwatts.isPresent()
                ? Optional.of(String.format(Locale.ROOT, "%.2f", milliwatts.getAsLong() / 1000.0)) : Optional.empty();
    }
}
