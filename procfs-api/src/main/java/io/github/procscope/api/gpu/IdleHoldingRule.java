package io.github.procscope.api.gpu;

/**
 * When a GPU counts as "idle while holding memory": someone left a notebook kernel open, or a dead
 * experiment's process keeps its allocations. One reading proves nothing (the run may be between steps),
 * so the rule looks at a window of samples: the mean GPU utilization is below
 * {@link #maxMeanUtilizationPercent()} while every sample shows more than {@link #minMemoryUsedBytes()}
 * used, over at least {@link #minSamples()} samples.
 *
 * @param maxMeanUtilizationPercent the mean utilization below which the GPU counts as idle, percent
 * @param minMemoryUsedBytes        the used memory above which it counts as holding, in bytes
 * @param minSamples                the fewest samples (with both figures) a verdict needs, at least 1
 */
public record IdleHoldingRule(double maxMeanUtilizationPercent, long minMemoryUsedBytes, int minSamples) {
    /** Below 5% mean utilization while more than 1 GiB is used, over at least 3 samples. */
    public static final IdleHoldingRule DEFAULT = new IdleHoldingRule(5.0, 1L << 30, 3);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a threshold is out of range
     */
    public IdleHoldingRule {
        if (!(maxMeanUtilizationPercent >= 0.0 && maxMeanUtilizationPercent <= 100.0)) {
            throw new IllegalArgumentException("utilization threshold must be between 0 and 100 percent: "
                    + maxMeanUtilizationPercent);
        }
        if (minMemoryUsedBytes < 0) {
            throw new IllegalArgumentException("memory threshold must not be negative: " + minMemoryUsedBytes);
        }
        if (minSamples < 1) {
            throw new IllegalArgumentException("a verdict needs at least one sample: " + minSamples);
        }
    }

    /**
     * {@return the verdict}
     *
     * @param meanUtilizationPercent the mean GPU utilization over the window
     * @param minUsedBytes           the least memory used in any sample of the window
     * @param samples                how many samples had both figures
     */
    public IdleHoldingVerdict judge(double meanUtilizationPercent, long minUsedBytes, int samples) {
        if (samples < minSamples) {
            return IdleHoldingVerdict.INSUFFICIENT_DATA;
        }
        return meanUtilizationPercent < maxMeanUtilizationPercent && minUsedBytes > minMemoryUsedBytes
                ? IdleHoldingVerdict.IDLE_HOLDING : IdleHoldingVerdict.NOT_IDLE_HOLDING;
    }
}
