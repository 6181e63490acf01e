package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuSample;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;

/**
 * {@code DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL} as DCGM computes it: a rate, though dcgm-exporter types it a counter,
 * of the NVLink payload bytes sent and received (all links) between two readings of a GPU, in units of 1000 KiB/s,
 * truncated: {@code trunc(delta(tx + rx bytes) / 1024 / delta seconds / 1000)}. 0 at a GPU's first reading, when
 * the counters went back (a driver reload) and when no time passed. Not thread-safe: one per reader.
 */
public final class NvlinkRates {
    private final LongSupplier nanoClock;
    private final Map<String, long[]> last = new HashMap<>();

    /** @param nanoClock the clock the rate is measured with, in nanoseconds */
    public NvlinkRates(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /**
     * @param uuid   the GPU
     * @param sample its sample now
     * @return the rate since its last sample; empty when the sample has no NVLink counters
     */
    public OptionalDouble advance(String uuid, GpuSample sample) {
        if (sample.nvlinkDataTxBytes().isEmpty() || sample.nvlinkDataRxBytes().isEmpty()) {
            last.remove(uuid);
            return OptionalDouble.empty();
        }
        long bytes = sample.nvlinkDataTxBytes().getAsLong() + sample.nvlinkDataRxBytes().getAsLong();
        if (bytes < 0) {
            // Two counters near 2^63 each: the sum is past a long; such a GPU reports no rate.
            last.remove(uuid);
            return OptionalDouble.empty();
        }
        long now = nanoClock.getAsLong();
        long[] before = last.put(uuid, new long[] {bytes, now});
        if (before == null || bytes < before[0] || now - before[1] <= 0) {
            return OptionalDouble.of(0);
        }
        double seconds = (now - before[1]) / 1e9;
        return OptionalDouble.of(Math.floor((bytes - before[0]) / 1024.0 / seconds / 1000.0));
    }
}
