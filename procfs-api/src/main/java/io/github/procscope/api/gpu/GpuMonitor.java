package io.github.procscope.api.gpu;


import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Samples every device at an interval into a bounded window, like {@code nvidia-smi dmon} with a memory:
 * per-device summaries (mean and maximum utilization, memory, power, temperature) and the idle-holding
 * verdict ({@link IdleHoldingRule}) over the window, and listeners for custom monitors. Obtain one from
 * {@link io.github.procscope.api.gpu.Gpus#monitor(GpuMonitorOptions)}:
 *
 * <pre>{@code
 * try (Gpus gpus = Procscope.system().openGpus();
 *      GpuMonitor monitor = gpus.monitor(GpuMonitorOptions.defaults()
 *              .withInterval(Duration.ofSeconds(1))
 *              .withWindow(Duration.ofMinutes(5))
 *              .withListener(new GpuMonitorListener() {
 *                  public void onSample(GpuDevice d, GpuSample s) { System.out.println(DmonFormat.row(s)); }
 *              })).start()) {
 *     Thread.sleep(Duration.ofMinutes(5).toMillis());
 *     monitor.summaries().stream().filter(GpuSummary::isIdleHolding)
 *             .forEach(s -> System.out.println("GPU " + s.deviceIndex() + " is idle but holds memory"));
 * }
 * }</pre>
 *
 * <p>The window keeps, per device, the samples of the last {@link #window()} (measured between sample
 * times), and never more than {@link #maxSamplesPerDevice()}. {@link #sampleNow()} takes one round on the
 * calling thread (for callers with their own schedule, and for tests); {@link #start()} takes rounds on
 * a daemon thread at the interval. Rounds never overlap. Thread-safe.
 *
 * <p>A lost GPU is reported once to {@link GpuMonitorListener#onError} and skipped afterwards; its summary
 * says {@link GpuSummary#lost()}. Other devices go on. When the inventory is closed, or a listener throws,
 * the monitor stops and {@link #failure()} tells why.
 */
public interface GpuMonitor extends AutoCloseable {

    /**
     * Starts sampling at the interval on a daemon thread, the first round now.
     *
     * @return this monitor
     * @throws IllegalStateException if it was started or closed already
     */
    GpuMonitor start();

    /**
     * Takes one round now: samples every device that is not lost, updates the windows, calls the
     * listeners.
     *
     * @return the samples of this round, in device order
     * @throws IllegalStateException if the monitor or the inventory is closed, or the monitor stopped after
     *                               a failure
     * @throws RuntimeException      what a listener threw (the monitor then stops)
     */
    List<GpuSample> sampleNow();

    /**
     * {@return the samples of one device in its window, oldest first}
     *
     * @param deviceUuid a monitored device's UUID
     * @throws IllegalArgumentException if the device is not monitored
     */
    List<GpuSample> samples(String deviceUuid);

    /** {@return one summary per monitored device, in device order} */
    List<GpuSummary> summaries();

    /**
     * {@return the summary of one device over the window}
     *
     * @param deviceUuid a monitored device's UUID
     * @throws IllegalArgumentException if the device is not monitored
     */
    GpuSummary summary(String deviceUuid);

    /** {@return the rule the verdicts are made with} */
    IdleHoldingRule rule();

    /** {@return the sampling interval of {@link #start()}} */
    Duration interval();

    /** {@return the window length} */
    Duration window();

    /** {@return the most samples kept per device} */
    int maxSamplesPerDevice();

    /** {@return whether {@link #start()} was called and the schedule has not ended} */
    boolean isRunning();

    /**
     * {@return why the monitor stopped: the inventory was closed ({@link IllegalStateException}) or a listener threw;
     * empty while it is healthy}
     */
    Optional<Throwable> failure();

    /**
     * Stops the schedule and waits for a round in flight (unless called from a listener, on the monitor's
     * own thread). Idempotent.
     */
    @Override
    void close();
}
