package io.github.procscope.api.gpu;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a {@link GpuMonitor} samples; given to {@link io.github.procscope.api.gpu.Gpus#monitor(GpuMonitorOptions)}.
 *
 * @param interval            time between rounds of {@link GpuMonitor#start()}; default 1 second, at least 1 ms
 * @param window              how far back the summaries look; default 5 minutes
 * @param maxSamplesPerDevice the most samples kept per device; default (empty): window / interval + 1, at
 *                            most 100,000
 * @param idleHolding         the idle-holding rule; default {@link IdleHoldingRule#DEFAULT}
 * @param listeners           called with each sample, error and verdict change; default none
 */
public record GpuMonitorOptions(Duration interval, Duration window, OptionalInt maxSamplesPerDevice,
                                IdleHoldingRule idleHolding, List<GpuMonitorListener> listeners) {

    /**
     * Copies the listeners and checks the values.
     *
     * @throws IllegalArgumentException if the interval is shorter than 1 ms, the window is not positive, or
     *                                  the most samples kept is below 1
     */
    public GpuMonitorOptions {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(maxSamplesPerDevice, "maxSamplesPerDevice");
        Objects.requireNonNull(idleHolding, "idleHolding");
        listeners = List.copyOf(listeners);
        if (interval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("the sampling interval must be at least 1 ms: " + interval);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the window must be positive: " + window);
        }
        if (maxSamplesPerDevice.isPresent() && maxSamplesPerDevice.getAsInt() < 1) {
            throw new IllegalArgumentException("keep at least one sample per device: "
                    + maxSamplesPerDevice.getAsInt());
        }
    }

    /** {@return a 1 second interval, a 5 minute window, the default rule, no listener} */
    public static GpuMonitorOptions defaults() {
        return new GpuMonitorOptions(Duration.ofSeconds(1), Duration.ofMinutes(5), OptionalInt.empty(),
                IdleHoldingRule.DEFAULT, List.of());
    }

    /**
     * {@return these options with that interval}
     *
     * @param newInterval time between rounds of {@link GpuMonitor#start()}
     */
    public GpuMonitorOptions withInterval(Duration newInterval) {
        return new GpuMonitorOptions(newInterval, window, maxSamplesPerDevice, idleHolding, listeners);
    }

    /**
     * {@return these options with that window}
     *
     * @param newWindow how far back the summaries look
     */
    public GpuMonitorOptions withWindow(Duration newWindow) {
        return new GpuMonitorOptions(interval, newWindow, maxSamplesPerDevice, idleHolding, listeners);
    }

    /**
     * {@return these options with that bound}
     *
     * @param max the most samples kept per device
     */
    public GpuMonitorOptions withMaxSamplesPerDevice(int max) {
        return new GpuMonitorOptions(interval, window, OptionalInt.of(max), idleHolding, listeners);
    }

    /**
     * {@return these options with that rule}
     *
     * @param rule the idle-holding rule
     */
    public GpuMonitorOptions withIdleHolding(IdleHoldingRule rule) {
        return new GpuMonitorOptions(interval, window, maxSamplesPerDevice, rule, listeners);
    }

    /**
     * {@return these options with the listener added}
     *
     * @param listener a listener to add
     */
    public GpuMonitorOptions withListener(GpuMonitorListener listener) {
        List<GpuMonitorListener> all = new ArrayList<>(listeners);
        all.add(Objects.requireNonNull(listener, "listener"));
        return new GpuMonitorOptions(interval, window, maxSamplesPerDevice, idleHolding, all);
    }
}
