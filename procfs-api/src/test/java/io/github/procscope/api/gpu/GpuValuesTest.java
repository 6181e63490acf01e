package io.github.procscope.api.gpu;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/** The small values of the GPU API: their conversions and the checks of their constructors. */
class GpuValuesTest {

    @Test
    void cudaVersionsAreDecodedAsNvidiaSmiShowsThem() {
        assertEquals(new CudaVersion(12, 2), CudaVersion.fromNvml(12020));
        assertEquals("11.8", CudaVersion.fromNvml(11080).toString());
        assertEquals("12.10", CudaVersion.fromNvml(12100).toString());
        assertThrows(IllegalArgumentException.class, () -> CudaVersion.fromNvml(-1));
    }

    @Test
    void clockEventReasonsMatchTheirBits() {
        assertEquals(Set.of(), ClockEventReason.fromMask(0));
        assertEquals(EnumSet.allOf(ClockEventReason.class), ClockEventReason.fromMask(0x1FF));
        qt().forAll(longs().all()).check(mask -> {
            long rebuilt = 0;
            for (ClockEventReason r : ClockEventReason.fromMask(mask)) {
                rebuilt |= r.bit();
            }
            return rebuilt == (mask & 0x1FFL);
        });
    }

    @Test
    void gpuMemoryRefusesNegativeFigures() {
        assertThrows(IllegalArgumentException.class, () -> new GpuMemory(-1, 0, 0, OptionalLong.empty(), true));
        assertThrows(IllegalArgumentException.class, () -> new GpuMemory(1, 0, 0, OptionalLong.of(-5), false));
        assertEquals(0.25, new GpuMemory(400, 100, 300, OptionalLong.empty(), true).usedFraction(), 1e-12);
        assertEquals(0.0, new GpuMemory(0, 0, 0, OptionalLong.empty(), true).usedFraction());
    }

    @Test
    void samplesAndGpmMetricsBuiltWithTheShorterConstructorsLackOnlyTheNewerValues() {
        Instant at = Instant.parse("2026-01-02T03:04:05Z");
        GpuSample s = new GpuSample(3, "GPU-a", at, OptionalInt.of(7), OptionalInt.empty(), Optional.empty(),
                OptionalInt.of(50), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
                OptionalLong.empty(), Optional.empty());
        assertEquals(OptionalInt.of(7), s.gpuUtilizationPercent());
        assertEquals(OptionalInt.of(50), s.temperatureCelsius());
        assertEquals(OptionalInt.empty(), s.memoryTemperatureCelsius());
        assertEquals(OptionalInt.empty(), s.encoderUtilizationPercent());
        assertEquals(OptionalInt.empty(), s.decoderUtilizationPercent());
        assertEquals(OptionalLong.empty(), s.nvlinkDataTxBytes());
        assertEquals(OptionalLong.empty(), s.nvlinkDataRxBytes());
        assertEquals(Optional.empty(), s.vgpuLicensed());
        GpmMetrics m = new GpmMetrics("GPU-a", Duration.ofSeconds(1), OptionalDouble.of(1), OptionalDouble.empty(),
                OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty());
        assertEquals(OptionalDouble.of(1), m.graphicsActivityPercent());
        assertEquals(OptionalDouble.empty(), m.pcieTxBytesPerSecond());
        assertEquals(OptionalDouble.empty(), m.pcieRxBytesPerSecond());
    }

