package io.github.procscope.metrics.model;

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
 * The series of one scrape, gathered by family in the order the families first appear, under a cap: a series past
 * the cap is dropped and counted. Not thread-safe: one scrape, one thread.
 */
public final class Scrape {
    private final int cap;
    private final Map<String, Family> families = new LinkedHashMap<>();
    private int count;
    private long dropped;

    /** @param cap the most series this scrape may hold */
    public Scrape(int cap) {
        this.cap = cap;
    }

    /**
     * Adds a series of a family, unless the cap is reached.
     *
     * @param family the family
     * @param labels the series' labels
     * @param value  its value
     */
    public void add(MetricFamily family, Labels labels, double value) {
        if (admit()) {
            put(family, labels, value);
        }
    }

    /**
     * Adds a series even past the cap (the exporter's own series, which tell of the cap).
     *
     * @param family the family
     * @param labels the series' labels
     * @param value  its value
     */
    public void addOwn(MetricFamily family, Labels labels, double value) {
        put(family, labels, value);
    }

    private void put(MetricFamily family, Labels labels, double value) {
        Family f = families.computeIfAbsent(family.name(), n -> new Family(n, family.help(), family.type()));
        switch (f.kind) {
            case GAUGE -> f.gauges.add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
            case COUNTER -> f.counters.add(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
            case UNSUFFIXED_COUNTER ->
                    f.unknowns.add(UnknownDataPointSnapshot.builder().labels(labels).value(value).build());
            default -> throw new IllegalStateException(f.kind.name());
        }
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
    public long dropped() {
        return dropped;
    }

    /** @return the series kept so far (the exporter's own not counted) */
    public int count() {
        return count;
    }

    /** @return the scrape's families, in the order they first appeared */
    public MetricSnapshots build() {
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

    private static final class Family {
        final String name;
        final String help;
        final MetricType kind;
        final List<GaugeDataPointSnapshot> gauges = new ArrayList<>();
        final List<CounterDataPointSnapshot> counters = new ArrayList<>();
        final List<UnknownDataPointSnapshot> unknowns = new ArrayList<>();

        Family(String name, String help, MetricType kind) {
            this.name = name;
            this.help = help;
            this.kind = kind;
        }
    }
}
