package io.github.procscope.metrics.family;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.Gpus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Measures GPU Performance Monitoring windows ({@link GpuDevice#gpmMetrics}: Hopper and newer) on a thread of its
 * own, one GPU after the other, so that a scrape never waits for a window: the {@code DCGM_FI_PROF_*} fields of a
 * scrape are those of each GPU's last window. A GPU without GPM is not measured and has no such fields.
 */
public final class GpmSampler implements AutoCloseable {
    private final Gpus gpus;
    private final Duration window;
    private final ScrapeHealth health;
    private final Map<String, GpmMetrics> last = new ConcurrentHashMap<>();
    private Thread thread;

    /**
     * @param gpus   the GPUs
     * @param window how long each window lasts (at least 100 ms)
     * @param health where a failed measurement is counted (as {@code gpu})
     */
    public GpmSampler(Gpus gpus, Duration window, ScrapeHealth health) {
        this.gpus = Objects.requireNonNull(gpus, "gpus");
        this.window = Objects.requireNonNull(window, "window");
        this.health = Objects.requireNonNull(health, "health");
        if (window.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("a GPM window lasts at least 100 ms: " + window);
        }
    }

    /**
     * @param uuid a GPU
     * @return its last window; empty before the first, or without GPM
     */
    public Optional<GpmMetrics> last(String uuid) {
        return Optional.ofNullable(last.get(uuid));
    }

    /** Starts measuring, unless started already or no GPU offers GPM. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        List<GpuDevice> measured = new ArrayList<>();
        try {
            for (GpuDevice d : gpus.devices()) {
                if (d.gpmSupported()) {
                    measured.add(d);
                }
            }
        } catch (ProcscopeException e) {
            health.error("gpu");
        }
        thread = new Thread(() -> measure(measured), "procscope-metrics-gpm");
        thread.setDaemon(true);
        if (!measured.isEmpty()) {
            thread.start();
        }
    }

    private void measure(List<GpuDevice> measured) {
        while (!Thread.currentThread().isInterrupted()) {
            boolean any = false;
            for (GpuDevice d : measured) {
                try {
                    Optional<GpmMetrics> m = d.gpmMetrics(window);
                    m.ifPresent(x -> last.put(d.uuid(), x));
                    any |= m.isPresent();
                } catch (ProcscopeException e) {
                    health.error("gpu");
                } catch (IllegalStateException e) {
                    return; // the GPUs were closed, or this thread interrupted
                }
            }
            if (!any) {
                // No GPU measured a window (each refused at once): wait one before trying again.
                try {
                    Thread.sleep(window.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Stops measuring and waits (up to 10 seconds) for the window under way to end; call it before closing the
     * GPUs, or close them to cut the window short.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null || !t.isAlive()) {
            return;
        }
        t.interrupt();
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
