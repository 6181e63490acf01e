package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A GPU that falls off the bus is reported for itself; the others keep working. */
class NvmlGpuLostTest {

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    @Test
    void aLostGpuIsReportedWithoutBreakingTheOthers() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlDouble.ok(c.ndSetValue(1, "lost.after", 25));
            GpuDevice lost = gpus.device(1);
            GpuDevice healthy = gpus.device(0);
            NvmlException e = null;
            int samples = 0;
            while (e == null) {
                try {
                    lost.sample();
                    samples++;
                    assertTrue(samples < 25, "GPU_IS_LOST after 25 calls");
                } catch (NvmlException thrown) {
                    e = thrown;
                }
            }
            assertTrue(samples >= 1, "the GPU worked before it was lost");
            assertEquals(NvmlReturn.GPU_IS_LOST, e.nvmlReturn());
            assertEquals("GPU is lost", e.nvmlMessage());
            assertTrue(e.getMessage().contains("NVML_ERROR_GPU_IS_LOST (15)"), e.getMessage());
            assertTrue(e.getMessage().contains("Xid"), e.getMessage());
            assertTrue(lost.isLost());

            long callsBefore = c.ndCallCount("nvmlDeviceGetUtilizationRates");
            NvmlException again = assertThrows(NvmlException.class, lost::sample);
            assertEquals(NvmlReturn.GPU_IS_LOST, again.nvmlReturn());
            assertTrue(again.getMessage().contains("reported lost earlier"), again.getMessage());
            assertThrows(NvmlException.class, lost::processes);
            assertThrows(NvmlException.class, () -> lost.processUtilization(Instant.EPOCH));
            assertEquals(callsBefore, c.ndCallCount("nvmlDeviceGetUtilizationRates"), "a lost GPU is not asked again");

            assertFalse(healthy.isLost());
            for (int i = 0; i < 5; i++) {
                assertTrue(healthy.sample().gpuUtilizationPercent().isPresent());
            }
            assertEquals(0, healthy.processes().processes().size());
        }
    }

    @Test
    void aGpuLostInAProcessListIsLostToo() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetGraphicsRunningProcesses_v3", NvmlReturn.GPU_IS_LOST.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(0).processes());
            assertEquals("nvmlDeviceGetGraphicsRunningProcesses_v3", e.function());
            assertTrue(gpus.device(0).isLost());
            assertFalse(gpus.device(1).isLost());
        }
    }
}
