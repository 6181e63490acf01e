package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The values of dcgm-exporter's default counters that a plain sample did not hold: the memory temperature and the
 * NVLink counters (one {@code nvmlDeviceGetFieldValues} call), encoder and decoder utilization, and the vGPU
 * licence ({@code nvmlDeviceGetGridLicensableFeatures_v4}, else {@code _v3}). Each is read through the binding
 * as it loads the driver's library, and is empty, not zero, where the driver does not offer it.
 */
class NvmlDcgmFieldsTest {
    private static final int NOT_SUPPORTED = NvmlReturn.NOT_SUPPORTED.code();
    private static final int FI_MEMORY_TEMP = 82;
    private static final int FI_NVLINK_DATA_TX = 138;
    private static final int FI_NVLINK_DATA_RX = 139;

    @AfterEach
    void nothingLeftInitialized() {
        for (String v : List.of(NvmlDouble.FULL, NvmlDouble.LEGACY, NvmlDouble.ANCIENT)) {
            assertEquals(0, NvmlDouble.control(v).ndInitCount(), "NVML left initialized in " + v);
        }
    }

    @Test
    void eachValueIsReadAsTheDriverReportsIt() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuSample h100 = gpus.device(0).sample();
            assertEquals(OptionalInt.of(62), h100.memoryTemperatureCelsius());
            assertEquals(OptionalInt.of(0), h100.encoderUtilizationPercent(), "an idle encoder is 0, not absent");
            assertEquals(OptionalInt.of(12), h100.decoderUtilizationPercent());
            assertEquals(OptionalLong.of(123456789L * 1024), h100.nvlinkDataTxBytes(), "KiB converted to bytes");
            assertEquals(OptionalLong.of(98765432L * 1024), h100.nvlinkDataRxBytes());
            assertEquals(Optional.of(false), h100.vgpuLicensed(), "bare metal: vGPU licensing is not supported");
            GpuSample a100 = gpus.device(1).sample();
            assertEquals(OptionalInt.of(41), a100.memoryTemperatureCelsius());
            assertEquals(OptionalInt.of(3), a100.encoderUtilizationPercent());
            assertEquals(OptionalInt.of(0), a100.decoderUtilizationPercent());
            assertEquals(OptionalLong.of(5000L * 1024), a100.nvlinkDataTxBytes());
            assertEquals(OptionalLong.of(7000L * 1024), a100.nvlinkDataRxBytes());
        }
        assertEquals(2, c.ndCallCount("nvmlDeviceGetFieldValues"), "one call per sample for all three fields");
        assertEquals(0, c.ndCallCount("nvmlDeviceGetGridLicensableFeatures_v3"), "the newest function is used");
    }

    @Test
    void theNvlinkCountersSumEveryLinkAndAreReadAgainEachSample() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "nvlink.tx.kib", 18 * 1000 + 7)); // one link's share would be 1000
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice gpu = gpus.device(0);
            assertEquals(OptionalLong.of((18 * 1000 + 7) * 1024L), gpu.sample().nvlinkDataTxBytes());
            ok(c.ndSetValue(0, "nvlink.tx.kib", 20_000_000_000L));
            ok(c.ndSetValue(0, "nvlink.rx.kib", 0));
            GpuSample later = gpu.sample();
            assertEquals(OptionalLong.of(20_000_000_000L * 1024), later.nvlinkDataTxBytes());
            assertEquals(OptionalLong.of(0), later.nvlinkDataRxBytes(), "no traffic is 0 bytes, not absent");
        }
    }

    @Test
    void whatTheGpuDoesNotOfferIsEmptyNotZero() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndFailField(0, FI_MEMORY_TEMP, NOT_SUPPORTED));         // a GDDR board
        ok(c.ndSetValue(0, "nvlink.links", 0));                      // a PCIe board without NVLink
        ok(c.ndFail(0, "nvmlDeviceGetEncoderUtilization", NOT_SUPPORTED));
        ok(c.ndFail(0, "nvmlDeviceGetDecoderUtilization", NvmlReturn.NO_PERMISSION.code()));
        ok(c.ndFail(0, "nvmlDeviceGetGridLicensableFeatures_v4", NOT_SUPPORTED));
        ok(c.ndSetValue(1, "memory.temperature", 0));
        ok(c.ndFailField(1, FI_NVLINK_DATA_RX, NOT_SUPPORTED));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuSample s = gpus.device(0).sample();
            assertEquals(OptionalInt.empty(), s.memoryTemperatureCelsius());
            assertEquals(OptionalLong.empty(), s.nvlinkDataTxBytes());
            assertEquals(OptionalLong.empty(), s.nvlinkDataRxBytes());
            assertEquals(OptionalInt.empty(), s.encoderUtilizationPercent());
            assertEquals(OptionalInt.empty(), s.decoderUtilizationPercent());
            assertEquals(Optional.empty(), s.vgpuLicensed());
            assertEquals(OptionalInt.of(98), s.gpuUtilizationPercent(), "the rest of the sample is read");
            GpuSample other = gpus.device(1).sample();
            assertEquals(OptionalInt.of(0), other.memoryTemperatureCelsius(), "0 read is 0");
            assertEquals(OptionalLong.of(5000L * 1024), other.nvlinkDataTxBytes(), "fields fail one by one");
            assertEquals(OptionalLong.empty(), other.nvlinkDataRxBytes());
        }
    }

    @Test
    void aMemoryTemperatureAbove200IsNoReading() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "memory.temperature", 200));
        ok(c.ndSetValue(1, "memory.temperature", 0xFFFF_FFFFL));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(OptionalInt.of(200), gpus.device(0).sample().memoryTemperatureCelsius());
            assertEquals(OptionalInt.empty(), gpus.device(1).sample().memoryTemperatureCelsius());
            ok(c.ndSetValue(1, "memory.temperature", 201));
            assertEquals(OptionalInt.empty(), gpus.device(1).sample().memoryTemperatureCelsius());
        }
    }

    @Test
    void aMemoryTemperatureLabelledDoubleIsReadWhetherTheDriverWroteADoubleOrAnInteger() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "memory.temperature.encoding", 1)); // valueType double, dVal 62.0
        ok(c.ndSetValue(1, "memory.temperature.encoding", 2)); // valueType double, uiVal 41 (R545)
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(OptionalInt.of(62), gpus.device(0).sample().memoryTemperatureCelsius());
            assertEquals(OptionalInt.of(41), gpus.device(1).sample().memoryTemperatureCelsius());
        }
    }

    @Test
    void nvlinkCountsThatCannotBeBytesAreEmpty() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "nvlink.tx.kib", Long.MAX_VALUE / 1024 + 1)); // bytes would pass 2^63 - 1
        ok(c.ndSetValue(0, "nvlink.rx.kib", -1));                         // 2^64 - 1
        ok(c.ndSetValue(1, "nvlink.tx.kib", Long.MAX_VALUE / 1024));
        ok(c.ndSetValue(1, "nvlink.rx.kib", Long.MIN_VALUE));             // 2^63
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuSample s = gpus.device(0).sample();
            assertEquals(OptionalLong.empty(), s.nvlinkDataTxBytes());
            assertEquals(OptionalLong.empty(), s.nvlinkDataRxBytes());
            GpuSample t = gpus.device(1).sample();
            assertEquals(OptionalLong.of(Long.MAX_VALUE / 1024 * 1024), t.nvlinkDataTxBytes());
            assertEquals(OptionalLong.empty(), t.nvlinkDataRxBytes());
        }
    }

    @Test
    void aFieldFailingOtherwiseThrowsNamingTheField() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndFailField(0, FI_NVLINK_DATA_TX, 999));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(0).sample());
            assertEquals(NvmlReturn.UNKNOWN, e.nvmlReturn());
            assertTrue(e.function().contains("NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX"), e.function());
            assertTrue(e.getMessage().startsWith("nvmlDeviceGetFieldValues (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX)"
                    + " failed on GPU 0 (GPU-"), e.getMessage());
        }
    }

    @Test
    void aLicensedVgpuIsTrueAndAnUnlicensedOneFalseWhereverItsEntryLies() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        // The other entries hold the compute feature in the opposite state: reading the wrong entry gives the
        // wrong answer.
        for (int id : new int[] {0, 1}) {
            ok(c.ndSetValue(id, "vgpu.supported", 1));
            ok(c.ndSetValue(id, "vgpu.count", 3));
            ok(c.ndSetValue(id, "vgpu.slot", 2));
        }
        ok(c.ndSetValue(0, "vgpu.licensed", 1));
        ok(c.ndSetValue(1, "vgpu.licensed", 0));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.of(true), gpus.device(0).sample().vgpuLicensed());
            assertEquals(Optional.of(false), gpus.device(1).sample().vgpuLicensed());
            ok(c.ndSetValue(0, "vgpu.slot", 7)); // no entry holds the vGPU feature
            assertEquals(Optional.empty(), gpus.device(0).sample().vgpuLicensed());
            ok(c.ndSetValue(0, "vgpu.slot", 1));
            ok(c.ndSetValue(0, "vgpu.count", 1)); // the vGPU entry is past the count the driver gives
            assertEquals(Optional.empty(), gpus.device(0).sample().vgpuLicensed());
        }
    }

    @Test
    void aLegacyDriverIsReadThroughTheV3LayoutAndItsFieldValues() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.LEGACY);
        ok(c.ndSetValue(0, "vgpu.supported", 1));
        ok(c.ndSetValue(0, "vgpu.count", 3));
        ok(c.ndSetValue(0, "vgpu.slot", 2));
        ok(c.ndSetValue(0, "vgpu.licensed", 1));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.LEGACY)) {
            GpuSample s = gpus.device(0).sample();
            assertEquals(Optional.of(true), s.vgpuLicensed(), "entries 268 bytes apart, without the expiry");
            assertEquals(OptionalInt.of(62), s.memoryTemperatureCelsius());
            assertEquals(OptionalLong.of(123456789L * 1024), s.nvlinkDataTxBytes());
            assertEquals(OptionalInt.of(12), s.decoderUtilizationPercent());
        }
        assertEquals(1, c.ndCallCount("nvmlDeviceGetGridLicensableFeatures_v3"));
    }

    @Test
    void aV4FunctionRefusingItsLayoutFallsBackToV3() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ok(c.ndSetValue(0, "vgpu.supported", 1));
        ok(c.ndSetValue(0, "vgpu.count", 2));
        ok(c.ndSetValue(0, "vgpu.slot", 1));
        ok(c.ndSetValue(0, "vgpu.licensed", 1));
        ok(c.ndFail(0, "nvmlDeviceGetGridLicensableFeatures_v4", NvmlReturn.ARGUMENT_VERSION_MISMATCH.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.of(true), gpus.device(0).sample().vgpuLicensed());
        }
        assertEquals(1, c.ndCallCount("nvmlDeviceGetGridLicensableFeatures_v3"));
    }

    @Test
    void anAncientDriverWithoutFieldValuesOrLicenceFunctionsLeavesThemEmpty() {
        NvmlDouble.reset(NvmlDouble.ANCIENT);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.ANCIENT)) {
            GpuSample s = gpus.device(0).sample();
            assertEquals(OptionalInt.empty(), s.memoryTemperatureCelsius());
            assertEquals(OptionalLong.empty(), s.nvlinkDataTxBytes());
            assertEquals(OptionalLong.empty(), s.nvlinkDataRxBytes());
            assertEquals(Optional.empty(), s.vgpuLicensed());
            assertEquals(OptionalInt.of(12), s.decoderUtilizationPercent(), "every driver has the decoder's");
        }
    }

    @Test
    void aMigDeviceHasNoneOfItsOwn() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        int mig = c.ndAddMigDevice(0, 0, "MIG-11111111-2222-3333-4444-555555555555", 1, 0, 20 * GIB, 6 * GIB);
        assertTrue(mig > 0);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuSample s = gpus.device(0).migDevices().get(0).sample();
            assertTrue(s.memory().isPresent(), "a MIG device has memory of its own");
            assertEquals(OptionalInt.empty(), s.memoryTemperatureCelsius());
            assertEquals(OptionalInt.empty(), s.encoderUtilizationPercent());
            assertEquals(OptionalInt.empty(), s.decoderUtilizationPercent());
            assertEquals(OptionalLong.empty(), s.nvlinkDataTxBytes());
            assertEquals(Optional.empty(), s.vgpuLicensed());
            assertFalse(gpus.device(0).sample().memoryTemperatureCelsius().isEmpty(), "the parent GPU has them");
        }
    }
}
