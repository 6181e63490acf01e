package io.github.procscope.metrics.family;

import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The exporter's own series: how long a scrape took, the series cap and what it dropped, and the reads that failed
 * by source. They are added past the cap. Thread-safe: failures are counted from the scanning threads too.
 */
public final class ScrapeHealth {
    /** {@code procscope_scrape_duration_seconds}. */
    public static final MetricFamily DURATION = MetricFamily.gauge("procscope_scrape_duration_seconds",
            "How long the exporter took to read the machine for this scrape, in seconds.", "seconds");
    /** {@code procscope_series_dropped_total}. */
    public static final MetricFamily SERIES_DROPPED = MetricFamily.counter("procscope_series_dropped",
            "Series left out of scrapes because the series cap was reached.");
    /** {@code procscope_series_cap}. */
    public static final MetricFamily SERIES_CAP = MetricFamily.gauge("procscope_series_cap",
            "The most series one scrape returns.");
    /** {@code procscope_scrape_errors_total{source}}. */
    public static final MetricFamily SCRAPE_ERRORS = MetricFamily.counter("procscope_scrape_errors",
            "Reads that failed during scrapes, by source; that source's series are missing from those scrapes.");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(DURATION, SERIES_DROPPED, SERIES_CAP, SCRAPE_ERRORS);

    private final Map<String, Long> errors = new TreeMap<>();

    /**
     * Counts a failed read.
     *
     * @param source what failed to be read ({@code processes}, {@code gpu}, {@code open_files}, {@code doctor}, {@code jobs})
     */
    public void error(String source) {
        synchronized (errors) {
            errors.merge(source, 1L, Long::sum);
        }
    }

    /**
     * Adds the exporter's own series.
     *
     * @param s               the scrape
     * @param durationSeconds how long this scrape read
     * @param droppedTotal    series dropped by every scrape so far
     * @param cap             the series cap
     */
    public void collect(Scrape s, double durationSeconds, long droppedTotal, int cap) {
        s.addOwn(DURATION, Labels.EMPTY, durationSeconds);
        s.addOwn(SERIES_DROPPED, Labels.EMPTY, droppedTotal);
        s.addOwn(SERIES_CAP, Labels.EMPTY, cap);
        Map<String, Long> counts;
        synchronized (errors) {
            counts = new TreeMap<>(errors);
        }
        counts.forEach((source, n) -> s.addOwn(SCRAPE_ERRORS, Labels.of("source", source), n));
    }
}
