package io.github.procscope.api.gpu;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class GpuMonitorOptionsTest {
    @Test
    void theDefaultsSampleEverySecondOverFiveMinutes() {
        GpuMonitorOptions d = GpuMonitorOptions.defaults();
        assertEquals(Duration.ofSeconds(1), d.interval());
        assertEquals(Duration.ofMinutes(5), d.window());
        assertEquals(OptionalInt.empty(), d.maxSamplesPerDevice());
        assertEquals(IdleHoldingRule.DEFAULT, d.idleHolding());
        assertEquals(0, d.listeners().size());
    }

    @Test
    void badValuesAreRefusedNamingTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GpuMonitorOptions.defaults().withInterval(Duration.ofNanos(999_999)));
        assertEquals("the sampling interval must be at least 1 ms: PT0.000999999S", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GpuMonitorOptions.defaults().withWindow(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> GpuMonitorOptions.defaults().withMaxSamplesPerDevice(0));
        assertThrows(NullPointerException.class, () -> GpuMonitorOptions.defaults().withListener(null));
        assertEquals(OptionalInt.of(1), GpuMonitorOptions.defaults().withMaxSamplesPerDevice(1).maxSamplesPerDevice());
    }

    @Test
    void withListenerAddsToTheList() {
        GpuMonitorListener l = new GpuMonitorListener() { };
        GpuMonitorOptions o = GpuMonitorOptions.defaults().withListener(l).withListener(l);
        assertEquals(2, o.listeners().size());
    }
}
