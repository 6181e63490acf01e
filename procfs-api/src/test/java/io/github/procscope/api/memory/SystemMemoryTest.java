package io.github.procscope.api.memory;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SystemMemoryTest {
    private static final long K = 1024;

    private static SystemMemory mem(long total, long free, long available, long buffers, long cached, long sreclaim) {
        return new SystemMemory(total * K, free * K, available * K, AvailableSource.KERNEL, buffers * K, cached * K,
                OptionalLong.of(9356 * K), OptionalLong.of(sreclaim * K), 0, 0, Map.of(), Map.of());
    }

    @Test
    void usedIsTotalMinusAvailableAsProcpsNg4Computes() {
        SystemMemory m = mem(24683584, 24282212, 24241608, 1868, 147368, 17716);
        assertEquals((24683584L - 24241608L) * K, m.usedBytes());
        assertEquals((1868L + 147368 + 17716) * K, m.bufferCacheBytes());
        assertEquals((147368L + 17716) * K, m.cacheBytes());
        assertEquals((24683584L - 24282212 - 1868 - 147368 - 17716) * K, m.usedExcludingCacheBytes());
    }

    @Test
    void availableAboveTotalFallsBackToFreeAsInsideSomeContainers() {
        SystemMemory m = mem(1000, 300, 5000, 0, 0, 0);
        assertEquals(700 * K, m.usedBytes());
    }

    @Test
    void negativeUsedFallsBackToTotalMinusFree() {
        SystemMemory m = mem(1000, 900, 1000, 200, 300, 0);
        assertEquals(0, m.usedBytes());
        assertEquals(100 * K, m.usedExcludingCacheBytes(), "1000 - 900 - 200 - 300 < 0: total - free");
    }

    @Test
    void swapUsedAndFieldsLookup() {
        SystemMemory m = new SystemMemory(1, 1, 1, AvailableSource.ESTIMATED, 0, 0, OptionalLong.empty(),
                OptionalLong.empty(), 2048, 1024, Map.of("Dirty", 4096L), Map.of("HugePages_Total", 0L));
        assertEquals(1024, m.swapUsedBytes());
        assertEquals(OptionalLong.of(4096), m.field("Dirty"));
        assertEquals(OptionalLong.empty(), m.field("Nope"));
        assertEquals(0, m.cacheBytes(), "no SReclaimable on old kernels counts as 0");
    }

    @Test
    void negativeSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> mem(-1, 0, 0, 0, 0, 0));
    }
}
