package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.metrics.family.DcgmDevices;
import io.github.procscope.metrics.family.DcgmField;
import io.github.procscope.metrics.family.DeviceReading;
import io.github.procscope.metrics.family.NvlinkRates;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.MetricType;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Micrometer meters for every GPU of an open {@link Gpus}: the families of {@link DcgmField}, under the names,
 * help texts and units the Prometheus collector exports them with ({@code DCGM_FI_DEV_GPU_UTIL} in percent,
 * {@code DCGM_FI_DEV_FB_USED} in MiB, …), one row per device, tagged as dcgm-exporter labels a GPU's series
 * ({@code gpu}, {@code UUID}, {@code pci_bus_id}, {@code device}, {@code modelName},
 * {@code DCGM_FI_DRIVER_VERSION}; the host is the registry's business). Gauges are multi-gauges; dcgm-exporter's
 * counters are function counters (but {@code DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL}, a rate, is a gauge). The
 * {@code DCGM_FI_PROF_*} fields, which need a GPU Performance Monitoring
 * window measured on a thread of its own, are the Prometheus collector's only.
 *
 * <p>The values are those of the last {@link #refresh()}: call it on the registry's publishing interval (for
 * example from a scheduled executor). {@link #bindTo} refreshes once. A device that fails to answer is left out
 * of that refresh; a figure the device does not report has no row (a counter has a meter from the first refresh
 * that reported it). The binder does not close the {@code Gpus}. Thread-safe.
 */
public final class GpuMetrics implements MeterBinder {
    private static final Set<String> LEFT_OUT = Set.of("Hostname");

    private final Gpus gpus;
    private final Map<DcgmField, MultiGauge> gauges = new EnumMap<>(DcgmField.class);
    private final Map<String, Double> counts = new HashMap<>();
    private final NvlinkRates nvlink = new NvlinkRates(System::nanoTime);
    private MeterRegistry registry;

    /** @param gpus the open GPUs */
    public GpuMetrics(Gpus gpus) {
        this.gpus = Objects.requireNonNull(gpus, "gpus");
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        this.registry = registry;
        for (DcgmField f : DcgmField.values()) {
            MetricFamily family = f.family();
            // DCGM's NVLink bandwidth is a rate though typed counter: a gauge for Micrometer, which would take a
            // counter for a running total.
            if (family.type() == MetricType.GAUGE || f == DcgmField.NVLINK_BANDWIDTH_TOTAL) {
                gauges.put(f, MultiGauge.builder(family.name()).baseUnit(Meters.unit(family))
                        .description(family.help()).register(registry));
            }
        }
        refresh();
    }

    /** Reads every device once and replaces the rows of every gauge. */
    public synchronized void refresh() {
        Map<DcgmField, List<MultiGauge.Row<?>>> rows = new EnumMap<>(DcgmField.class);
        for (DcgmField f : gauges.keySet()) {
            rows.put(f, new ArrayList<>());
        }
        String driver = gpus.driverVersion();
        for (GpuDevice d : gpus.devices()) {
            DeviceReading r;
            try {
                r = DeviceReading.of(d, nvlink, Optional.empty());
            } catch (ProcscopeException e) {
                continue;
            }
            Tags tags = Meters.tags(DcgmDevices.labels(d, "", driver, Labels.EMPTY), LEFT_OUT);
            for (DcgmField f : DcgmField.values()) {
                OptionalDouble v = f.valueOf(r);
                if (v.isEmpty()) {
                    continue;
                }
                if (gauges.containsKey(f)) {
                    rows.get(f).add(MultiGauge.Row.of(tags, v.getAsDouble()));
                } else {
                    count(f.family(), d, tags, v.getAsDouble());
                }
            }
        }
        rows.forEach((f, r) -> gauges.get(f).register(r, true));
    }

    /** Keeps a counter's value, registering its meter the first time. */
    private void count(MetricFamily family, GpuDevice d, Tags tags, double value) {
        String key = family.name() + '\u0000' + d.uuid();
        if (counts.put(key, value) == null) {
            FunctionCounter.builder(family.name(), this, m -> m.countOf(key)).baseUnit(Meters.unit(family))
                    .description(family.help()).tags(tags).register(registry);
        }
    }

    private synchronized double countOf(String key) {
        return counts.getOrDefault(key, 0.0);
    }
}