    @Test
    void negativeNvlinkByteCountsAreRefused() {
        Instant at = Instant.EPOCH;
        for (OptionalLong[] txRx : new OptionalLong[][] {{OptionalLong.of(-1), OptionalLong.empty()},
            {OptionalLong.empty(), OptionalLong.of(Long.MIN_VALUE)}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new GpuSample(0, "GPU-a",
                    at, OptionalInt.empty(), OptionalInt.empty(), Optional.empty(), OptionalInt.empty(),
                    OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                    OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
                    OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalLong.empty(),
                    Optional.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), txRx[0], txRx[1],
                    Optional.empty()));
            assertTrue(e.getMessage().contains("NVLink"), e.getMessage());
        }
    }

    @Test
    void gpuProcessesAreCheckedAndCopied() {
        EnumSet<GpuProcessType> types = EnumSet.of(GpuProcessType.COMPUTE);
        GpuProcess p = new GpuProcess(0, "GPU-a", 42, types, OptionalLong.of(1), OptionalInt.empty(), OptionalInt.empty());
        types.add(GpuProcessType.GRAPHICS);
        assertEquals(Set.of(GpuProcessType.COMPUTE), p.types(), "a copy");
        assertThrows(UnsupportedOperationException.class, () -> p.types().add(GpuProcessType.MPS_COMPUTE));
        assertThrows(IllegalArgumentException.class, () -> new GpuProcess(0, "GPU-a", -1, Set.of(GpuProcessType.COMPUTE),
                OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty()));
        assertThrows(IllegalArgumentException.class, () -> new GpuProcess(0, "GPU-a", 1L << 32, Set.of(GpuProcessType.COMPUTE),
                OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty()));
        assertThrows(IllegalArgumentException.class, () -> new GpuProcess(0, "GPU-a", 1, Set.of(),
                OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty()));
        assertThrows(IllegalArgumentException.class, () -> new GpuProcess(0, "GPU-a", 1, Set.of(GpuProcessType.COMPUTE),
                OptionalLong.of(-1), OptionalInt.empty(), OptionalInt.empty()), "never -1 for 'not available'");
        assertEquals("C+G+M", new GpuProcess(0, "GPU-a", 1, EnumSet.allOf(GpuProcessType.class), OptionalLong.empty(),
                OptionalInt.empty(), OptionalInt.empty()).typeLetters());
    }

    @Test
    void aProcessListSaysWhetherItIsComplete() {
        GpuProcesses complete = new GpuProcesses(List.of(), Map.of());
        assertTrue(complete.isComplete());
        GpuProcesses partial = new GpuProcesses(List.of(), Map.of(GpuProcessType.COMPUTE, NvmlReturn.NO_PERMISSION));
        assertFalse(partial.isComplete());
    }

    @Test
    void fdUsersHoldAtLeastOneFile() {
        assertThrows(IllegalArgumentException.class, () -> new GpuFdUser(5, Set.of(), Set.of()));
        assertThrows(IllegalArgumentException.class, () -> new GpuFdUser(0, Set.of(1), Set.of()));
        assertEquals(List.of(0, 2, 7), List.copyOf(new GpuFdUser(5, Set.of(7, 0, 2), Set.of()).deviceMinors()));
    }

    @Test
    void rulesRefuseNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new IdleHoldingRule(-1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleHoldingRule(101, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleHoldingRule(Double.NaN, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleHoldingRule(5, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> new IdleHoldingRule(5, 0, 0));
        IdleHoldingRule r = IdleHoldingRule.DEFAULT;
        assertEquals(IdleHoldingVerdict.IDLE_HOLDING, r.judge(4.99, (1L << 30) + 1, 3));
        assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, r.judge(5.0, 40L << 30, 3), "5% is not below 5%");
        assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, r.judge(0, 1L << 30, 3), "1 GiB is not more than 1 GiB");
        assertEquals(IdleHoldingVerdict.INSUFFICIENT_DATA, r.judge(0, 40L << 30, 2));
    }

    @Test
    void xidErrorsKnowTheLastOneExactlyWhenThereWasOne() {
        assertEquals(0, XidErrors.none().count());
        var at = java.util.Optional.of(java.time.Instant.EPOCH);
        assertEquals(79, new XidErrors(2, OptionalLong.of(79), at).lastXid().getAsLong());
        assertThrows(IllegalArgumentException.class, () -> new XidErrors(-1, OptionalLong.empty(),
                java.util.Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new XidErrors(1, OptionalLong.empty(), at));
        assertThrows(IllegalArgumentException.class, () -> new XidErrors(0, OptionalLong.of(79), at));
        assertThrows(IllegalArgumentException.class, () -> new XidErrors(1, OptionalLong.of(79),
                java.util.Optional.empty()));
    }

    @Test
    void remappedRowCountsAreNotNegative() {
        assertTrue(new RemappedRows(0, 3, true, false).pending());
        assertThrows(IllegalArgumentException.class, () -> new RemappedRows(-1, 0, false, false));
        assertThrows(IllegalArgumentException.class, () -> new RemappedRows(0, -1, false, false));
    }
}
