package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpmMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SM activity and occupancy through GPM: two samples at least 100 ms apart. */
class NvmlGpmTest {

    @AfterEach
    void nothingLeftInitialized() {
        NvmlDouble.Control c = NvmlDouble.control(NvmlDouble.FULL);
        assertEquals(0, c.ndInitCount());
        assertEquals(0, c.ndGpmOutstanding(), "every GPM sample was freed");
    }

    @Test
    void smActivityAndOccupancyBetweenTwoSamples() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndSetGpmMetric(0, 3, Double.NaN));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertTrue(gpus.device(0).gpmSupported());
            GpmMetrics m = gpus.device(0).gpmMetrics(Duration.ofMillis(150)).orElseThrow();
            assertEquals(gpus.device(0).uuid(), m.deviceUuid());
            assertEquals(OptionalDouble.of(97.5), m.graphicsActivityPercent());
            assertEquals(OptionalDouble.of(61.25), m.smActivityPercent());
            assertEquals(OptionalDouble.empty(), m.smOccupancyPercent(), "a metric the driver did not compute");
            assertEquals(OptionalDouble.of(42.0), m.tensorActivityPercent());
            assertEquals(OptionalDouble.of(55.0), m.dramBandwidthPercent());
            assertEquals(OptionalDouble.empty(), m.fp64ActivityPercent());
            assertTrue(m.interval().compareTo(Duration.ofMillis(150)) >= 0, m.interval().toString());
        }
        assertTrue(c.ndLastGpmIntervalMs() >= 150, "the driver saw samples " + c.ndLastGpmIntervalMs() + " ms apart");
        assertEquals(2, c.ndCallCount("nvmlGpmSampleGet"));
    }

    @Test
    void pcieRatesAreConvertedFromMibPerSecondToBytesPerSecond() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndSetGpmMetric(0, 21, Double.NaN));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpmMetrics m = gpus.device(0).gpmMetrics(Duration.ofMillis(100)).orElseThrow();
            assertEquals(OptionalDouble.of(1500.0 * 1024 * 1024), m.pcieTxBytesPerSecond());
            assertEquals(OptionalDouble.empty(), m.pcieRxBytesPerSecond(), "a rate the driver did not compute");
            NvmlDouble.ok(c.ndSetGpmMetric(0, 21, 0.5));
            NvmlDouble.ok(c.ndSetGpmMetric(0, 20, 0.0));
            GpmMetrics again = gpus.device(0).gpmMetrics(Duration.ofMillis(100)).orElseThrow();
            assertEquals(OptionalDouble.of(512.0 * 1024), again.pcieRxBytesPerSecond());
            assertEquals(OptionalDouble.of(0.0), again.pcieTxBytesPerSecond(), "an idle link is 0, not absent");
        }
    }

    @Test
    void gpusBeforeHopperHaveNone() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertFalse(gpus.device(1).gpmSupported());
            assertEquals(Optional.empty(), gpus.device(1).gpmMetrics(Duration.ofMillis(100)));
        }
    }

    @Test
    void intervalsShorterThanNvmlsRefreshAreRefused() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> gpus.device(0).gpmMetrics(Duration.ofMillis(99)));
            assertTrue(e.getMessage().contains("100 ms"), e.getMessage());
        }
    }
}
