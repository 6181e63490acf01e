package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorListener;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.IdleHoldingRule;
import io.github.procscope.api.gpu.IdleHoldingVerdict;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link GpuMonitor} of {@link NvmlGpus#monitor}: a window per device, sampled on the caller's thread
 * ({@link #sampleNow()}) or on one daemon thread of a single-thread scheduled executor ({@link #start()}).
 * Rounds never overlap (one lock); the windows and the verdicts are guarded by another, so that readers never
 * wait for a round's driver calls. Works over any {@link GpuDevice}.
 */
final class WindowedGpuMonitor implements GpuMonitor {
    private final List<GpuDevice> devices;
    private final Duration interval;
    private final Duration window;
    private final int maxSamplesPerDevice;
    private final IdleHoldingRule rule;
    private final List<GpuMonitorListener> listeners;

    private final ReentrantLock roundLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private final Map<String, DeviceWindow> windows = new LinkedHashMap<>();
    private ScheduledExecutorService executor;
    private volatile Thread worker;
    private Throwable failure;
    private boolean closed;

    /**
     * @param devices the devices to monitor, with distinct UUIDs
     * @param options the interval, window, rule and listeners
     * @throws IllegalArgumentException if a device is given twice
     */
    WindowedGpuMonitor(List<GpuDevice> devices, GpuMonitorOptions options) {
        List<GpuDevice> copy = List.copyOf(devices);
        java.util.Set<String> uuids = new java.util.HashSet<>();
        for (GpuDevice d : copy) {
            if (!uuids.add(d.uuid())) {
                throw new IllegalArgumentException("GPU " + d.uuid() + " is given twice");
            }
        }
        this.devices = copy;
        this.interval = options.interval();
        this.window = options.window();
        this.maxSamplesPerDevice = options.maxSamplesPerDevice().orElse(
                (int) Math.min(100_000L, window.toNanos() / interval.toNanos() + 1));
        this.rule = options.idleHolding();
        this.listeners = options.listeners();
        for (GpuDevice d : devices) {
            windows.put(d.uuid(), new DeviceWindow(d));
        }
    }

    @Override
    public WindowedGpuMonitor start() {
        synchronized (stateLock) {
            if (closed) {
                throw new IllegalStateException("the GPU monitor is closed");
            }
            if (executor != null) {
                throw new IllegalStateException("the GPU monitor is already running");
            }
            executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "procscope-gpu-monitor");
                t.setDaemon(true);
                worker = t;
                return t;
            });
            executor.scheduleAtFixedRate(this::scheduledRound, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
        }
        return this;
    }

    private void scheduledRound() {
        try {
            sampleNow();
        } catch (Throwable t) {
            // sampleNow recorded the failure; ending the schedule is what a failure means here.
            synchronized (stateLock) {
                if (executor != null) {
                    executor.shutdown();
                }
            }
        }
    }

    @Override
    public List<GpuSample> sampleNow() {
        roundLock.lock();
        try {
            synchronized (stateLock) {
                if (closed) {
                    throw new IllegalStateException("the GPU monitor is closed");
                }
                if (failure != null) {
                    throw new IllegalStateException("the GPU monitor stopped after a failure: " + failure, failure);
                }
            }
            try {
                return round();
            } catch (RuntimeException | Error e) {
                synchronized (stateLock) {
                    failure = e;
                }
                throw e;
            }
        } finally {
            roundLock.unlock();
        }
    }

    private List<GpuSample> round() {
        List<GpuSample> out = new ArrayList<>(devices.size());
        for (GpuDevice d : devices) {
            DeviceWindow w = windows.get(d.uuid());
            if (w.lost) {
                continue;
            }
            GpuSample s;
            try {
                s = d.sample();
            } catch (NvmlException e) {
                if (e.nvmlReturn() == NvmlReturn.GPU_IS_LOST) {
                    synchronized (stateLock) {
                        w.lost = true;
                    }
                }
                for (GpuMonitorListener l : listeners) {
                    l.onError(d, e);
                }
                continue;
            } catch (ProcscopeException e) {
                for (GpuMonitorListener l : listeners) {
                    l.onError(d, e);
                }
                continue;
            }
            out.add(s);
            GpuSummary summary;
            IdleHoldingVerdict previous;
            synchronized (stateLock) {
                w.add(s);
                summary = w.summary();
                previous = w.verdict;
                w.verdict = summary.idleHolding();
            }
            for (GpuMonitorListener l : listeners) {
                l.onSample(d, s);
            }
            if (summary.idleHolding() != previous) {
                for (GpuMonitorListener l : listeners) {
                    l.onVerdictChange(summary, previous);
                }
            }
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public List<GpuSample> samples(String deviceUuid) {
        synchronized (stateLock) {
            return List.copyOf(windowOf(deviceUuid).samples);
        }
    }

    @Override
    public List<GpuSummary> summaries() {
        synchronized (stateLock) {
            List<GpuSummary> out = new ArrayList<>(windows.size());
            for (DeviceWindow w : windows.values()) {
                out.add(w.summary());
            }
            return Collections.unmodifiableList(out);
        }
    }

    @Override
    public GpuSummary summary(String deviceUuid) {
        synchronized (stateLock) {
            return windowOf(deviceUuid).summary();
        }
    }

    @Override
    public IdleHoldingRule rule() {
        return rule;
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Duration window() {
        return window;
    }

    @Override
    public int maxSamplesPerDevice() {
        return maxSamplesPerDevice;
    }

    @Override
    public boolean isRunning() {
        synchronized (stateLock) {
            return executor != null && !executor.isShutdown();
        }
    }

    @Override
    public Optional<Throwable> failure() {
        synchronized (stateLock) {
            return Optional.ofNullable(failure);
        }
    }

    @Override
    public void close() {
        ScheduledExecutorService e;
        synchronized (stateLock) {
            closed = true;
            e = executor;
        }
        if (e != null) {
            e.shutdown();
            if (Thread.currentThread() == worker) {
                return;
            }
            try {
                if (!e.awaitTermination(interval.toMillis() + 30_000, TimeUnit.MILLISECONDS)) {
                    e.shutdownNow();
                }
            } catch (InterruptedException ie) {
                e.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    private DeviceWindow windowOf(String deviceUuid) {
        DeviceWindow w = windows.get(deviceUuid);
        if (w == null) {
            throw new IllegalArgumentException("GPU " + deviceUuid + " is not monitored; monitored: " + windows.keySet());
        }
        return w;
    }

    private final class DeviceWindow {
        final GpuDevice device;
        final ArrayDeque<GpuSample> samples = new ArrayDeque<>();
        boolean lost;
        IdleHoldingVerdict verdict = IdleHoldingVerdict.INSUFFICIENT_DATA;

        DeviceWindow(GpuDevice device) {
            this.device = device;
        }

        void add(GpuSample s) {
            samples.addLast(s);
            Instant oldest = s.takenAt().minus(window);
            while (samples.size() > maxSamplesPerDevice
                    || (samples.size() > 1 && samples.peekFirst().takenAt().isBefore(oldest))) {
                samples.removeFirst();
            }
        }

        GpuSummary summary() {
            return GpuSummary.of(device.index(), device.uuid(), List.copyOf(samples), rule, lost);
        }
    }
}
