package io.github.procscope.nvml;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorListener;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuSample;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The monitor's window over scripted devices: bounded by time and by count. */
class GpuMonitorWindowTest {
    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");

    @Test
    void samplesOlderThanTheWindowLeaveIt() {
        FakeDevice d = new FakeDevice(0, "GPU-w");
        for (int i = 0; i < 10; i++) {
            d.next(T0.plusSeconds(60L * i), 0, 2L << 30, null, null);
        }
        try (GpuMonitor m = new WindowedGpuMonitor(List.<GpuDevice>of(d), GpuMonitorOptions.defaults().withWindow(Duration.ofMinutes(5)))) {
            for (int i = 0; i < 10; i++) {
                m.sampleNow();
            }
            List<GpuSample> window = m.samples("GPU-w");
            assertEquals(6, window.size(), "minutes 4 to 9: five minutes back from the newest, inclusive");
            assertEquals(T0.plusSeconds(240), window.get(0).takenAt());
            assertEquals(Duration.ofMinutes(5), m.summary("GPU-w").span());
            assertEquals(301, m.maxSamplesPerDevice(), "5 min / 1 s + 1");
        }
    }

    @Test
    void theCountBoundHoldsToo() {
        FakeDevice d = new FakeDevice(0, "GPU-c");
        for (int i = 0; i < 7; i++) {
            d.next(T0.plusMillis(i), i, 1L, null, null);
        }
        try (GpuMonitor m = new WindowedGpuMonitor(List.<GpuDevice>of(d), GpuMonitorOptions.defaults().withMaxSamplesPerDevice(4))) {
            for (int i = 0; i < 7; i++) {
                m.sampleNow();
            }
            assertEquals(List.of(3, 4, 5, 6), m.samples("GPU-c").stream()
                    .map(s -> s.gpuUtilizationPercent().getAsInt()).toList());
        }
    }

    @Test
    void otherFailuresAreReportedEachRoundAndSamplingGoesOn() {
        FakeDevice d = new FakeDevice(0, "GPU-f")
                .fail(new ProcscopeException("transient"))
                .next(T0, 1, 1L, null, null)
                .fail(new ProcscopeException("transient again"));
        List<String> errors = new ArrayList<>();
        try (GpuMonitor m = new WindowedGpuMonitor(List.<GpuDevice>of(d), GpuMonitorOptions.defaults().withListener(new GpuMonitorListener() {
            @Override
            public void onError(GpuDevice device, ProcscopeException error) {
                errors.add(error.getMessage());
            }
        }))) {
            assertEquals(List.of(), m.sampleNow());
            assertEquals(1, m.sampleNow().size());
            assertEquals(List.of(), m.sampleNow());
            assertEquals(List.of("transient", "transient again"), errors);
            assertEquals(1, m.summary("GPU-f").samples());
        }
    }

    @Test
    void badConfigurationIsRefused() {
        FakeDevice d = new FakeDevice(0, "GPU-x");
        assertThrows(IllegalArgumentException.class,
                () -> new WindowedGpuMonitor(List.<GpuDevice>of(d, d), GpuMonitorOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> GpuMonitorOptions.defaults().withInterval(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> GpuMonitorOptions.defaults().withWindow(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> GpuMonitorOptions.defaults().withMaxSamplesPerDevice(0));
        assertThrows(NullPointerException.class, () -> GpuMonitorOptions.defaults().withListener(null));
    }
}
