package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.Gpus;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * Micrometer gauges for every GPU of an open {@link Gpus}, one row per device, tagged {@code gpu} (index),
 * {@code uuid} and {@code name}:
 *
 * <ul>
 *   <li>{@code gpu.utilization} (ratio, 0 to 1): share of the last sample period a kernel ran</li>
 *   <li>{@code gpu.memory.used}, {@code gpu.memory.free}, {@code gpu.memory.total} (bytes)</li>
 *   <li>{@code gpu.temperature} (celsius)</li>
 *   <li>{@code gpu.power} (watts)</li>
 * </ul>
 *
 * <p>The values are those of the last {@link #refresh()}: call it on the registry's publishing interval (for
 * example from a scheduled executor). {@link #bindTo} refreshes once. A device that fails to answer is left out
 * of that refresh; a figure the device does not report has no row. The binder does not close the {@code Gpus}.
 * Thread-safe.
 */
public final class GpuMetrics implements MeterBinder {
    private final Gpus gpus;
    private final List<MultiGauge> gauges = new ArrayList<>();
    private final List<Function<GpuSample, OptionalDouble>> values = new ArrayList<>();

    /** @param gpus the open GPUs */
    public GpuMetrics(Gpus gpus) {
        this.gpus = Objects.requireNonNull(gpus, "gpus");
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        add(registry, "gpu.utilization", null, "Share of the last sample period during which a kernel ran (0 to 1).",
                s -> s.gpuUtilizationPercent().isPresent()
                        ? OptionalDouble.of(s.gpuUtilizationPercent().getAsInt() / 100.0) : OptionalDouble.empty());
        add(registry, "gpu.memory.used", BaseUnits.BYTES, "Device memory used.",
                s -> s.memory().isPresent() ? OptionalDouble.of(s.memory().get().usedBytes()) : OptionalDouble.empty());
        add(registry, "gpu.memory.free", BaseUnits.BYTES, "Device memory free.",
                s -> s.memory().isPresent() ? OptionalDouble.of(s.memory().get().freeBytes()) : OptionalDouble.empty());
        add(registry, "gpu.memory.total", BaseUnits.BYTES, "Device memory in total.",
                s -> s.memory().isPresent() ? OptionalDouble.of(s.memory().get().totalBytes()) : OptionalDouble.empty());
        add(registry, "gpu.temperature", "celsius", "GPU die temperature.",
                s -> s.temperatureCelsius().isPresent()
                        ? OptionalDouble.of(s.temperatureCelsius().getAsInt()) : OptionalDouble.empty());
        add(registry, "gpu.power", "watts", "Board power draw.", GpuSample::powerDrawWatts);
        refresh();
    }

    private void add(MeterRegistry registry, String name, String unit, String help,
                     Function<GpuSample, OptionalDouble> value) {
        gauges.add(MultiGauge.builder(name).baseUnit(unit).description(help).register(registry));
        values.add(value);
    }

    /** Reads every device once and replaces the rows of every gauge. */
    public synchronized void refresh() {
        List<List<MultiGauge.Row<?>>> rows = new ArrayList<>();
        for (int i = 0; i < gauges.size(); i++) {
            rows.add(new ArrayList<>());
        }
        for (GpuDevice d : gpus.devices()) {
            GpuSample s;
            try {
                s = d.sample();
            } catch (ProcscopeException e) {
                continue;
            }
            Tags tags = Tags.of("gpu", Integer.toString(d.index()), "uuid", d.uuid(), "name", d.name());
            for (int i = 0; i < values.size(); i++) {
                OptionalDouble v = values.get(i).apply(s);
                if (v.isPresent()) {
                    rows.get(i).add(MultiGauge.Row.of(tags, v.getAsDouble()));
                }
            }
        }
        for (int i = 0; i < gauges.size(); i++) {
            gauges.get(i).register(rows.get(i), true);
        }
    }
}
