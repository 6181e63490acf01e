package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.EccErrorCounts;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.metrics.model.MetricFamily;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * dcgm-exporter's {@code DCGM_FI_*} families, one per DCGM field, each with the value it takes from a
 * {@link DeviceReading}: its name, type and help as dcgm-exporter's counter list ({@code etc/default-counters.csv})
 * gives them, the unit in the help text as there, the value converted as DCGM converts NVML's. Every counter of
 * that list that NVML offers is here; {@code DCGM_FI_DRIVER_VERSION} is a label ({@link DcgmDevices}). A field
 * without a value for a GPU (one the GPU does not offer) has no series for it, as in dcgm-exporter. The families
 * appear in a scrape in the order of this enumeration.
 */
public enum DcgmField {
    /** GPU utilization, percent. */
    GPU_UTIL(MetricFamily.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
            r -> of(r.sample().gpuUtilizationPercent())),
    /** Memory (copy engine) utilization, percent. */
    MEM_COPY_UTIL(MetricFamily.gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)."),
            r -> of(r.sample().memoryUtilizationPercent())),
    /** Framebuffer memory used, MiB, rounded down. */
    FB_USED(MetricFamily.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
            r -> r.sample().memory().isPresent() ? mib(r.sample().memory().get().usedBytes()) : OptionalDouble.empty()),
    /** Framebuffer memory free, MiB, rounded down. */
    FB_FREE(MetricFamily.gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."),
            r -> r.sample().memory().isPresent() ? mib(r.sample().memory().get().freeBytes()) : OptionalDouble.empty()),
    /** GPU temperature, Celsius. */
    GPU_TEMP(MetricFamily.gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
            r -> of(r.sample().temperatureCelsius())),
    /** Power draw, watts with the fraction. */
    POWER_USAGE(MetricFamily.gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
            r -> r.sample().powerDrawMilliwatts().isPresent()
                    ? OptionalDouble.of(r.sample().powerDrawMilliwatts().getAsLong() / 1000.0) : OptionalDouble.empty()),
    /** Energy since the driver loaded, millijoules. */
    TOTAL_ENERGY_CONSUMPTION(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
            "Total energy consumption since boot (in mJ)."), r -> of(r.sample().energyMillijoules())),
    /** SM clock, MHz. */
    SM_CLOCK(MetricFamily.gauge("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
            r -> of(r.sample().smClockMhz())),
    /** Memory clock, MHz. */
    MEM_CLOCK(MetricFamily.gauge("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz)."),
            r -> of(r.sample().memoryClockMhz())),
    /** Volatile corrected ECC errors. */
    ECC_SBE_VOL_TOTAL(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
            "Total number of single-bit volatile ECC errors."), r -> ecc(r, EccErrorCounts::volatileCorrected)),
    /** Volatile uncorrected ECC errors. */
    ECC_DBE_VOL_TOTAL(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
            "Total number of double-bit volatile ECC errors."), r -> ecc(r, EccErrorCounts::volatileUncorrected)),
    /** Aggregate corrected ECC errors. */
    ECC_SBE_AGG_TOTAL(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
            "Total number of single-bit persistent ECC errors."), r -> ecc(r, EccErrorCounts::aggregateCorrected)),
    /** Aggregate uncorrected ECC errors. */
    ECC_DBE_AGG_TOTAL(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
            "Total number of double-bit persistent ECC errors."), r -> ecc(r, EccErrorCounts::aggregateUncorrected)),
    /** PCIe replays. */
    PCIE_REPLAY_COUNTER(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
            "Total number of PCIe retries."), r -> of(r.pcieReplays())),
    /** Rows remapped for correctable errors. */
    CORRECTABLE_REMAPPED_ROWS(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
            "Number of remapped rows for correctable errors"),
            r -> r.remappedRows().isPresent()
                    ? OptionalDouble.of(r.remappedRows().get().correctableRows()) : OptionalDouble.empty()),
    /** Rows remapped for uncorrectable errors. */
    UNCORRECTABLE_REMAPPED_ROWS(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
            "Number of remapped rows for uncorrectable errors"),
            r -> r.remappedRows().isPresent()
                    ? OptionalDouble.of(r.remappedRows().get().uncorrectableRows()) : OptionalDouble.empty()),
    /** Whether a row remapping is pending, 0 or 1. */
    ROW_REMAP_PENDING(MetricFamily.gauge("DCGM_FI_DEV_ROW_REMAP_PENDING",
            "Whether remapping of rows is pending (1) or not (0)."),
            r -> r.remappedRows().isPresent()
                    ? OptionalDouble.of(r.remappedRows().get().pending() ? 1 : 0) : OptionalDouble.empty()),
    /** Whether a row remapping failed, 0 or 1. */
    ROW_REMAP_FAILURE(MetricFamily.gauge("DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed"),
            r -> r.remappedRows().isPresent()
                    ? OptionalDouble.of(r.remappedRows().get().failed() ? 1 : 0) : OptionalDouble.empty()),
    /** The last XID error, 0 for none since watching began; labelled {@code err_code} too ({@link DcgmDevices}). */
    XID_ERRORS(MetricFamily.gauge("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
            r -> r.xidErrors().isPresent()
                    ? OptionalDouble.of(r.xidErrors().get().lastXid().orElse(0)) : OptionalDouble.empty()),
    /** Device memory (HBM) temperature, Celsius (a reading above 200 is no reading, as in DCGM). */
    MEMORY_TEMP(MetricFamily.gauge("DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C)."),
            r -> of(r.sample().memoryTemperatureCelsius())),
    /** Video encoder utilization, percent. */
    ENC_UTIL(MetricFamily.gauge("DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %)."),
            r -> of(r.sample().encoderUtilizationPercent())),
    /** Video decoder utilization, percent. */
    DEC_UTIL(MetricFamily.gauge("DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %)."),
            r -> of(r.sample().decoderUtilizationPercent())),
    /** Framebuffer memory reserved by the driver and firmware, MiB, rounded down; absent with NVML's v1 query. */
    FB_RESERVED(MetricFamily.gauge("DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB)."),
            r -> r.sample().memory().isPresent() && r.sample().memory().get().reservedBytes().isPresent()
                    ? mib(r.sample().memory().get().reservedBytes().getAsLong()) : OptionalDouble.empty()),
    /** NVLink bandwidth, all links, in 1000 KiB/s: a rate typed counter, as DCGM has it ({@link NvlinkRates}). */
    NVLINK_BANDWIDTH_TOTAL(MetricFamily.unsuffixedCounter("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
            "Total number of NVLink bandwidth counters for all lanes."), DeviceReading::nvlinkBandwidth),
    /** Whether vGPU software is licensed, 0 or 1 (0 on bare metal). */
    VGPU_LICENSE_STATUS(MetricFamily.gauge("DCGM_FI_DEV_VGPU_LICENSE_STATUS", "vGPU License status"),
            r -> r.sample().vgpuLicensed().isPresent()
                    ? OptionalDouble.of(r.sample().vgpuLicensed().get() ? 1 : 0) : OptionalDouble.empty()),
    /** Share of time the graphics engine was active, 0 to 1 (GPM percent / 100). */
    PROF_GR_ENGINE_ACTIVE(MetricFamily.gauge("DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            "Ratio of time the graphics engine is active."), r -> ratio(r, GpmMetrics::graphicsActivityPercent)),
    /** Share of cycles the tensor pipe was active, 0 to 1 (GPM percent / 100). */
    PROF_PIPE_TENSOR_ACTIVE(MetricFamily.gauge("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
            "Ratio of cycles the tensor (HMMA) pipe is active."), r -> ratio(r, GpmMetrics::tensorActivityPercent)),
    /** Share of cycles the memory interface was busy, 0 to 1 (GPM percent / 100). */
    PROF_DRAM_ACTIVE(MetricFamily.gauge("DCGM_FI_PROF_DRAM_ACTIVE",
            "Ratio of cycles the device memory interface is active sending or receiving data."),
            r -> ratio(r, GpmMetrics::dramBandwidthPercent)),
    /** PCIe bytes sent per second, headers included. */
    PROF_PCIE_TX_BYTES(MetricFamily.gauge("DCGM_FI_PROF_PCIE_TX_BYTES", "The rate of data transmitted over the PCIe"
            + " bus - including both protocol headers and data payloads - in bytes per second."),
            r -> r.gpm().isPresent() ? r.gpm().get().pcieTxBytesPerSecond() : OptionalDouble.empty()),
    /** PCIe bytes received per second, headers included. */
    PROF_PCIE_RX_BYTES(MetricFamily.gauge("DCGM_FI_PROF_PCIE_RX_BYTES", "The rate of data received over the PCIe"
            + " bus - including both protocol headers and data payloads - in bytes per second."),
            r -> r.gpm().isPresent() ? r.gpm().get().pcieRxBytesPerSecond() : OptionalDouble.empty());

    private static final double MIB = 1024.0 * 1024.0;

    private final MetricFamily family;
    private final Function<DeviceReading, OptionalDouble> value;

    DcgmField(MetricFamily family, Function<DeviceReading, OptionalDouble> value) {
        this.family = family;
        this.value = value;
    }

    /** @return the family this field is exported as */
    public MetricFamily family() {
        return family;
    }

    /**
     * @param r a reading of a GPU
     * @return this field's value in it, empty when the GPU does not offer it
     */
    public OptionalDouble valueOf(DeviceReading r) {
        return value.apply(r);
    }

    private static OptionalDouble of(OptionalInt v) {
        return v.isPresent() ? OptionalDouble.of(v.getAsInt()) : OptionalDouble.empty();
    }

    private static OptionalDouble of(OptionalLong v) {
        return v.isPresent() ? OptionalDouble.of(v.getAsLong()) : OptionalDouble.empty();
    }

    private static OptionalDouble ratio(DeviceReading r, Function<GpmMetrics, OptionalDouble> percent) {
        if (r.gpm().isEmpty()) {
            return OptionalDouble.empty();
        }
        OptionalDouble p = percent.apply(r.gpm().get());
        return p.isPresent() ? OptionalDouble.of(p.getAsDouble() / 100.0) : OptionalDouble.empty();
    }

    private static OptionalDouble mib(long bytes) {
        return OptionalDouble.of(Math.floor(bytes / MIB));
    }

    private static OptionalDouble ecc(DeviceReading r, Function<EccErrorCounts, OptionalLong> count) {
        return r.sample().eccErrors().isPresent() ? of(count.apply(r.sample().eccErrors().get())) : OptionalDouble.empty();
    }
}
