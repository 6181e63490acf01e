package io.github.procscope.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.NvmlException;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * GPU performance monitoring (GPM, Hopper and later) on one device: two samples an interval apart and the
 * metrics NVML computes from them (SM activity and occupancy, tensor and DRAM use, FP64/32/16 and integer
 * pipes, PCIe traffic). GPM needs every one of its five functions; a driver without one of them has no GPM. Both
 * samples are freed on every path. Thread-safe.
 */
final class DeviceGpm {
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int[] METRICS = {NvmlNative.NVML_GPM_METRIC_GRAPHICS_UTIL, NvmlNative.NVML_GPM_METRIC_SM_UTIL,
        NvmlNative.NVML_GPM_METRIC_SM_OCCUPANCY, NvmlNative.NVML_GPM_METRIC_ANY_TENSOR_UTIL,
        NvmlNative.NVML_GPM_METRIC_DRAM_BW_UTIL, NvmlNative.NVML_GPM_METRIC_FP64_UTIL, NvmlNative.NVML_GPM_METRIC_FP32_UTIL,
        NvmlNative.NVML_GPM_METRIC_FP16_UTIL, NvmlNative.NVML_GPM_METRIC_INTEGER_UTIL,
        NvmlNative.NVML_GPM_METRIC_PCIE_TX_PER_SEC, NvmlNative.NVML_GPM_METRIC_PCIE_RX_PER_SEC};
    /** {@code nvml.h} gives the PCIe rates in MiB/s. */
    private static final double BYTES_PER_MIB = 1024.0 * 1024.0;

    private final DeviceCalls calls;
    private final NvmlFunctions fns;
    private final Pointer handle;

    DeviceGpm(DeviceCalls calls) {
        this.calls = calls;
        this.fns = calls.functions();
        this.handle = calls.handle();
    }

    /** @return whether the driver and the device support GPM (called under the inventory's read lock) */
    boolean supported() {
        if (!fns.gpm()) {
            return false;
        }
        NvmlStructs.GpmSupport support = new NvmlStructs.GpmSupport();
        return calls.ok(fns.gpmQueryDeviceSupport.call().call(handle, support), fns.gpmQueryDeviceSupport.name())
                && support.isSupportedDevice != 0;
    }

    /**
     * @param uuid     the device's UUID, for the record
     * @param interval the time between the two samples (at least NVML's 100 ms refresh period)
     * @return the metrics over the interval; empty without GPM (called under the inventory's read lock)
     * @throws IllegalStateException if the inventory closes during the interval
     */
    Optional<GpmMetrics> metrics(String uuid, Duration interval) {
        if (!supported()) {
            return Optional.empty();
        }
        Pointer first = allocate();
        Pointer second;
        try {
            second = allocate();
        } catch (RuntimeException e) {
            free(first, e);
            throw e;
        }
        RuntimeException failure = null;
        try {
            String get = fns.gpmSampleGet.name();
            if (!calls.ok(fns.gpmSampleGet.call().call(handle, first), get)) {
                return Optional.empty();
            }
            long start = System.nanoTime();
            if (calls.owner().awaitClosing(interval)) {
                throw calls.owner().closedException();
            }
            if (!calls.ok(fns.gpmSampleGet.call().call(handle, second), get)) {
                return Optional.empty();
            }
            Duration measured = Duration.ofNanos(System.nanoTime() - start);
            NvmlStructs.GpmMetricsGet request = new NvmlStructs.GpmMetricsGet();
            request.sample1 = first;
            request.sample2 = second;
            request.numMetrics = METRICS.length;
            for (int i = 0; i < METRICS.length; i++) {
                request.metrics[i].metricId = METRICS[i];
            }
            if (!calls.ok(fns.gpmMetricsGet.call().call(request), fns.gpmMetricsGet.name())) {
                return Optional.empty();
            }
            OptionalDouble[] v = new OptionalDouble[METRICS.length];
            for (int i = 0; i < METRICS.length; i++) {
                NvmlStructs.GpmMetric m = request.metrics[i];
                v[i] = m.nvmlReturn == RC_SUCCESS && !Double.isNaN(m.value) ? OptionalDouble.of(m.value)
                        : OptionalDouble.empty();
            }
            return Optional.of(new GpmMetrics(uuid, measured, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8],
                    scaled(v[9], BYTES_PER_MIB), scaled(v[10], BYTES_PER_MIB)));
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            free(second, failure);
            free(first, failure);
        }
    }

    private static OptionalDouble scaled(OptionalDouble v, double factor) {
        return v.isPresent() ? OptionalDouble.of(v.getAsDouble() * factor) : OptionalDouble.empty();
    }

    private Pointer allocate() {
        PointerByReference sample = new PointerByReference();
        int rc = fns.gpmSampleAlloc.call().call(sample);
        if (rc != RC_SUCCESS) {
            throw calls.failure(rc, fns.gpmSampleAlloc.name());
        }
        return sample.getValue();
    }

    private void free(Pointer sample, RuntimeException pending) {
        int rc = fns.gpmSampleFree.call().call(sample);
        if (rc != RC_SUCCESS) {
            NvmlException e = calls.failure(rc, fns.gpmSampleFree.name());
            if (pending != null) {
                pending.addSuppressed(e);
            } else {
                throw e;
            }
        }
    }
}
