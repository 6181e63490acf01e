package io.github.procscope.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot.UnknownDataPointSnapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The series of one scrape, gathered by family, under a cap: a series past the cap is dropped and counted.
 * Not thread-safe: one scrape, one thread.
 */
final class Scrape {
    private final int cap;
    private final Map<String, Family> families = new LinkedHashMap<>();
    private int count;
    private long dropped;

    /** @param cap the most series this scrape may hold */
    Scrape(int cap) {
        this.cap = cap;
    }

    /** Adds a gauge series, unless the cap is reached. */
    void gauge(String name, String help, Labels labels, double value) {
        if (admit()) {
            families.computeIfAbsent(name, n -> new Family(n, help, Kind.GAUGE)).gauges
                    .add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
        }
    }

    /**
     * Adds a counter series, unless the cap is reached.
     *
     * @param name the name without {@code _total}, which the exposition formats append
     */
    void counter(String name, String help, Labels labels, double value) {
        if (admit()) {
            families.computeIfAbsent(name, n -> new Family(n, help, Kind.COUNTER)).counters
                    .add(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
        }
    }

    /**
     * Adds a series of a counter that dcgm-exporter names without {@code _total}, unless the cap is reached. The
     * Prometheus client would append {@code _total} to a counter, so the family is kept untyped here and
     * {@link ScrapeWriter} types it {@code counter} in the Prometheus text format, as dcgm-exporter does.
     *
     * @param name one of {@link ScrapeWriter#UNSUFFIXED_COUNTERS}
     */
    void unsuffixedCounter(String name, String help, Labels labels, double value) {
        if (!ScrapeWriter.UNSUFFIXED_COUNTERS.contains(name)) {
            throw new IllegalArgumentException(name + " is not a counter without suffix");
        }
        if (admit()) {
            families.computeIfAbsent(name, n -> new Family(n, help, Kind.UNSUFFIXED_COUNTER)).unknowns
                    .add(UnknownDataPointSnapshot.builder().labels(labels).value(value).build());
        }
    }

    /** As {@link #unsuffixedCounter}, even past the cap (the exporter's own error counters). */
    void ownUnsuffixedCounter(String name, String help, Labels labels, double value) {
        if (!ScrapeWriter.UNSUFFIXED_COUNTERS.contains(name)) {
            throw new IllegalArgumentException(name + " is not a counter without suffix");
        }
        families.computeIfAbsent(name, n -> new Family(n, help, Kind.UNSUFFIXED_COUNTER)).unknowns
                .add(UnknownDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    /** Adds a gauge series even past the cap (the exporter's own series, which tell of the cap). */
    void ownGauge(String name, String help, Labels labels, double value) {
        families.computeIfAbsent(name, n -> new Family(n, help, Kind.GAUGE)).gauges
                .add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    /** Adds a counter series even past the cap (the exporter's own series, which tell of the cap). */
    void ownCounter(String name, String help, Labels labels, double value) {
        families.computeIfAbsent(name, n -> new Family(n, help, Kind.COUNTER)).counters
                .add(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    private boolean admit() {
        if (count >= cap) {
            dropped++;
            return false;
        }
        count++;
        return true;
    }

    /** @return the series dropped by this scrape */
    long dropped() {
        return dropped;
    }

    /** @return the series kept so far (the exporter's own not counted) */
    int count() {
        return count;
    }

    MetricSnapshots build() {
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        for (Family f : families.values()) {
            switch (f.kind) {
                case COUNTER -> {
                    CounterSnapshot.Builder b = CounterSnapshot.builder().name(f.name).help(f.help);
                    f.counters.forEach(b::dataPoint);
                    out.add(b.build());
                }
                case GAUGE -> {
                    GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(f.name).help(f.help);
                    f.gauges.forEach(b::dataPoint);
                    out.add(b.build());
                }
                case UNSUFFIXED_COUNTER -> {
                    UnknownSnapshot.Builder b = UnknownSnapshot.builder().name(f.name).help(f.help);
                    f.unknowns.forEach(b::dataPoint);
                    out.add(b.build());
                }
                default -> throw new IllegalStateException(f.kind.name());
            }
        }
        return new MetricSnapshots(out);
    }

    private enum Kind { GAUGE, COUNTER, UNSUFFIXED_COUNTER }

    private static final class Family {
        final String name;
        final String help;
        final Kind kind;
        final List<GaugeDataPointSnapshot> gauges = new ArrayList<>();
        final List<CounterDataPointSnapshot> counters = new ArrayList<>();
        final List<UnknownDataPointSnapshot> unknowns = new ArrayList<>();

        Family(String name, String help, Kind kind) {
            this.name = name;
            this.help = help;
            this.kind = kind;
        }
    }
}
