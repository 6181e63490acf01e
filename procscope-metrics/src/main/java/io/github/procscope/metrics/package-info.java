/**
 * Fleet monitoring over procscope: a Prometheus collector ({@link io.github.procscope.metrics.ProcscopeCollector})
 * with the metric names existing dashboards use (dcgm-exporter for GPUs, process-exporter for process groups) and
 * {@code procscope_*} for what only procscope sees, an HTTP endpoint for it
 * ({@link io.github.procscope.metrics.MetricsServer}), and Micrometer binders in
 * {@link io.github.procscope.metrics.micrometer}.
 */
package io.github.procscope.metrics;
