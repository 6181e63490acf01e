package io.github.procscope.api.gpu;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Figures of one GPU over a window of samples, and the idle-holding verdict: the "record a few minutes,
 * then look at the mean" step that tells a GPU pausing between steps from one that is held and idle.
 * Each figure is empty when no sample in the window had it.
 *
 * @param deviceIndex                 the device's index
 * @param deviceUuid                  the device's UUID
 * @param samples                     how many samples the window holds
 * @param span                        time from the first to the last sample
 * @param meanGpuUtilizationPercent   mean GPU utilization (a duty cycle: see {@link GpuSample})
 * @param maxGpuUtilizationPercent    highest GPU utilization
 * @param meanMemoryUsedBytes         mean used memory, bytes
 * @param minMemoryUsedBytes          least used memory, bytes
 * @param maxMemoryUsedBytes          most used memory, bytes
 * @param memoryTotalBytes            total memory (of the last sample that had it), bytes
 * @param meanPowerDrawWatts          mean power draw, watts
 * @param maxPowerDrawWatts           highest power draw, watts
 * @param meanTemperatureCelsius      mean temperature, degrees Celsius
 * @param maxTemperatureCelsius       highest temperature, degrees Celsius
 * @param idleHolding                 the verdict of the rule the summary was made with
 * @param lost                        whether the GPU was reported lost ({@code NVML_ERROR_GPU_IS_LOST})
 */
public record GpuSummary(int deviceIndex, String deviceUuid, int samples, Duration span,
                         OptionalDouble meanGpuUtilizationPercent, OptionalInt maxGpuUtilizationPercent,
                         OptionalDouble meanMemoryUsedBytes, OptionalLong minMemoryUsedBytes,
                         OptionalLong maxMemoryUsedBytes, OptionalLong memoryTotalBytes,
                         OptionalDouble meanPowerDrawWatts, OptionalDouble maxPowerDrawWatts,
                         OptionalDouble meanTemperatureCelsius, OptionalInt maxTemperatureCelsius,
                         IdleHoldingVerdict idleHolding, boolean lost) {

    /** Checks that no component is null. */
    public GpuSummary {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        Objects.requireNonNull(span, "span");
        Objects.requireNonNull(meanGpuUtilizationPercent, "meanGpuUtilizationPercent");
        Objects.requireNonNull(maxGpuUtilizationPercent, "maxGpuUtilizationPercent");
        Objects.requireNonNull(meanMemoryUsedBytes, "meanMemoryUsedBytes");
        Objects.requireNonNull(minMemoryUsedBytes, "minMemoryUsedBytes");
        Objects.requireNonNull(maxMemoryUsedBytes, "maxMemoryUsedBytes");
        Objects.requireNonNull(memoryTotalBytes, "memoryTotalBytes");
        Objects.requireNonNull(meanPowerDrawWatts, "meanPowerDrawWatts");
        Objects.requireNonNull(maxPowerDrawWatts, "maxPowerDrawWatts");
        Objects.requireNonNull(meanTemperatureCelsius, "meanTemperatureCelsius");
        Objects.requireNonNull(maxTemperatureCelsius, "maxTemperatureCelsius");
        Objects.requireNonNull(idleHolding, "idleHolding");
    }

    /** {@return whether the verdict is {@link IdleHoldingVerdict#IDLE_HOLDING}} */
    public boolean isIdleHolding() {
        return idleHolding == IdleHoldingVerdict.IDLE_HOLDING;
    }

    /**
     * Summarizes samples of one device, such as a log read back from disk.
     *
     * @param deviceIndex the device's index
     * @param deviceUuid  the device's UUID
     * @param samples     its samples, oldest first
     * @param rule        the idle-holding rule
     * @param lost        whether the device was reported lost
     * @return the summary
     * @throws IllegalArgumentException if a sample belongs to another device
     */
    public static GpuSummary of(int deviceIndex, String deviceUuid, List<GpuSample> samples, IdleHoldingRule rule,
                                boolean lost) {
        Objects.requireNonNull(rule, "rule");
        long utilSum = 0;
        int utilN = 0;
        int utilMax = Integer.MIN_VALUE;
        double memSum = 0;
        int memN = 0;
        long memMin = Long.MAX_VALUE;
        long memMax = Long.MIN_VALUE;
        long total = -1;
        double powerSum = 0;
        int powerN = 0;
        double powerMax = Double.NEGATIVE_INFINITY;
        long tempSum = 0;
        int tempN = 0;
        int tempMax = Integer.MIN_VALUE;
        double bothUtilSum = 0;
        long bothMemMin = Long.MAX_VALUE;
        int bothN = 0;
        for (GpuSample s : samples) {
            if (!s.deviceUuid().equals(deviceUuid)) {
                throw new IllegalArgumentException("sample of " + s.deviceUuid() + " in a summary of " + deviceUuid);
            }
            if (s.gpuUtilizationPercent().isPresent()) {
                int u = s.gpuUtilizationPercent().getAsInt();
                utilSum += u;
                utilN++;
                utilMax = Math.max(utilMax, u);
            }
            if (s.memory().isPresent()) {
                long used = s.memory().get().usedBytes();
                memSum += used;
                memN++;
                memMin = Math.min(memMin, used);
                memMax = Math.max(memMax, used);
                total = s.memory().get().totalBytes();
            }
            if (s.gpuUtilizationPercent().isPresent() && s.memory().isPresent()) {
                bothUtilSum += s.gpuUtilizationPercent().getAsInt();
                bothMemMin = Math.min(bothMemMin, s.memory().get().usedBytes());
                bothN++;
            }
            if (s.powerDrawWatts().isPresent()) {
                double w = s.powerDrawWatts().getAsDouble();
                powerSum += w;
                powerN++;
                powerMax = Math.max(powerMax, w);
            }
            if (s.temperatureCelsius().isPresent()) {
                int t = s.temperatureCelsius().getAsInt();
                tempSum += t;
                tempN++;
                tempMax = Math.max(tempMax, t);
            }
        }
        Duration span = samples.size() < 2 ? Duration.ZERO
                : Duration.between(samples.get(0).takenAt(), samples.get(samples.size() - 1).takenAt());
        IdleHoldingVerdict verdict = bothN == 0 ? IdleHoldingVerdict.INSUFFICIENT_DATA
                : rule.judge(bothUtilSum / bothN, bothMemMin, bothN);
        return new GpuSummary(deviceIndex, deviceUuid, samples.size(), span.isNegative() ? Duration.ZERO : span,
                utilN == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) utilSum / utilN),
                utilN == 0 ? OptionalInt.empty() : OptionalInt.of(utilMax),
                memN == 0 ? OptionalDouble.empty() : OptionalDouble.of(memSum / memN),
                memN == 0 ? OptionalLong.empty() : OptionalLong.of(memMin),
                memN == 0 ? OptionalLong.empty() : OptionalLong.of(memMax),
                total < 0 ? OptionalLong.empty() : OptionalLong.of(total),
                powerN == 0 ? OptionalDouble.empty() : OptionalDouble.of(powerSum / powerN),
                powerN == 0 ? OptionalDouble.empty() : OptionalDouble.of(powerMax),
                tempN == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) tempSum / tempN),
                tempN == 0 ? OptionalInt.empty() : OptionalInt.of(tempMax),
                verdict, lost);
    }
}
