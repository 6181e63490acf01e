package io.github.procscope.api.gpu.monitor;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.ProcscopeException;

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
 * Samples every device at an interval into a bounded window, like {@code nvidia-smi dmon} with a memory:
 * per-device summaries (mean and maximum utilization, memory, power, temperature) and the idle-holding
 * verdict ({@link IdleHoldingRule}) over the window, and listeners for custom monitors.
 *
 * <pre>{@code
 * try (Gpus gpus = Gpus.open();
 *      GpuMonitor monitor = GpuMonitor.builder(gpus.devices())
 *              .interval(Duration.ofSeconds(1))
 *              .window(Duration.ofMinutes(5))
 *              .listener(new GpuMonitorListener() {
 *                  public void onSample(GpuDevice d, GpuSample s) { System.out.println(DmonFormat.row(s)); }
 *              })
 *              .build()
 *              .start()) {
 *     Thread.sleep(Duration.ofMinutes(5).toMillis());
 *     monitor.summaries().stream().filter(GpuSummary::isIdleHolding)
 *             .forEach(s -> System.out.println("GPU " + s.deviceIndex() + " is idle but holds memory"));
 * }
 * }</pre>
 *
 * <p>The window keeps, per device, the samples of the last {@code window} (measured between sample
 * times), and never more than {@code maxSamplesPerDevice}. {@link #sampleNow()} takes one round on the
 * calling thread (for callers with their own schedule, and for tests); {@link #start()} takes rounds on
 * a daemon thread at the interval. Rounds never overlap. Thread-safe.
 *
 * <p>A lost GPU is reported once to {@link GpuMonitorListener#onError} and skipped afterwards; its summary
 * says {@link GpuSummary#lost()}. Other devices go on. When the inventory is closed, or a listener throws,
 * the monitor stops and {@link #failure()} tells why.
 */
public final class GpuMonitor implements AutoCloseable {
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

    private GpuMonitor(Builder b) {
        this.devices = List.copyOf(b.devices);
        this.interval = b.interval;
        this.window = b.window;
        this.maxSamplesPerDevice = b.maxSamplesPerDevice > 0 ? b.maxSamplesPerDevice
                : (int) Math.min(100_000L, window.toNanos() / interval.toNanos() + 1);
        this.rule = b.rule;
        this.listeners = List.copyOf(b.listeners);
        for (GpuDevice d : devices) {
            windows.put(d.uuid(), new DeviceWindow(d));
        }
    }

    /**
     * {@return a builder}
     *
     * @param gpus an open inventory; its {@link Gpus#devices()} are monitored
     */
    public static Builder builder(Gpus gpus) {
        return new Builder(gpus.devices());
    }

    /**
     * {@return a builder}
     *
     * @param devices the devices to monitor (whole GPUs or MIG devices), with distinct UUIDs
     */
    public static Builder builder(List<GpuDevice> devices) {
        return new Builder(devices);
    }

    /**
     * Starts sampling at the interval on a daemon thread, the first round now.
     *
     * @return this monitor
     * @throws IllegalStateException if it was started or closed already
     */
    public GpuMonitor start() {
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

    /**
     * Takes one round now: samples every device that is not lost, updates the windows, calls the
     * listeners.
     *
     * @return the samples of this round, in device order
     * @throws IllegalStateException if the monitor or the inventory is closed, or the monitor stopped after
     *                               a failure
     * @throws RuntimeException      what a listener threw (the monitor then stops)
     */
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

    /**
     * {@return the samples in its window, oldest first}
     *
     * @param deviceUuid a monitored device's UUID
     * @throws IllegalArgumentException if the device is not monitored
     */
    public List<GpuSample> samples(String deviceUuid) {
        synchronized (stateLock) {
            return List.copyOf(windowOf(deviceUuid).samples);
        }
    }

    /** {@return one summary per monitored device, in device order} */
    public List<GpuSummary> summaries() {
        synchronized (stateLock) {
            List<GpuSummary> out = new ArrayList<>(windows.size());
            for (DeviceWindow w : windows.values()) {
                out.add(w.summary());
            }
            return Collections.unmodifiableList(out);
        }
    }

    /**
     * {@return its summary over the window}
     *
     * @param deviceUuid a monitored device's UUID
     * @throws IllegalArgumentException if the device is not monitored
     */
    public GpuSummary summary(String deviceUuid) {
        synchronized (stateLock) {
            return windowOf(deviceUuid).summary();
        }
    }

    /** {@return the rule the verdicts are made with} */
    public IdleHoldingRule rule() {
        return rule;
    }

    /** {@return the sampling interval of {@link #start()}} */
    public Duration interval() {
        return interval;
    }

    /** {@return the window length} */
    public Duration window() {
        return window;
    }

    /** {@return the most samples kept per device} */
    public int maxSamplesPerDevice() {
        return maxSamplesPerDevice;
    }

    /** {@return whether {@link #start()} was called and the schedule has not ended} */
    public boolean isRunning() {
        synchronized (stateLock) {
            return executor != null && !executor.isShutdown();
        }
    }

    /**
     * {@return why the monitor stopped: the inventory was closed ({@link IllegalStateException}) or a
     * listener threw; empty while it is healthy}
     */
    public Optional<Throwable> failure() {
        synchronized (stateLock) {
            return Optional.ofNullable(failure);
        }
    }

    /**
     * Stops the schedule and waits for a round in flight (unless called from a listener, on the monitor's
     * own thread). Idempotent.
     */
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

    /** Configures a {@link GpuMonitor}. */
    public static final class Builder {
        private final List<GpuDevice> devices;
        private Duration interval = Duration.ofSeconds(1);
        private Duration window = Duration.ofMinutes(5);
        private int maxSamplesPerDevice;
        private IdleHoldingRule rule = IdleHoldingRule.DEFAULT;
        private final List<GpuMonitorListener> listeners = new ArrayList<>();

        private Builder(List<GpuDevice> devices) {
            List<GpuDevice> copy = List.copyOf(devices);
            java.util.Set<String> uuids = new java.util.HashSet<>();
            for (GpuDevice d : copy) {
                if (!uuids.add(d.uuid())) {
                    throw new IllegalArgumentException("GPU " + d.uuid() + " is given twice");
                }
            }
            this.devices = copy;
        }

        /**
         * {@return this builder}
         *
         * @param interval time between rounds of {@link GpuMonitor#start()}; default 1 second
         * @throws IllegalArgumentException if it is shorter than 1 ms
         */
        public Builder interval(Duration interval) {
            if (interval.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("the sampling interval must be at least 1 ms: " + interval);
            }
            this.interval = interval;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param window how far back the summaries look; default 5 minutes
         * @throws IllegalArgumentException if it is not positive
         */
        public Builder window(Duration window) {
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("the window must be positive: " + window);
            }
            this.window = window;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param max the most samples kept per device; default: window / interval + 1, at most 100,000
         * @throws IllegalArgumentException if it is below 1
         */
        public Builder maxSamplesPerDevice(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("keep at least one sample per device: " + max);
            }
            this.maxSamplesPerDevice = max;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param rule the idle-holding rule; default {@link IdleHoldingRule#DEFAULT}
         */
        public Builder idleHolding(IdleHoldingRule rule) {
            this.rule = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param listener a listener to add
         */
        public Builder listener(GpuMonitorListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** {@return the monitor, not yet started} */
        public GpuMonitor build() {
            return new GpuMonitor(this);
        }
    }
}
