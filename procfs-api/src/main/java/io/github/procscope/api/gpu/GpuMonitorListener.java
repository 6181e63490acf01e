package io.github.procscope.api.gpu;

import io.github.procscope.api.core.ProcscopeException;

/**
 * Receives what a {@link GpuMonitor} sees, on the monitor's sampling thread (or the thread calling
 * {@link GpuMonitor#sampleNow()}), one round at a time. Keep the methods short; an exception thrown
 * from one stops the monitor (see {@link GpuMonitor#failure()}).
 */
public interface GpuMonitorListener {
    /**
     * A device was sampled.
     *
     * @param device the device
     * @param sample its sample
     */
    default void onSample(GpuDevice device, GpuSample sample) {
    }

    /**
     * A device's idle-holding verdict changed (including the first verdict other than
     * {@link IdleHoldingVerdict#INSUFFICIENT_DATA}).
     *
     * @param summary  the device's summary with the new verdict
     * @param previous the verdict before
     */
    default void onVerdictChange(GpuSummary summary, IdleHoldingVerdict previous) {
    }

    /**
     * Sampling a device failed. A lost GPU ({@link NvmlReturn#GPU_IS_LOST}) is reported once and then
     * skipped; other failures are reported each round.
     *
     * @param device the device
     * @param error  the failure
     */
    default void onError(GpuDevice device, ProcscopeException error) {
    }
}
