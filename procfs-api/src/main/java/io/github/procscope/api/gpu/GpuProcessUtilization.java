package io.github.procscope.api.gpu;

import java.time.Instant;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How much of one GPU one process used during the driver's last sample period
 * ({@code nvmlDeviceGetProcessesUtilizationInfo}, or {@code nvmlDeviceGetProcessUtilization} on older
 * drivers): the per-process columns of {@code nvidia-smi pmon}. Like the device's utilization these are
 * duty cycles: the share of time the process's kernels ran, not how many SMs they filled.
 *
 * @param deviceUuid         the GPU
 * @param pid                the process id as NVML reports it (see {@link GpuProcess})
 * @param timestamp          when the driver took the sample (its CPU time stamp, microsecond precision)
 * @param smPercent          SM (3D and compute) utilization, percent
 * @param memoryPercent      frame buffer memory read/write utilization, percent
 * @param encoderPercent     video encoder utilization, percent
 * @param decoderPercent     video decoder utilization, percent
 * @param jpegPercent        JPEG decoder utilization, percent; empty with the older query, which lacks it
 * @param ofaPercent         optical flow accelerator utilization, percent; empty with the older query
 */
public record GpuProcessUtilization(String deviceUuid, long pid, Instant timestamp, int smPercent,
                                    int memoryPercent, int encoderPercent, int decoderPercent,
                                    OptionalInt jpegPercent, OptionalInt ofaPercent) {
    /** Checks that no component is null. */
    public GpuProcessUtilization {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(jpegPercent, "jpegPercent");
        Objects.requireNonNull(ofaPercent, "ofaPercent");
    }
}
