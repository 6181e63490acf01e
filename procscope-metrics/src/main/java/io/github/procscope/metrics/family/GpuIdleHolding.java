package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.IdleHoldingRule;
import io.github.procscope.api.gpu.IdleHoldingVerdict;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@code procscope_gpu_idle_holding{gpu,UUID}}: whether a GPU was idle over the last scrapes while processes held
 * its memory, judged by an {@link IdleHoldingRule} over the samples of the last scrapes (as many as the rule needs).
 * Not thread-safe: scrapes are serialized.
 */
public final class GpuIdleHolding {
    /** {@code procscope_gpu_idle_holding}. */
    public static final MetricFamily IDLE_HOLDING = MetricFamily.gauge("procscope_gpu_idle_holding",
            "1 when the GPU was idle over the last scrapes while processes held its memory, else 0.");

    private final IdleHoldingRule rule;
    private final Map<String, ArrayDeque<double[]>> history = new HashMap<>();

    /** @param rule the rule */
    public GpuIdleHolding(IdleHoldingRule rule) {
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    /**
     * Adds a GPU's sample to its history and its series, once the rule has enough samples.
     *
     * @param s      the scrape
     * @param d      the GPU
     * @param sample its sample
     */
    public void collect(Scrape s, GpuDevice d, GpuSample sample) {
        if (sample.gpuUtilizationPercent().isEmpty() || sample.memory().isEmpty()) {
            return;
        }
        int keep = rule.minSamples();
        ArrayDeque<double[]> h = history.computeIfAbsent(d.uuid(), k -> new ArrayDeque<>());
        h.addLast(new double[] {sample.gpuUtilizationPercent().getAsInt(), sample.memory().get().usedBytes()});
        while (h.size() > keep) {
            h.removeFirst();
        }
        double sum = 0;
        double minUsed = Double.MAX_VALUE;
        for (double[] x : h) {
            sum += x[0];
            minUsed = Math.min(minUsed, x[1]);
        }
        IdleHoldingVerdict v = rule.judge(sum / h.size(), (long) minUsed, h.size());
        if (v != IdleHoldingVerdict.INSUFFICIENT_DATA) {
            s.add(IDLE_HOLDING, Labels.of("gpu", Integer.toString(d.index()), "UUID", d.uuid()),
                    v == IdleHoldingVerdict.IDLE_HOLDING ? 1 : 0);
        }
    }
}
