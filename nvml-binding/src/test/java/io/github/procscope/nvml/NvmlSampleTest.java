package io.github.procscope.nvml;

import io.github.procscope.api.gpu.ClockEventReason;
import io.github.procscope.api.gpu.CudaVersion;
import io.github.procscope.api.gpu.EccErrorCounts;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuModes;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Identity, versions, modes and every metric of a sample, against the double's scripted values. */
class NvmlSampleTest {

    @AfterEach
    void nothingLeftInitialized() {
        for (String v : List.of(NvmlDouble.FULL, NvmlDouble.LEGACY, NvmlDouble.ANCIENT)) {
            assertEquals(0, NvmlDouble.control(v).ndInitCount(), "NVML left initialized in " + v);
        }
    }

    @Test
    void identityAndVersionsAreReadAtOpen() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndSetString(-1, "driver", "535.104.05"));
        NvmlDouble.ok(c.ndSetString(-1, "nvml", "12.535.104.05"));
        c.ndSetCudaVersion(12020, 0);
        NvmlDouble.ok(c.ndSetValue(1, "minor", 3));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals("535.104.05", gpus.driverVersion());
            assertEquals("12.535.104.05", gpus.nvmlVersion());
            assertEquals(Optional.of(new CudaVersion(12, 2)), gpus.cudaDriverVersion());
            assertEquals("12.2", gpus.cudaDriverVersion().orElseThrow().toString());
            GpuDevice h100 = gpus.device(0);
            assertEquals(0, h100.index());
            assertEquals("NVIDIA H100 80GB HBM3", h100.name());
            assertEquals("GPU-abc00000-1111-2222-3333-000000444444", h100.uuid());
            assertEquals(Optional.of("00000000:07:00.0"), h100.pciBusId());
            assertEquals(OptionalInt.of(0), h100.minorNumber());
            assertEquals(Optional.of(Path.of("/dev/nvidia0")), h100.deviceFile());
            assertEquals(Optional.of("1650123456780"), h100.serial());
            assertFalse(h100.isMigDevice());
            assertEquals(OptionalInt.empty(), h100.parentIndex());
            GpuDevice a100 = gpus.device(1);
            assertEquals("NVIDIA A100-SXM4-40GB", a100.name());
            assertEquals(Optional.of("00000000:0F:00.0"), a100.pciBusId());
            assertEquals(Optional.of(Path.of("/dev/nvidia3")), a100.deviceFile());
            assertEquals(Optional.of(a100), gpus.deviceByUuid(a100.uuid()));
            assertEquals(Optional.empty(), gpus.deviceByUuid("GPU-unknown"));
        }
    }

    @Test
    void theCudaVersionIsEmptyWithoutLibcuda() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        c.ndSetCudaVersion(0, NvmlReturn.LIBRARY_NOT_FOUND.code());
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.empty(), gpus.cudaDriverVersion());
        }
    }

    @Test
    void aSampleHoldsEveryMetricAsTheDriverReportsIt() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            Instant before = Instant.now();
            GpuSample s = gpus.device(0).sample();
            assertFalse(s.takenAt().isBefore(before));
            assertEquals(0, s.deviceIndex());
            assertEquals(gpus.device(0).uuid(), s.deviceUuid());
            assertEquals(OptionalInt.of(98), s.gpuUtilizationPercent());
            assertEquals(OptionalInt.of(45), s.memoryUtilizationPercent());
            GpuMemory m = s.memory().orElseThrow();
            assertEquals(85520809984L, m.totalBytes());
            assertEquals(30512 * MIB, m.usedBytes());
            assertEquals(OptionalLong.of(512 * MIB), m.reservedBytes());
            assertEquals(85520809984L - 512 * MIB - 30512 * MIB, m.freeBytes());
            assertFalse(m.usedIncludesReserved(), "v2 reports reserved apart");
            assertEquals(OptionalInt.of(71), s.temperatureCelsius());
            assertEquals(OptionalLong.of(245300), s.powerDrawMilliwatts());
            assertEquals(245.3, s.powerDrawWatts().orElseThrow(), 1e-9);
            assertEquals(OptionalLong.of(700000), s.enforcedPowerLimitMilliwatts());
            assertEquals(OptionalLong.of(700000), s.powerManagementLimitMilliwatts());
            assertEquals(OptionalLong.of(987654321L), s.energyMillijoules());
            assertEquals(OptionalInt.of(1980), s.graphicsClockMhz());
            assertEquals(OptionalInt.of(1980), s.smClockMhz());
            assertEquals(OptionalInt.of(2619), s.memoryClockMhz());
            assertEquals(OptionalInt.of(1980), s.maxSmClockMhz());
            assertEquals(OptionalInt.of(2619), s.maxMemoryClockMhz());
            assertEquals(OptionalInt.of(0), s.performanceState());
            assertEquals(OptionalInt.empty(), s.fanSpeedPercent(), "the double's boards have no fan");
            assertEquals(OptionalLong.of(0x4), s.clockEventReasonsMask());
            assertEquals(Optional.of(Set.of(ClockEventReason.SW_POWER_CAP)), s.clockEventReasons());
            assertEquals(Optional.of(new EccErrorCounts(OptionalLong.of(0), OptionalLong.of(0), OptionalLong.of(2),
                    OptionalLong.of(0))), s.eccErrors());
        }
    }

    @Test
    void everySampleAsksTheDriverAgain() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice gpu = gpus.device(1);
            assertEquals(OptionalInt.of(0), gpu.sample().gpuUtilizationPercent());
            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 63));
            NvmlDouble.ok(c.ndSetValue(1, "memory.used", 2 * GIB));
            NvmlDouble.ok(c.ndSetValue(1, "temperature", 80));
            NvmlDouble.ok(c.ndSetValue(1, "fan", 112));
            NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetFanSpeed", 0));
            NvmlDouble.ok(c.ndSetValue(1, "clock.reasons", 0x20 | 0x40 | 0x400));
            NvmlDouble.ok(c.ndSetValue(1, "pstate", 32));
            GpuSample s = gpu.sample();
            assertEquals(OptionalInt.of(63), s.gpuUtilizationPercent());
            assertEquals(OptionalLong.of(2 * GIB), s.memoryUsedBytes());
            assertEquals(OptionalInt.of(80), s.temperatureCelsius());
            assertEquals(OptionalInt.of(112), s.fanSpeedPercent(), "fan speed may exceed 100%");
            assertEquals(Optional.of(Set.of(ClockEventReason.SW_THERMAL_SLOWDOWN, ClockEventReason.HW_THERMAL_SLOWDOWN)),
                    s.clockEventReasons(), "an unknown bit is kept in the mask only");
            assertEquals(OptionalLong.of(0x460), s.clockEventReasonsMask());
            assertEquals(OptionalInt.empty(), s.performanceState(), "NVML_PSTATE_UNKNOWN is no state");
        }
    }

    @Test
    void notSupportedNoPermissionAndMissingFunctionsMakeMetricsEmpty() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        String[] notSupported = {"nvmlDeviceGetUtilizationRates", "nvmlDeviceGetTemperatureV", "nvmlDeviceGetPowerUsage",
            "nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo",
            "nvmlDeviceGetPerformanceState", "nvmlDeviceGetCurrentClocksEventReasons"};
        for (String fn : notSupported) {
            NvmlDouble.ok(c.ndFail(0, fn, NvmlReturn.NOT_SUPPORTED.code()));
        }
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetMemoryInfo_v2", NvmlReturn.NO_PERMISSION.code()));
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetEnforcedPowerLimit", NvmlReturn.NO_PERMISSION.code()));
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetPowerManagementLimit", NvmlReturn.FUNCTION_NOT_FOUND.code()));
        NvmlDouble.ok(c.ndSetValue(0, "ecc.current", 0));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuSample s = gpus.device(0).sample();
            assertEquals(OptionalInt.empty(), s.gpuUtilizationPercent());
            assertEquals(OptionalInt.empty(), s.memoryUtilizationPercent());
            assertEquals(Optional.empty(), s.memory());
            assertEquals(OptionalInt.empty(), s.temperatureCelsius());
            assertEquals(OptionalLong.empty(), s.powerDrawMilliwatts());
            assertEquals(OptionalLong.empty(), s.enforcedPowerLimitMilliwatts());
            assertEquals(OptionalLong.empty(), s.powerManagementLimitMilliwatts());
            assertEquals(OptionalLong.empty(), s.energyMillijoules());
            assertEquals(OptionalInt.empty(), s.smClockMhz());
            assertEquals(OptionalInt.empty(), s.maxMemoryClockMhz());
            assertEquals(OptionalInt.empty(), s.performanceState());
            assertEquals(Optional.empty(), s.clockEventReasons());
            assertEquals(Optional.empty(), s.eccErrors(), "ECC off: no counts");
            GpuModes modes = gpus.device(0).modes();
            assertEquals(Optional.of(false), modes.eccEnabled());
            assertEquals(Optional.of(true), modes.eccPendingEnabled());
        }
    }

    @Test
    void otherCodesThrowWithTheFunctionTheGpuTheCodeAndNvmlsMessage() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetPowerUsage", 999));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(1).sample());
            assertEquals("nvmlDeviceGetPowerUsage", e.function());
            assertEquals(NvmlReturn.UNKNOWN, e.nvmlReturn());
            assertEquals(999, e.rawCode());
            assertEquals("Unknown Error", e.nvmlMessage());
            assertTrue(e.device().orElseThrow().startsWith("GPU 1 (GPU-"), e.device().toString());
            assertTrue(e.getMessage().startsWith("nvmlDeviceGetPowerUsage failed on GPU 1 (GPU-"), e.getMessage());
            assertTrue(e.getMessage().contains("NVML_ERROR_UNKNOWN (999) \"Unknown Error\""), e.getMessage());
            assertFalse(gpus.device(1).isLost());
            assertTrue(gpus.device(0).sample().gpuUtilizationPercent().isPresent(), "the other GPU is unaffected");
        }
    }

    @Test
    void aCodeNewerThanThisLibraryIsStillReported() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetUtilizationRates", 31));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            NvmlException e = assertThrows(NvmlException.class, () -> gpus.device(0).sample());
            assertEquals(NvmlReturn.UNRECOGNIZED, e.nvmlReturn());
            assertEquals(31, e.rawCode());
            assertTrue(e.getMessage().contains("NVML return code (31)"), e.getMessage());
        }
    }

    @Test
    void modesAreReadNow() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuModes m = gpus.device(0).modes();
            assertEquals(new GpuModes(Optional.of(true), Optional.of(true), Optional.of(true), Optional.of(false),
                    Optional.of(false)), m);
            NvmlDouble.ok(c.ndSetValue(0, "persistence", 0));
            NvmlDouble.ok(c.ndSetValue(0, "mig.pending", 1));
            NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetEccMode", NvmlReturn.NOT_SUPPORTED.code()));
            GpuModes after = gpus.device(0).modes();
            assertEquals(Optional.of(false), after.persistenceEnabled());
            assertEquals(Optional.of(false), after.migEnabled());
            assertEquals(Optional.of(true), after.migPendingEnabled());
            assertEquals(Optional.empty(), after.eccEnabled());
            assertEquals(Optional.empty(), after.eccPendingEnabled());
        }
    }

    @Test
    void memoryV2RefusingItsVersionFallsBackToV1() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetMemoryInfo_v2", NvmlReturn.ARGUMENT_VERSION_MISMATCH.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuMemory m = gpus.device(0).sample().memory().orElseThrow();
            assertTrue(m.usedIncludesReserved());
            assertEquals(30512 * MIB + 512 * MIB, m.usedBytes());
        }
    }

    @Test
    void anOlderDriverIsReadThroughTheFallbackFunctions() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.LEGACY);
        c.ndSetCudaVersion(11080, 0);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.LEGACY)) {
            assertEquals(Optional.of(new CudaVersion(11, 8)), gpus.cudaDriverVersion());
            GpuSample s = gpus.device(0).sample();
            GpuMemory m = s.memory().orElseThrow();
            assertTrue(m.usedIncludesReserved(), "v1: used includes reserved");
            assertEquals(30512 * MIB + 512 * MIB, m.usedBytes());
            assertEquals(OptionalLong.empty(), m.reservedBytes());
            assertEquals(m.totalBytes() - m.usedBytes(), m.freeBytes());
            assertEquals(OptionalInt.of(71), s.temperatureCelsius());
            assertEquals(Optional.of(Set.of(ClockEventReason.SW_POWER_CAP)), s.clockEventReasons());
            assertTrue(gpus.device(0).processUtilization(Instant.EPOCH).isPresent());
            assertFalse(gpus.device(0).gpmSupported());
            assertEquals(Optional.empty(), gpus.device(0).gpmMetrics(Duration.ofMillis(100)));
        }
        assertEquals(1, c.ndCallCount("nvmlSystemGetCudaDriverVersion"));
        assertTrue(c.ndCallCount("nvmlDeviceGetMemoryInfo") >= 1);
        assertTrue(c.ndCallCount("nvmlDeviceGetTemperature") >= 1);
        assertTrue(c.ndCallCount("nvmlDeviceGetCurrentClocksThrottleReasons") >= 1);
        assertTrue(c.ndCallCount("nvmlDeviceGetProcessUtilization") >= 1);
    }

    @Test
    void theNewestFunctionIsPreferredWhenTheDriverHasIt() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            gpus.device(0).sample();
        }
        assertEquals(0, c.ndCallCount("nvmlDeviceGetTemperature"));
        assertEquals(0, c.ndCallCount("nvmlDeviceGetCurrentClocksThrottleReasons"));
        assertEquals(0, c.ndCallCount("nvmlSystemGetCudaDriverVersion"));
        assertTrue(c.ndCallCount("nvmlDeviceGetTemperatureV") >= 1);
        assertTrue(c.ndCallCount("nvmlDeviceGetCurrentClocksEventReasons") >= 1);
        assertEquals(1, c.ndCallCount("nvmlSystemGetCudaDriverVersion_v2"));
    }

    @Test
    void aVeryOldDriverLeavesWhatItLacksEmpty() {
        NvmlDouble.reset(NvmlDouble.ANCIENT);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.ANCIENT)) {
            GpuDevice gpu = gpus.device(0);
            assertEquals(Optional.empty(), gpu.pciBusId(), "no nvmlDeviceGetPciInfo_v3");
            GpuSample s = gpu.sample();
            assertEquals(OptionalLong.empty(), s.energyMillijoules());
            assertTrue(s.memory().orElseThrow().usedIncludesReserved());
            assertEquals(List.of(), gpu.migDevices());
            assertEquals(Optional.empty(), gpu.modes().migEnabled());
            assertEquals(Optional.empty(), gpu.processUtilization(Instant.EPOCH));
        }
    }
}
