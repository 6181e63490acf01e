package io.github.procscope.nvml;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.DmonFormat;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorListener;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.IdleHoldingRule;
import io.github.procscope.api.gpu.IdleHoldingVerdict;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The monitor over the double: windows, summaries, the idle-holding verdict, listeners, lost GPUs. */
class GpuMonitorIT {

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    /** Records verdict changes as "uuid:previous->new". */
    private static final class Changes implements GpuMonitorListener {
        final List<String> changes = Collections.synchronizedList(new ArrayList<>());
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final List<String> rows = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onSample(GpuDevice device, GpuSample sample) {
            rows.add(DmonFormat.row(sample));
        }

        @Override
        public void onVerdictChange(GpuSummary summary, IdleHoldingVerdict previous) {
            changes.add(summary.deviceIndex() + ":" + previous + "->" + summary.idleHolding());
        }

        @Override
        public void onError(GpuDevice device, ProcscopeException error) {
            errors.add(device.index() + ":" + (error instanceof NvmlException n ? n.nvmlReturn() : error));
        }
    }

    private static void rounds(GpuMonitor m, int n) {
        for (int i = 0; i < n; i++) {
            m.sampleNow();
        }
    }

    @Test
    void theIdleHoldingVerdictFlipsAsUtilizationAndMemoryChange() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        Changes l = new Changes();
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withMaxSamplesPerDevice(3).withListener(l))) {
            String a100 = gpus.device(1).uuid();
            rounds(m, 2);
            assertEquals(IdleHoldingVerdict.INSUFFICIENT_DATA, m.summary(a100).idleHolding(), "two samples prove nothing");
            rounds(m, 1);
            GpuSummary idle = m.summary(a100);
            assertEquals(IdleHoldingVerdict.IDLE_HOLDING, idle.idleHolding(), "0% while holding 38200 MiB");
            assertTrue(idle.isIdleHolding());
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(gpus.device(0).uuid()).idleHolding(), "98% busy");

            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 60));
            rounds(m, 1);
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "mean (0+0+60)/3 = 20%");
            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 0));
            rounds(m, 2);
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "60 still in the window");
            rounds(m, 1);
            assertEquals(IdleHoldingVerdict.IDLE_HOLDING, m.summary(a100).idleHolding(), "60 left the window");

            NvmlDouble.ok(c.ndSetValue(1, "memory.used", 300 * MIB));
            rounds(m, 1);
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "it let go of its memory");
            NvmlDouble.ok(c.ndSetValue(1, "memory.used", 20 * GIB));
            rounds(m, 2);
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "300 MiB still in the window");
            rounds(m, 1);
            assertEquals(IdleHoldingVerdict.IDLE_HOLDING, m.summary(a100).idleHolding());

            assertEquals(List.of("0:INSUFFICIENT_DATA->NOT_IDLE_HOLDING", "1:INSUFFICIENT_DATA->IDLE_HOLDING",
                    "1:IDLE_HOLDING->NOT_IDLE_HOLDING", "1:NOT_IDLE_HOLDING->IDLE_HOLDING",
                    "1:IDLE_HOLDING->NOT_IDLE_HOLDING", "1:NOT_IDLE_HOLDING->IDLE_HOLDING"), l.changes);
            assertEquals(3, m.samples(a100).size(), "the window is bounded");
            assertEquals(2 * 11, l.rows.size(), "one row per device per round");
        }
    }

    @Test
    void thresholdsAreConfigurable() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 8));
        NvmlDouble.ok(c.ndSetValue(1, "memory.total", 80 * GIB));
        IdleHoldingRule lenient = new IdleHoldingRule(10.0, 40 * GIB, 1);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withIdleHolding(lenient))) {
            String a100 = gpus.device(1).uuid();
            m.sampleNow();
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "38200 MiB is not > 40 GiB");
            NvmlDouble.ok(c.ndSetValue(1, "memory.used", 41 * GIB));
            m.sampleNow();
            assertEquals(IdleHoldingVerdict.NOT_IDLE_HOLDING, m.summary(a100).idleHolding(), "the least in the window counts");
        }
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withIdleHolding(lenient).withMaxSamplesPerDevice(1))) {
            m.sampleNow();
            assertEquals(IdleHoldingVerdict.IDLE_HOLDING, m.summary(gpus.device(1).uuid()).idleHolding(), "8% < 10%");
            assertEquals(lenient, m.rule());
        }
    }

    @Test
    void summariesHoldMeansAndMaxima() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = new WindowedGpuMonitor(List.of(gpus.device(0)), GpuMonitorOptions.defaults())) {
            int[] util = {90, 100, 50};
            int[] temp = {60, 70, 80};
            long[] power = {200_000, 300_000, 400_000};
            for (int i = 0; i < 3; i++) {
                NvmlDouble.ok(c.ndSetValue(0, "util.gpu", util[i]));
                NvmlDouble.ok(c.ndSetValue(0, "temperature", temp[i]));
                NvmlDouble.ok(c.ndSetValue(0, "power.usage", power[i]));
                NvmlDouble.ok(c.ndSetValue(0, "memory.used", (i + 1) * GIB));
                m.sampleNow();
            }
            GpuSummary s = m.summaries().get(0);
            assertEquals(3, s.samples());
            assertEquals(80.0, s.meanGpuUtilizationPercent().orElseThrow(), 1e-9);
            assertEquals(OptionalInt.of(100), s.maxGpuUtilizationPercent());
            assertEquals(70.0, s.meanTemperatureCelsius().orElseThrow(), 1e-9);
            assertEquals(OptionalInt.of(80), s.maxTemperatureCelsius());
            assertEquals(300.0, s.meanPowerDrawWatts().orElseThrow(), 1e-9);
            assertEquals(400.0, s.maxPowerDrawWatts().orElseThrow(), 1e-9);
            assertEquals(2.0 * GIB, s.meanMemoryUsedBytes().orElseThrow(), 1e-3);
            assertEquals(OptionalLong.of(GIB), s.minMemoryUsedBytes());
            assertEquals(OptionalLong.of(3 * GIB), s.maxMemoryUsedBytes());
            assertEquals(OptionalLong.of(85520809984L), s.memoryTotalBytes());
            assertFalse(s.span().isNegative());
            assertThrows(IllegalArgumentException.class, () -> m.summary(gpus.device(1).uuid()), "not monitored");
        }
    }

    @Test
    void aLostGpuIsReportedOnceAndTheOthersAreStillSampled() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        Changes l = new Changes();
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withListener(l))) {
            m.sampleNow();
            NvmlDouble.ok(c.ndSetValue(1, "lost.after", 0));
            for (int i = 0; i < 4; i++) {
                List<GpuSample> round = m.sampleNow();
                assertEquals(List.of(0), round.stream().map(GpuSample::deviceIndex).toList());
            }
            assertEquals(List.of("1:" + NvmlReturn.GPU_IS_LOST), l.errors);
            assertTrue(m.summary(gpus.device(1).uuid()).lost());
            assertEquals(1, m.summary(gpus.device(1).uuid()).samples(), "its window keeps what it had");
            assertEquals(5, m.summary(gpus.device(0).uuid()).samples());
        }
    }

    @Test
    void startedItSamplesOnItsOwnThreadUntilClosed() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withInterval(Duration.ofMillis(20))).start();
            String uuid = gpus.device(0).uuid();
            Spawned.await(Duration.ofSeconds(60), "three rounds", () -> m.samples(uuid).size() >= 3);
            assertTrue(m.isRunning());
            assertThrows(IllegalStateException.class, m::start);
            m.close();
            assertFalse(m.isRunning());
            int after = m.samples(uuid).size();
            assertThrows(IllegalStateException.class, m::sampleNow);
            assertEquals(after, m.samples(uuid).size(), "no rounds after close");
        }
    }

    @Test
    void closingTheInventoryStopsARunningMonitorWithTheReason() {
        NvmlDouble.reset(NvmlDouble.FULL);
        NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
        try (GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withInterval(Duration.ofMillis(10))).start()) {
            Spawned.await(Duration.ofSeconds(60), "a first round", () -> m.samples(gpus.device(0).uuid()).size() >= 1);
            gpus.close();
            Spawned.await(Duration.ofSeconds(60), "the monitor to stop", () -> !m.isRunning());
            assertTrue(m.failure().orElseThrow() instanceof IllegalStateException);
        }
    }

    @Test
    void aListenerThatThrowsStopsTheMonitor() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
             GpuMonitor m = gpus.monitor(GpuMonitorOptions.defaults().withListener(new GpuMonitorListener() {
                 @Override
                 public void onSample(GpuDevice device, GpuSample sample) {
                     throw new IllegalStateException("listener bug");
                 }
             }))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, m::sampleNow);
            assertEquals("listener bug", e.getMessage());
            assertEquals(e, m.failure().orElseThrow());
            assertThrows(IllegalStateException.class, m::sampleNow);
        }
    }

    @Test
    void aListenerMayCloseItsOwnMonitor() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuMonitor[] self = new GpuMonitor[1];
            List<Boolean> interruptedAfterClose = Collections.synchronizedList(new ArrayList<>());
            self[0] = gpus.monitor(GpuMonitorOptions.defaults().withInterval(Duration.ofMillis(10)).withListener(new GpuMonitorListener() {
                @Override
                public void onSample(GpuDevice device, GpuSample sample) {
                    self[0].close();
                    interruptedAfterClose.add(Thread.currentThread().isInterrupted());
                }
            }));
            self[0].start();
            Spawned.await(Duration.ofSeconds(120), "the monitor to stop itself", () -> !self[0].isRunning());
            Spawned.await(Duration.ofSeconds(120), "the listener to return", () -> !interruptedAfterClose.isEmpty());
            // Waiting for its own thread would time out and end in shutdownNow, interrupting the listener.
            assertEquals(false, interruptedAfterClose.get(0), "close did not wait for the thread it runs on");
        }
    }

    @Test
    void dmonRowsLookLikeNvidiaSmis() {
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals("# gpu    pwr  gtemp     sm    mem      fb   mclk   pclk\n"
                    + "# Idx      W      C      %      %     MiB    MHz    MHz", DmonFormat.header());
            assertEquals("    0    245     71     98     45   30512   2619   1980", DmonFormat.row(gpus.device(0).sample()));
            assertEquals("    1     61     38      0      0   38200   1215    210", DmonFormat.row(gpus.device(1).sample()));
        }
    }
}
