package io.github.procscope.api.gpu;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One reading of one GPU: what a line of {@code nvidia-smi} or {@code nvidia-smi dmon} shows. Every
 * metric is empty when this GPU or driver does not offer it ({@code NVML_ERROR_NOT_SUPPORTED}, a function
 * the driver lacks) or withholds it from this user ({@code NVML_ERROR_NO_PERMISSION}); MIG devices, for
 * example, have memory but no utilization, power or clocks of their own.
 *
 * <p><b>Utilization is a duty cycle, not occupancy.</b> {@link #gpuUtilizationPercent()} is the percentage
 * of the sample period (1/6 s to 1 s, by product) during which at least one kernel was running on the
 * GPU. It says nothing about how much of the GPU those kernels used: a loop of tiny kernels that keep 10%
 * of the streaming multiprocessors busy shows 100%. A low or ragged value is informative (the GPU is
 * waiting for data); a high one is not proof of efficiency. For how busy the SMs really were, use
 * {@link GpuDevice#gpmMetrics(java.time.Duration)} (Hopper and newer), or step time and samples per second.
 *
 * @param deviceIndex                 the device's {@link GpuDevice#index()}
 * @param deviceUuid                  the device's {@link GpuDevice#uuid()}
 * @param takenAt                     when the reading began (wall clock)
 * @param gpuUtilizationPercent       percent of the last sample period during which one or more kernels
 *                                    ran ({@code nvmlDeviceGetUtilizationRates}, {@code gpu}), 0 to 100
 * @param memoryUtilizationPercent    percent of the last sample period during which device memory was
 *                                    read or written ({@code memory}), 0 to 100; not the share of memory
 *                                    in use (see {@link #memory()})
 * @param memory                      device memory figures
 * @param temperatureCelsius          GPU die temperature in degrees Celsius
 *                                    ({@code nvmlDeviceGetTemperatureV}, else {@code nvmlDeviceGetTemperature})
 * @param powerDrawMilliwatts         power draw of the board in milliwatts ({@code nvmlDeviceGetPowerUsage};
 *                                    averaged over one second on Ampere and newer except GA100)
 * @param enforcedPowerLimitMilliwatts the power limit the driver enforces after all limiters, in milliwatts
 *                                    ({@code nvmlDeviceGetEnforcedPowerLimit}): {@code nvidia-smi}'s Pwr Cap
 * @param powerManagementLimitMilliwatts the power management limit set for the board, in milliwatts
 *                                    ({@code nvmlDeviceGetPowerManagementLimit})
 * @param energyMillijoules           energy used since the driver last loaded, in millijoules
 *                                    ({@code nvmlDeviceGetTotalEnergyConsumption}, Volta and newer)
 * @param graphicsClockMhz            current graphics clock in MHz ({@code nvmlDeviceGetClockInfo})
 * @param smClockMhz                  current SM clock in MHz
 * @param memoryClockMhz              current memory clock in MHz
 * @param maxSmClockMhz               maximum SM clock in MHz ({@code nvmlDeviceGetMaxClockInfo})
 * @param maxMemoryClockMhz           maximum memory clock in MHz
 * @param performanceState            performance state 0 (maximum performance) to 15 (minimum)
 *                                    ({@code nvmlDeviceGetPerformanceState}); empty when NVML reports it as
 *                                    unknown
 * @param fanSpeedPercent             intended fan speed as a percentage of the maximum noise-tolerant speed
 *                                    ({@code nvmlDeviceGetFanSpeed}); may exceed 100; empty for passively
 *                                    cooled boards
 * @param clockEventReasonsMask       the raw {@code nvmlClocksEventReasons} bit mask (see
 *                                    {@link #clockEventReasons()})
 * @param eccErrors                   ECC error counts; empty when the GPU keeps none
 * @param memoryTemperatureCelsius    device memory (HBM) temperature in degrees Celsius
 *                                    ({@code nvmlDeviceGetFieldValues}, {@code NVML_FI_DEV_MEMORY_TEMP}); empty on
 *                                    boards without a memory sensor (GDDR boards, MIG devices) and for a reading
 *                                    above 200, which DCGM also treats as no reading
 * @param encoderUtilizationPercent   percent of the last sample period during which the video encoder was busy
 *                                    ({@code nvmlDeviceGetEncoderUtilization}), 0 to 100; empty on MIG-enabled GPUs
 * @param decoderUtilizationPercent   percent of the last sample period during which the video decoder was busy
 *                                    ({@code nvmlDeviceGetDecoderUtilization}), 0 to 100; empty on MIG-enabled GPUs
 * @param nvlinkDataTxBytes           payload bytes this GPU sent over all its NVLinks, a counter that only grows
 *                                    while the driver is loaded ({@code nvmlDeviceGetFieldValues},
 *                                    {@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX} with scope {@code UINT_MAX}, all
 *                                    links; NVML counts KiB, converted to bytes); empty without NVLink
 * @param nvlinkDataRxBytes           payload bytes this GPU received over all its NVLinks
 *                                    ({@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX}), as {@code nvlinkDataTxBytes}
 * @param vgpuLicensed                whether vGPU software is licensed on this GPU
 *                                    ({@code nvmlDeviceGetGridLicensableFeatures_v4}, else {@code _v3}: the state of
 *                                    the {@code NVML_GRID_LICENSE_FEATURE_CODE_VGPU} feature); false where the
 *                                    driver says vGPU software licensing is not supported at all (a bare-metal
 *                                    GPU), as DCGM reports it; empty when the driver lacks the function, refuses
 *                                    it, or lists no vGPU feature
 */
public record GpuSample(
        int deviceIndex,
        String deviceUuid,
        Instant takenAt,
        OptionalInt gpuUtilizationPercent,
        OptionalInt memoryUtilizationPercent,
        Optional<GpuMemory> memory,
        OptionalInt temperatureCelsius,
        OptionalLong powerDrawMilliwatts,
        OptionalLong enforcedPowerLimitMilliwatts,
        OptionalLong powerManagementLimitMilliwatts,
        OptionalLong energyMillijoules,
        OptionalInt graphicsClockMhz,
        OptionalInt smClockMhz,
        OptionalInt memoryClockMhz,
        OptionalInt maxSmClockMhz,
        OptionalInt maxMemoryClockMhz,
        OptionalInt performanceState,
        OptionalInt fanSpeedPercent,
        OptionalLong clockEventReasonsMask,
        Optional<EccErrorCounts> eccErrors,
        OptionalInt memoryTemperatureCelsius,
        OptionalInt encoderUtilizationPercent,
        OptionalInt decoderUtilizationPercent,
        OptionalLong nvlinkDataTxBytes,
        OptionalLong nvlinkDataRxBytes,
        Optional<Boolean> vgpuLicensed) {

    /** Checks that no component is null. */
    public GpuSample {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(gpuUtilizationPercent, "gpuUtilizationPercent");
        Objects.requireNonNull(memoryUtilizationPercent, "memoryUtilizationPercent");
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(temperatureCelsius, "temperatureCelsius");
        Objects.requireNonNull(powerDrawMilliwatts, "powerDrawMilliwatts");
        Objects.requireNonNull(enforcedPowerLimitMilliwatts, "enforcedPowerLimitMilliwatts");
        Objects.requireNonNull(powerManagementLimitMilliwatts, "powerManagementLimitMilliwatts");
        Objects.requireNonNull(energyMillijoules, "energyMillijoules");
        Objects.requireNonNull(graphicsClockMhz, "graphicsClockMhz");
        Objects.requireNonNull(smClockMhz, "smClockMhz");
        Objects.requireNonNull(memoryClockMhz, "memoryClockMhz");
        Objects.requireNonNull(maxSmClockMhz, "maxSmClockMhz");
        Objects.requireNonNull(maxMemoryClockMhz, "maxMemoryClockMhz");
        Objects.requireNonNull(performanceState, "performanceState");
        Objects.requireNonNull(fanSpeedPercent, "fanSpeedPercent");
        Objects.requireNonNull(clockEventReasonsMask, "clockEventReasonsMask");
        Objects.requireNonNull(eccErrors, "eccErrors");
        Objects.requireNonNull(memoryTemperatureCelsius, "memoryTemperatureCelsius");
        Objects.requireNonNull(encoderUtilizationPercent, "encoderUtilizationPercent");
        Objects.requireNonNull(decoderUtilizationPercent, "decoderUtilizationPercent");
        Objects.requireNonNull(nvlinkDataTxBytes, "nvlinkDataTxBytes");
        Objects.requireNonNull(nvlinkDataRxBytes, "nvlinkDataRxBytes");
        Objects.requireNonNull(vgpuLicensed, "vgpuLicensed");
        if (nvlinkDataTxBytes.isPresent() && nvlinkDataTxBytes.getAsLong() < 0
                || nvlinkDataRxBytes.isPresent() && nvlinkDataRxBytes.getAsLong() < 0) {
            throw new IllegalArgumentException("NVLink byte counts must not be negative: tx " + nvlinkDataTxBytes
                    + ", rx " + nvlinkDataRxBytes);
        }
    }

    /**
     * A sample whose memory temperature, encoder and decoder utilization, NVLink counters and vGPU licence
     * state are unknown (empty): the constructor for callers written before those components existed.
     *
     * @param deviceIndex                    see the record's components
     * @param deviceUuid                     see the record's components
     * @param takenAt                        see the record's components
     * @param gpuUtilizationPercent          see the record's components
     * @param memoryUtilizationPercent       see the record's components
     * @param memory                         see the record's components
     * @param temperatureCelsius             see the record's components
     * @param powerDrawMilliwatts            see the record's components
     * @param enforcedPowerLimitMilliwatts   see the record's components
     * @param powerManagementLimitMilliwatts see the record's components
     * @param energyMillijoules              see the record's components
     * @param graphicsClockMhz               see the record's components
     * @param smClockMhz                     see the record's components
     * @param memoryClockMhz                 see the record's components
     * @param maxSmClockMhz                  see the record's components
     * @param maxMemoryClockMhz              see the record's components
     * @param performanceState               see the record's components
     * @param fanSpeedPercent                see the record's components
     * @param clockEventReasonsMask          see the record's components
     * @param eccErrors                      see the record's components
     */
    public GpuSample(int deviceIndex, String deviceUuid, Instant takenAt, OptionalInt gpuUtilizationPercent,
                     OptionalInt memoryUtilizationPercent, Optional<GpuMemory> memory, OptionalInt temperatureCelsius,
                     OptionalLong powerDrawMilliwatts, OptionalLong enforcedPowerLimitMilliwatts,
                     OptionalLong powerManagementLimitMilliwatts, OptionalLong energyMillijoules,
                     OptionalInt graphicsClockMhz, OptionalInt smClockMhz, OptionalInt memoryClockMhz,
                     OptionalInt maxSmClockMhz, OptionalInt maxMemoryClockMhz, OptionalInt performanceState,
                     OptionalInt fanSpeedPercent, OptionalLong clockEventReasonsMask,
                     Optional<EccErrorCounts> eccErrors) {
        this(deviceIndex, deviceUuid, takenAt, gpuUtilizationPercent, memoryUtilizationPercent, memory,
                temperatureCelsius, powerDrawMilliwatts, enforcedPowerLimitMilliwatts, powerManagementLimitMilliwatts,
                energyMillijoules, graphicsClockMhz, smClockMhz, memoryClockMhz, maxSmClockMhz, maxMemoryClockMhz,
                performanceState, fanSpeedPercent, clockEventReasonsMask, eccErrors, OptionalInt.empty(),
                OptionalInt.empty(), OptionalInt.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty());
    }

    /** {@return the power draw in watts, as {@code nvidia-smi} shows it} */
    public OptionalDouble powerDrawWatts() {
        return powerDrawMilliwatts.isPresent() ? OptionalDouble.of(powerDrawMilliwatts.getAsLong() / 1000.0)
                : OptionalDouble.empty();
    }

    /** {@return the enforced power limit in watts} */
    public OptionalDouble enforcedPowerLimitWatts() {
        return enforcedPowerLimitMilliwatts.isPresent()
                ? OptionalDouble.of(enforcedPowerLimitMilliwatts.getAsLong() / 1000.0) : OptionalDouble.empty();
    }

    /** {@return used device memory in bytes (see {@link GpuMemory#usedIncludesReserved()})} */
    public OptionalLong memoryUsedBytes() {
        return memory.isPresent() ? OptionalLong.of(memory.get().usedBytes()) : OptionalLong.empty();
    }

    /** {@return total device memory in bytes} */
    public OptionalLong memoryTotalBytes() {
        return memory.isPresent() ? OptionalLong.of(memory.get().totalBytes()) : OptionalLong.empty();
    }

    /** {@return device memory free for allocation in bytes ({@link GpuMemory#freeBytes()})} */
    public OptionalLong memoryFreeBytes() {
        return memory.isPresent() ? OptionalLong.of(memory.get().freeBytes()) : OptionalLong.empty();
    }

    /** {@return the reasons the clocks are held below their maximum; empty when NVML does not report them} */
    public Optional<Set<ClockEventReason>> clockEventReasons() {
        return clockEventReasonsMask.isPresent()
                ? Optional.of(ClockEventReason.fromMask(clockEventReasonsMask.getAsLong())) : Optional.empty();
    }
}
