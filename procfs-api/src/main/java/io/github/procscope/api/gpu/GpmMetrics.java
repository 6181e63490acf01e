package io.github.procscope.api.gpu;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What the GPU's streaming multiprocessors really did between two GPU Performance Monitoring samples
 * ({@code nvmlGpmSampleGet} twice, at least 100 ms apart, then {@code nvmlGpmMetricsGet}; Hopper and
 * newer). Unlike {@link GpuSample#gpuUtilizationPercent()}, which only says that some kernel was running,
 * {@link #smActivityPercent()} and {@link #smOccupancyPercent()} say how much of the GPU the kernels
 * used. Each activity figure is 0.0 to 100.0 (DCGM's {@code DCGM_FI_PROF_*} ratios are these divided by 100);
 * every figure is empty when the driver did not compute it.
 *
 * @param deviceUuid               the GPU (or MIG device)
 * @param interval                 the time between the two samples
 * @param graphicsActivityPercent  percent of time any compute or graphics work was active
 *                                 ({@code NVML_GPM_METRIC_GRAPHICS_UTIL}: the duty cycle again)
 * @param smActivityPercent        percent of SMs that were busy ({@code NVML_GPM_METRIC_SM_UTIL})
 * @param smOccupancyPercent       percent of warps active versus the theoretical maximum
 *                                 ({@code NVML_GPM_METRIC_SM_OCCUPANCY})
 * @param tensorActivityPercent    percent of time the SMs did any tensor operation
 *                                 ({@code NVML_GPM_METRIC_ANY_TENSOR_UTIL})
 * @param dramBandwidthPercent     percent of the theoretical DRAM bandwidth used
 *                                 ({@code NVML_GPM_METRIC_DRAM_BW_UTIL})
 * @param fp64ActivityPercent      percent of time the SMs did non-tensor FP64 math ({@code NVML_GPM_METRIC_FP64_UTIL})
 * @param fp32ActivityPercent      percent of time the SMs did non-tensor FP32 math ({@code NVML_GPM_METRIC_FP32_UTIL})
 * @param fp16ActivityPercent      percent of time the SMs did non-tensor FP16 math ({@code NVML_GPM_METRIC_FP16_UTIL})
 * @param integerActivityPercent   percent of time the SMs did integer operations ({@code NVML_GPM_METRIC_INTEGER_UTIL})
 * @param pcieTxBytesPerSecond     PCIe traffic from this GPU, protocol headers and payload, in bytes per second
 *                                 ({@code NVML_GPM_METRIC_PCIE_TX_PER_SEC}, which {@code nvml.h} documents in MiB/s,
 *                                 converted to bytes)
 * @param pcieRxBytesPerSecond     PCIe traffic to this GPU in bytes per second
 *                                 ({@code NVML_GPM_METRIC_PCIE_RX_PER_SEC}, MiB/s converted to bytes)
 */
public record GpmMetrics(String deviceUuid, Duration interval, OptionalDouble graphicsActivityPercent,
                         OptionalDouble smActivityPercent, OptionalDouble smOccupancyPercent,
                         OptionalDouble tensorActivityPercent, OptionalDouble dramBandwidthPercent,
                         OptionalDouble fp64ActivityPercent, OptionalDouble fp32ActivityPercent,
                         OptionalDouble fp16ActivityPercent, OptionalDouble integerActivityPercent,
                         OptionalDouble pcieTxBytesPerSecond, OptionalDouble pcieRxBytesPerSecond) {
    /** Checks that no component is null. */
    public GpmMetrics {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(graphicsActivityPercent, "graphicsActivityPercent");
        Objects.requireNonNull(smActivityPercent, "smActivityPercent");
        Objects.requireNonNull(smOccupancyPercent, "smOccupancyPercent");
        Objects.requireNonNull(tensorActivityPercent, "tensorActivityPercent");
        Objects.requireNonNull(dramBandwidthPercent, "dramBandwidthPercent");
        Objects.requireNonNull(fp64ActivityPercent, "fp64ActivityPercent");
        Objects.requireNonNull(fp32ActivityPercent, "fp32ActivityPercent");
        Objects.requireNonNull(fp16ActivityPercent, "fp16ActivityPercent");
        Objects.requireNonNull(integerActivityPercent, "integerActivityPercent");
        Objects.requireNonNull(pcieTxBytesPerSecond, "pcieTxBytesPerSecond");
        Objects.requireNonNull(pcieRxBytesPerSecond, "pcieRxBytesPerSecond");
    }

    /**
     * Metrics whose PCIe rates are unknown (empty): the constructor for callers written before those components
     * existed.
     *
     * @param deviceUuid              see the record's components
     * @param interval                see the record's components
     * @param graphicsActivityPercent see the record's components
     * @param smActivityPercent       see the record's components
     * @param smOccupancyPercent      see the record's components
     * @param tensorActivityPercent   see the record's components
     * @param dramBandwidthPercent    see the record's components
     * @param fp64ActivityPercent     see the record's components
     * @param fp32ActivityPercent     see the record's components
     * @param fp16ActivityPercent     see the record's components
     * @param integerActivityPercent  see the record's components
     */
    public GpmMetrics(String deviceUuid, Duration interval, OptionalDouble graphicsActivityPercent,
                      OptionalDouble smActivityPercent, OptionalDouble smOccupancyPercent,
                      OptionalDouble tensorActivityPercent, OptionalDouble dramBandwidthPercent,
                      OptionalDouble fp64ActivityPercent, OptionalDouble fp32ActivityPercent,
                      OptionalDouble fp16ActivityPercent, OptionalDouble integerActivityPercent) {
        this(deviceUuid, interval, graphicsActivityPercent, smActivityPercent, smOccupancyPercent,
                tensorActivityPercent, dramBandwidthPercent, fp64ActivityPercent, fp32ActivityPercent,
                fp16ActivityPercent, integerActivityPercent, OptionalDouble.empty(), OptionalDouble.empty());
    }
}
