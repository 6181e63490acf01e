package io.github.procscope.api.gpu;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class NvmlReturnTest {

    @Test
    void everyCodeOfNvmlHIsThereOnceWithItsName() {
        Set<Integer> codes = new HashSet<>();
        for (NvmlReturn r : NvmlReturn.values()) {
            if (r == NvmlReturn.UNRECOGNIZED) {
                continue;
            }
            assertTrue(codes.add(r.code()), "duplicate code " + r.code());
            assertEquals(r, NvmlReturn.of(r.code()));
            assertEquals(r == NvmlReturn.SUCCESS ? "NVML_SUCCESS" : "NVML_ERROR_" + r.name(), r.cName());
        }
        // nvml.h: 0 to 30 and 999
        for (int i = 0; i <= 30; i++) {
            assertTrue(codes.contains(i), "missing code " + i);
        }
        assertTrue(codes.contains(999));
        assertEquals(32, codes.size());
        assertEquals(15, NvmlReturn.GPU_IS_LOST.code());
        assertEquals(18, NvmlReturn.LIB_RM_VERSION_MISMATCH.code());
    }

    @Test
    void anyOtherValueIsUnrecognized() {
        qt().forAll(integers().all()).assuming(i -> (i < 0 || i > 30) && i != 999)
                .check(i -> NvmlReturn.of(i) == NvmlReturn.UNRECOGNIZED);
    }

    @Test
    void theExceptionNamesFunctionDeviceCodeMessageAndAdvice() {
        NvmlException e = new NvmlException("nvmlDeviceGetPowerUsage", 15, "GPU is lost", Optional.of("GPU 2 (GPU-x)"));
        assertEquals("nvmlDeviceGetPowerUsage failed on GPU 2 (GPU-x): NVML_ERROR_GPU_IS_LOST (15) \"GPU is lost\": "
                + NvmlReturn.GPU_IS_LOST.hint(), e.getMessage());
        assertEquals(NvmlReturn.GPU_IS_LOST, e.nvmlReturn());
        NvmlException system = new NvmlException("nvmlDeviceGetCount_v2", 1000, "", Optional.empty());
        assertEquals("nvmlDeviceGetCount_v2 failed: NVML return code (1000)", system.getMessage());
        assertEquals(Optional.empty(), system.device());
    }
}
