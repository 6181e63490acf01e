package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuSample;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** DCGM's NVLink bandwidth: truncated 1000 KiB/s between two readings, 0 where no rate can be told. */
class NvlinkRatesTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong(5 * SECOND);
    private final NvlinkRates rates = new NvlinkRates(clock::get);

    private static GpuSample sample(OptionalLong tx, OptionalLong rx) {
        OptionalInt i = OptionalInt.empty();
        OptionalLong l = OptionalLong.empty();
        return new GpuSample(0, "GPU-x", Instant.EPOCH, i, i, Optional.empty(), i, l, l, l, l, i, i, i, i, i, i, i, l,
                Optional.empty(), i, i, i, tx, rx, Optional.empty());
    }

    private OptionalDouble at(long seconds, long txBytes, long rxBytes) {
        clock.set(seconds * SECOND);
        return rates.advance("GPU-x", sample(OptionalLong.of(txBytes), OptionalLong.of(rxBytes)));
    }

    @Test
    void aRateBetweenReadingsTruncatedTo1000KibPerSecond() {
        assertEquals(OptionalDouble.of(0), at(10, 1_000, 2_000), "the first reading");
        // 3,071,999 KiB more in 3 s: 1,023,999.67 KiB/s, 1023 in units of 1000 KiB/s
        assertEquals(OptionalDouble.of(1023), at(13, 1_000 + 3_071_999L * 1024, 2_000));
        assertEquals(OptionalDouble.of(0), at(14, 1_000 + 3_071_999L * 1024, 2_000), "nothing moved");
    }

    @Test
    void noRateAcrossACounterResetOrWithoutTimeOrCounters() {
        at(10, 1L << 40, 0);
        assertEquals(OptionalDouble.of(0), at(20, 5, 0), "the counters went back (a driver reload)");
        assertEquals(OptionalDouble.of(0), at(20, 5L << 30, 0), "no time passed");
        assertEquals(OptionalDouble.empty(), rates.advance("GPU-x", sample(OptionalLong.empty(), OptionalLong.empty())));
        assertEquals(OptionalDouble.empty(), at(30, Long.MAX_VALUE, Long.MAX_VALUE), "a sum past 2^63-1");
        assertEquals(OptionalDouble.of(0), at(40, 0, 0), "a first reading again");
    }
}
