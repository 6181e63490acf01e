package io.github.procscope.metrics.model;

/** How a metric family is typed in the exposition. */
public enum MetricType {
    /** A value that goes up and down. */
    GAUGE,
    /** A count that only grows; the exposition formats append {@code _total} to its name. */
    COUNTER,
    /**
     * A count that only grows, named without {@code _total} as dcgm-exporter names its counters: untyped in the
     * Prometheus model (which would append the suffix to a counter) and typed {@code counter} by the text writer.
     */
    UNSUFFIXED_COUNTER
}
