package io.github.procscope.linux.sys;

import java.time.Duration;

/**
 * The two kernel constants needed to turn procfs numbers into units: clock ticks per second
 * ({@code sysconf(_SC_CLK_TCK)}, {@code AT_CLKTCK}) and the page size ({@code sysconf(_SC_PAGESIZE)},
 * {@code AT_PAGESZ}). Both come from the running kernel ({@code AuxvParser}), never from assumptions.
 *
 * @param clockTicksPerSecond clock ticks per second, positive
 * @param pageSizeBytes       page size in bytes, a positive power of two
 */
public record KernelConstants(long clockTicksPerSecond, long pageSizeBytes) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    public KernelConstants {
        if (clockTicksPerSecond <= 0) {
            throw new IllegalArgumentException("clock ticks per second must be positive: " + clockTicksPerSecond);
        }
        if (pageSizeBytes <= 0 || Long.bitCount(pageSizeBytes) != 1) {
            throw new IllegalArgumentException("page size must be a positive power of two: " + pageSizeBytes);
        }
    }

    /**
     * @param ticks a tick count, read as unsigned: the kernel's tick counts are unsigned 64-bit numbers, and one at
     *              or above 2^63 arrives as a negative {@code long}
     * @return {@code ticks} clock ticks as a duration (exact for any tick count up to 2^64-1)
     */
    public Duration ticks(long ticks) {
        return Duration.ofSeconds(Long.divideUnsigned(ticks, clockTicksPerSecond),
                Long.remainderUnsigned(ticks, clockTicksPerSecond) * NANOS_PER_SECOND / clockTicksPerSecond);
    }

    /** @return {@code pages} pages in bytes */
    public long pages(long pages) {
        return pages * pageSizeBytes;
    }
}
