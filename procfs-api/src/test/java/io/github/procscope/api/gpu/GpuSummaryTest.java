package io.github.procscope.api.gpu;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/** Summaries over a window, against figures computed the plain way, and the seed's table. */
class GpuSummaryTest {
    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final long MIB = 1L << 20;

    @Test
    void theSeedsFourGpusGetTheSeedsVerdicts() {
        // index, util %, used MiB, temp C, power W (nvidia-smi --query-gpu=... in the seed), three samples each
        int[][] table = {{0, 98, 30512, 71, 245}, {1, 0, 38200, 38, 61}, {2, 35, 12004, 55, 121}, {3, 0, 4, 30, 52}};
        IdleHoldingVerdict[] expected = {IdleHoldingVerdict.NOT_IDLE_HOLDING, IdleHoldingVerdict.IDLE_HOLDING,
            IdleHoldingVerdict.NOT_IDLE_HOLDING, IdleHoldingVerdict.NOT_IDLE_HOLDING};
        for (int[] row : table) {
            List<GpuSample> samples = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                samples.add(FakeDevice.sample(row[0], "GPU-" + row[0], T0.plusSeconds(i), row[1], row[2] * MIB,
                        row[4] * 1000L, row[3]));
            }
            GpuSummary s = GpuSummary.of(row[0], "GPU-" + row[0], samples, IdleHoldingRule.DEFAULT, false);
            assertEquals(expected[row[0]], s.idleHolding(), "GPU " + row[0]);
            assertEquals(Duration.ofSeconds(2), s.span());
        }
    }

    @Test
    void figuresAreMeansAndExtremesOfWhatWasReported() {
        qt().withExamples(200).forAll(lists().of(integers().between(-1, 100)).ofSizeBetween(0, 30))
                .checkAssert(values -> {
                    List<GpuSample> samples = new ArrayList<>();
                    long sum = 0;
                    int n = 0;
                    int max = Integer.MIN_VALUE;
                    long minUsed = Long.MAX_VALUE;
                    for (int i = 0; i < values.size(); i++) {
                        int v = values.get(i);
                        Integer util = v < 0 ? null : v;   // -1: the GPU did not report utilization
                        long used = (long) (i + 1) * 100 * MIB;
                        samples.add(FakeDevice.sample(0, "GPU-q", T0.plusMillis(i), util, used, null, null));
                        if (util != null) {
                            sum += v;
                            n++;
                            max = Math.max(max, v);
                            minUsed = Math.min(minUsed, used);
                        }
                    }
                    GpuSummary s = GpuSummary.of(0, "GPU-q", samples, IdleHoldingRule.DEFAULT, false);
                    assertEquals(values.size(), s.samples());
                    assertEquals(n == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) sum / n),
                            s.meanGpuUtilizationPercent());
                    assertEquals(n == 0 ? OptionalInt.empty() : OptionalInt.of(max), s.maxGpuUtilizationPercent());
                    assertEquals(values.isEmpty() ? OptionalLong.empty() : OptionalLong.of(100 * MIB), s.minMemoryUsedBytes());
                    assertEquals(OptionalDouble.empty(), s.meanPowerDrawWatts());
                    IdleHoldingVerdict verdict = n < 3 ? IdleHoldingVerdict.INSUFFICIENT_DATA
                            : (double) sum / n < 5.0 && minUsed > (1L << 30) ? IdleHoldingVerdict.IDLE_HOLDING
                            : IdleHoldingVerdict.NOT_IDLE_HOLDING;
                    assertEquals(verdict, s.idleHolding());
                });
    }

    @Test
    void aSampleOfAnotherDeviceIsRefused() {
        List<GpuSample> samples = List.of(FakeDevice.sample(1, "GPU-b", T0, 1, 1L, null, null));
        assertThrows(IllegalArgumentException.class,
                () -> GpuSummary.of(0, "GPU-a", samples, IdleHoldingRule.DEFAULT, false));
    }

    @Test
    void dmonShowsADashForWhatIsMissing() {
        GpuSample s = FakeDevice.sample(3, "GPU-d", T0, null, null, null, 44);
        assertEquals("    3      -     44      -      -       -      -      -", DmonFormat.row(s));
    }
}
