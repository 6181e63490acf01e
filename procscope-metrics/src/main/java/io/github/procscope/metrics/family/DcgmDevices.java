package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.OptionalDouble;

/**
 * One GPU's {@link DcgmField} series, with the labels dcgm-exporter puts on every GPU series ({@code gpu},
 * {@code UUID}, {@code device}, {@code modelName}, {@code Hostname}, {@code pci_bus_id}), and
 * {@code procscope_gpu_xid_errors_total}, the count beside dcgm-exporter's last XID.
 */
public final class DcgmDevices {
    /** {@code procscope_gpu_xid_errors_total}. */
    public static final MetricFamily XID_ERROR_COUNT = MetricFamily.counter("procscope_gpu_xid_errors",
            "XID errors seen since the exporter started watching.");

    private DcgmDevices() {
    }

    /**
     * @param d        the GPU
     * @param hostname the {@code Hostname} label
     * @return the labels of the GPU's series
     */
    public static Labels labels(GpuDevice d, String hostname) {
        return Labels.of("gpu", Integer.toString(d.index()), "UUID", d.uuid(),
                "device", d.minorNumber().isPresent() ? "nvidia" + d.minorNumber().getAsInt() : "",
                "modelName", d.name(), "Hostname", hostname, "pci_bus_id", d.pciBusId().orElse(""));
    }

    /**
     * Adds one GPU's series.
     *
     * @param s      the scrape
     * @param r      what was read of the GPU
     * @param labels its labels ({@link #labels})
     */
    public static void collect(Scrape s, DeviceReading r, Labels labels) {
        for (DcgmField f : FIELDS) {
            OptionalDouble v = f.valueOf(r);
            if (v.isPresent()) {
                s.add(f.family(), labels, v.getAsDouble());
            }
        }
        r.xidErrors().ifPresent(x -> s.add(XID_ERROR_COUNT, labels, x.count()));
    }

    private static final List<DcgmField> FIELDS = List.of(DcgmField.values());
}
