package io.github.procscope.metrics;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** A scrape rendered as Prometheus text (as {@link MetricsServer} writes it), and its samples by series ({@code name{a="x",b="y"}}). */
record Exposition(String text, Map<String, Double> samples) {

    static Exposition of(MetricSnapshots snapshots) {
        return parse(render(snapshots, false));
    }

    static String render(MetricSnapshots snapshots, boolean openMetrics) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new ScrapeWriter().write(openMetrics ? "application/openmetrics-text; version=1.0.0" : null, snapshots, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    static Exposition parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            samples.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
        }
        return new Exposition(text, samples);
    }

    /** @return the value of one series; fails naming the series and the metric's series when it is absent */
    double get(String series) {
        Double v = samples.get(series);
        if (v == null) {
            String name = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
            throw new AssertionError("no series " + series + "; the series of " + name + ": " + samples.keySet().stream()
                    .filter(k -> k.startsWith(name)).collect(Collectors.joining(", ")));
        }
        return v;
    }

    /** @return how many series have this metric name */
    long count(String name) {
        return samples.keySet().stream().filter(k -> k.equals(name) || k.startsWith(name + "{")).count();
    }
}
