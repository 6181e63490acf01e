package io.github.procscope.nvml;

import com.sun.jna.Structure;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every JNA structure of the raw binding has the C size of its {@code nvml.h} type, as the test double's
 * compiler lays it out, and the versioned ones carry {@code NVML_STRUCT_VERSION}.
 */
class StructureSizeTest {

    @Test
    void everyStructureHasTheSizeOfItsCType() {
        NvmlDouble.Control c = NvmlDouble.control(NvmlDouble.FULL);
        Map<String, Structure> structures = new LinkedHashMap<>();
        structures.put("nvmlPciInfo_t", new NvmlStructs.PciInfo());
        structures.put("nvmlMemory_t", new NvmlStructs.Memory());
        structures.put("nvmlMemory_v2_t", new NvmlStructs.MemoryV2());
        structures.put("nvmlUtilization_t", new NvmlStructs.Utilization());
        structures.put("nvmlProcessInfo_v1_t", new NvmlStructs.ProcessInfoV1());
        structures.put("nvmlProcessInfo_v2_t", new NvmlStructs.ProcessInfoV2());
        structures.put("nvmlProcessDetail_v1_t", new NvmlStructs.ProcessDetailV1());
        structures.put("nvmlProcessUtilizationSample_t", new NvmlStructs.ProcessUtilizationSample());
        structures.put("nvmlProcessUtilizationInfo_v1_t", new NvmlStructs.ProcessUtilizationInfoV1());
        structures.put("nvmlProcessesUtilizationInfo_v1_t", new NvmlStructs.ProcessesUtilizationInfoV1());
        structures.put("nvmlTemperature_v1_t", new NvmlStructs.TemperatureV1());
        structures.put("nvmlGpmSupport_t", new NvmlStructs.GpmSupport());
        structures.put("nvmlGpmMetric_t", new NvmlStructs.GpmMetric());
        structures.put("nvmlGpmMetricsGet_t", new NvmlStructs.GpmMetricsGet());
        structures.put("nvmlFieldValue_t", new NvmlStructs.FieldValue());
        structures.put("nvmlGridLicenseExpiry_t", new NvmlStructs.GridLicenseExpiry());
        structures.put("nvmlGridLicensableFeature_t", new NvmlStructs.GridLicensableFeatureV4());
        structures.put("nvmlGridLicensableFeatures_t", new NvmlStructs.GridLicensableFeaturesV4());
        structures.put("nvmlGridLicensableFeature_t/v3", new NvmlStructs.GridLicensableFeatureV3());
        structures.put("nvmlGridLicensableFeatures_t/v3", new NvmlStructs.GridLicensableFeaturesV3());
        for (Map.Entry<String, Structure> e : structures.entrySet()) {
            long cSize = c.ndSizeof(e.getKey());
            assertEquals(cSize, e.getValue().size(), e.getKey() + ": JNA lays out " + e.getValue().size()
                    + " bytes, C " + cSize);
        }
        assertEquals(-1, c.ndSizeof("nvmlNoSuchStruct_t"), "the double knows which names it has");
    }

    @Test
    void theSizesAreTheOnesNvmlDocuments() {
        // Fixed by nvml.h's field lists on LP64 Linux: a wrong field type or order changes them.
        assertEquals(68, new NvmlStructs.PciInfo().size());
        assertEquals(24, new NvmlStructs.Memory().size());
        assertEquals(40, new NvmlStructs.MemoryV2().size());
        assertEquals(16, new NvmlStructs.ProcessInfoV1().size());
        assertEquals(24, new NvmlStructs.ProcessInfoV2().size());
        assertEquals(32, new NvmlStructs.ProcessDetailV1().size());
        assertEquals(40, new NvmlStructs.GpmMetric().size());
        assertEquals(24 + 333 * 40, new NvmlStructs.GpmMetricsGet().size());
        assertEquals(40, new NvmlStructs.FieldValue().size());
        assertEquals(16, new NvmlStructs.GridLicenseExpiry().size());
        assertEquals(284, new NvmlStructs.GridLicensableFeatureV4().size());
        assertEquals(8 + 3 * 284, new NvmlStructs.GridLicensableFeaturesV4().size());
        assertEquals(268, new NvmlStructs.GridLicensableFeatureV3().size());
        assertEquals(8 + 3 * 268, new NvmlStructs.GridLicensableFeaturesV3().size());
    }

    @Test
    void versionedStructuresCarryTheirSizeAndVersion() {
        assertEquals(40 | (2 << 24), new NvmlStructs.MemoryV2().version);
        assertEquals(12 | (1 << 24), new NvmlStructs.TemperatureV1().version);
        assertEquals(24 | (1 << 24), new NvmlStructs.ProcessesUtilizationInfoV1().version);
        assertEquals(1, new NvmlStructs.GpmSupport().version);
        assertEquals(1, new NvmlStructs.GpmMetricsGet().version);
    }
}
