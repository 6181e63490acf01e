package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.gpu.RemappedRows;
import io.github.procscope.api.gpu.XidErrors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

import static io.github.procscope.nvml.NvmlDouble.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PCIe replays, remapped rows and XID errors: read where NVML offers them, empty where it does not. */
class NvmlErrorCountersTest {
    private static final int NOT_SUPPORTED = NvmlReturn.NOT_SUPPORTED.code();

    @AfterEach
    void nothingLeftOpen() {
        for (String variant : new String[] {NvmlDouble.FULL, NvmlDouble.LEGACY}) {
            assertEquals(0, NvmlDouble.control(variant).ndInitCount());
            assertEquals(0, NvmlDouble.control(variant).ndEventSetsOutstanding(), "the event set was freed");
        }
    }

    @Test
    void pcieReplaysAndRemappedRowsAreReadPerGpu() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(1, "pcie.replays", 4_000_000_000L)); // above 2^31: read unsigned
        ok(c.ndSetValue(1, "remap.correctable", 5));
        ok(c.ndSetValue(1, "remap.failure", 1));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(OptionalLong.of(3), gpus.device(0).pcieReplays());
            assertEquals(Optional.of(new RemappedRows(1, 2, true, false)), gpus.device(0).remappedRows());
            assertEquals(OptionalLong.of(4_000_000_000L), gpus.device(1).pcieReplays());
            assertEquals(Optional.of(new RemappedRows(5, 0, false, true)), gpus.device(1).remappedRows());
        }
    }

    @Test
    void aGpuThatDoesNotOfferThemHasNone() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndFail(0, "nvmlDeviceGetPcieReplayCounter", NOT_SUPPORTED));
        ok(c.ndFail(0, "nvmlDeviceGetRemappedRows", NOT_SUPPORTED));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(OptionalLong.empty(), gpus.device(0).pcieReplays());
            assertEquals(Optional.empty(), gpus.device(0).remappedRows());
            assertTrue(gpus.device(1).pcieReplays().isPresent(), "the other GPU still offers them");
            assertTrue(gpus.device(1).remappedRows().isPresent());
        }
    }

    @Test
    void aDriverWithoutRowRemappingHasNoneAndIsNotAskedForIt() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.LEGACY);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.LEGACY)) {
            assertFalse(NvmlFunctionsTest.functions(NvmlDouble.LEGACY).remappedRows.isPresent());
            assertEquals(Optional.empty(), gpus.device(0).remappedRows());
            assertEquals(OptionalLong.of(3), gpus.device(0).pcieReplays());
        }
        assertEquals(0, c.ndCallCount("nvmlDeviceGetRemappedRows"));
    }

    @Test
    void anotherFailureNamesTheFunctionAndTheGpu() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndFail(1, "nvmlDeviceGetRemappedRows", NvmlReturn.UNKNOWN.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(1).remappedRows());
            assertEquals(NvmlReturn.UNKNOWN, e.nvmlReturn());
            assertTrue(e.getMessage().contains("nvmlDeviceGetRemappedRows"), e.getMessage());
            assertTrue(e.getMessage().contains("GPU 1"), e.getMessage());
        }
    }

    @Test
    void xidErrorsAreCountedFromTheFirstCallWithTheLastOneKept() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        assertEquals(0, c.ndInjectXid(0, 13), "nothing watches before the first call");
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice gpu0 = gpus.device(0);
            GpuDevice gpu1 = gpus.device(1);
            assertEquals(Optional.of(XidErrors.none()), gpu0.xidErrors(), "the XID raised before is not seen");
            assertEquals(1, c.ndEventSetsOutstanding(), "one event set for the inventory");
            Instant before = Instant.now();
            assertEquals(1, c.ndInjectXid(0, 79));
            XidErrors seen = awaitCount(gpu0, 1);
            assertEquals(OptionalLong.of(79), seen.lastXid());
            assertFalse(seen.lastAt().orElseThrow().isBefore(before));
            assertEquals(1, c.ndInjectXid(0, 48));
            assertEquals(1, c.ndInjectXid(1, 94));
            assertEquals(OptionalLong.of(48), awaitCount(gpu0, 2).lastXid());
            assertEquals(OptionalLong.of(94), awaitCount(gpu1, 1).lastXid());
            assertEquals(1, c.ndEventSetsOutstanding(), "later calls reuse the watcher");
        }
        assertEquals(0, c.ndEventSetsOutstanding());
        assertEquals(0, c.ndInjectXid(0, 31), "nothing watches after close");
    }

    @Test
    void aGpuWithoutXidEventsHasNoneAndTheOthersAreWatched() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "events.supported", 0x6)); // ECC events only
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.empty(), gpus.device(0).xidErrors());
            assertEquals(Optional.of(XidErrors.none()), gpus.device(1).xidErrors());
            assertEquals(0, c.ndInjectXid(0, 79));
            assertEquals(1, c.ndInjectXid(1, 79));
            assertEquals(OptionalLong.of(79), awaitCount(gpus.device(1), 1).lastXid());
        }
    }

    @Test
    void noGpuWithXidEventsMeansNoWatcherAndNoSetLeftBehind() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "events.supported", 0));
        ok(c.ndSetValue(1, "events.supported", 0));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.empty(), gpus.device(0).xidErrors());
            assertEquals(Optional.empty(), gpus.device(1).xidErrors());
            assertEquals(0, c.ndEventSetsOutstanding());
        }
        assertEquals(1, c.ndCallCount("nvmlEventSetCreate"), "tried once per inventory, not per call");
    }

    @Test
    void aFailedEventSetIsATypedErrorNotAThread() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndFail(-1, "nvmlEventSetCreate", NvmlReturn.MEMORY.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(0).xidErrors());
            assertEquals("nvmlEventSetCreate", e.function());
            assertEquals(NvmlReturn.MEMORY, e.nvmlReturn());
        }
    }

    @Test
    void closingWhileTheWatcherWaitsIsQuick() {
        NvmlDouble.reset(NvmlDouble.FULL);
        NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
        assertTrue(gpus.device(0).xidErrors().isPresent());
        long start = System.nanoTime();
        gpus.close();
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < 5 * XidWatcher.WAIT_MS, "close waited " + ms + " ms for the watcher");
        assertThrows(IllegalStateException.class, () -> gpus.device(0));
    }

    private static XidErrors awaitCount(GpuDevice gpu, long count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        XidErrors now = gpu.xidErrors().orElseThrow();
        while (now.count() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
            now = gpu.xidErrors().orElseThrow();
        }
        assertEquals(count, now.count(), "XIDs seen by " + gpu.uuid());
        return now;
    }
}
