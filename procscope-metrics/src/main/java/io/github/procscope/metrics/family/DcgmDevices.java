package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.OptionalDouble;

/**
 * One GPU's {@link DcgmField} series, with the labels dcgm-exporter puts on every GPU series, and
 * {@code procscope_gpu_xid_errors_total}, the count beside dcgm-exporter's last XID.
 *
 * <p>The labels are those dcgm-exporter 4.5.3-4.8.2 writes: {@code gpu} (the NVML index), {@code UUID},
 * {@code pci_bus_id}, {@code device} ({@code nvidia} and the index), {@code modelName}, {@code Hostname}, the
 * label field {@code DCGM_FI_DRIVER_VERSION}, and on {@code DCGM_FI_DEV_XID_ERRORS} {@code err_code} (the XID in
 * decimal). Not written: {@code GPU_I_PROFILE} and {@code GPU_I_ID} (MIG devices, which are not exported) and
 * {@code err_msg} (dcgm-exporter's own description of each XID). The Kubernetes labels dcgm-exporter adds
 * ({@code pod}, {@code namespace}, {@code container}) come in through the {@code extra} labels of
 * {@link #labels}.
 */
public final class DcgmDevices {
    /** {@code procscope_gpu_xid_errors_total}. */
    public static final MetricFamily XID_ERROR_COUNT = MetricFamily.counter("procscope_gpu_xid_errors",
            "XID errors seen since the exporter started watching.");
    /** The label dcgm-exporter writes the driver version in. */
    public static final String DRIVER_VERSION = "DCGM_FI_DRIVER_VERSION";

    private static final List<DcgmField> FIELDS = List.of(DcgmField.values());

    private DcgmDevices() {
    }

    /**
     * @param d             the GPU
     * @param hostname      the {@code Hostname} label
     * @param driverVersion the {@code DCGM_FI_DRIVER_VERSION} label
     * @param extra         more labels for every series of the GPU (such as the pod it is allocated to), none of
     *                      them named as the labels above
     * @return the labels of the GPU's series
     */
    public static Labels labels(GpuDevice d, String hostname, String driverVersion, Labels extra) {
        String gpu = Integer.toString(d.index());
        return Labels.of("gpu", gpu, "UUID", d.uuid(), "pci_bus_id", d.pciBusId().orElse(""), "device", "nvidia" + gpu,
                "modelName", d.name(), "Hostname", hostname, DRIVER_VERSION, driverVersion).merge(extra);
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
                s.add(f.family(), f == DcgmField.XID_ERRORS
                        ? labels.add("err_code", Long.toString((long) v.getAsDouble())) : labels, v.getAsDouble());
            }
        }
        r.xidErrors().ifPresent(x -> s.add(XID_ERROR_COUNT, labels, x.count()));
    }
}
