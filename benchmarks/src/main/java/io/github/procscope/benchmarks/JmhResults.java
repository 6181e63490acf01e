package io.github.procscope.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The results of one JMH run, read from its JSON output ({@code -rf json}). Each score is the median of the
 * iteration scores ({@code rawData}, all forks together): for {@code AverageTime} the median of the
 * iterations' averages, for {@code SingleShotTime} the median of the single runs.
 *
 * @param results one entry per benchmark and parameter set, in file order
 */
record JmhResults(List<Result> results) {

    /** The name of the gc profiler's allocation metric (older JMH versions prefix it with a middle dot). */
    static final String ALLOC_NORM = "gc.alloc.rate.norm";

    /**
     * One benchmark with one parameter set.
     *
     * @param benchmark  class simple name and method, such as {@code SnapshotBenchmark.procscope}
     * @param mode       JMH's mode name ({@code avgt}, {@code ss})
     * @param params     the parameters
     * @param nanosPerOp the iteration scores, in nanoseconds per operation
     * @param allocBytes the gc profiler's bytes per operation per iteration, empty without {@code -prof gc}
     */
    record Result(String benchmark, String mode, Map<String, String> params, double[] nanosPerOp,
                  double[] allocBytes) {

        /** @return the median time per operation in nanoseconds */
        double medianNanos() {
            return median(nanosPerOp);
        }

        /** @return the median bytes allocated per operation, if measured */
        Optional<Double> medianAllocBytes() {
            return allocBytes.length == 0 ? Optional.empty() : Optional.of(median(allocBytes));
        }

        /** @return how many iteration scores there are */
        int iterations() {
            return nanosPerOp.length;
        }
    }

    /**
     * @param file a JMH JSON result file
     * @return its results
     */
    static JmhResults read(Path file) {
        try {
            return parse(new ObjectMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the JMH results " + file, e);
        }
    }

    /**
     * @param json the text of a JMH JSON result file
     * @return its results
     */
    static JmhResults parse(String json) {
        try {
            return parse(new ObjectMapper().readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JmhResults parse(JsonNode root) {
        List<Result> out = new ArrayList<>();
        for (JsonNode b : root) {
            String full = b.path("benchmark").asText();
            String[] parts = full.split("\\.");
            String name = parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : full;
            Map<String, String> params = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : b.path("params").properties()) {
                params.put(e.getKey(), e.getValue().asText());
            }
            JsonNode primary = b.path("primaryMetric");
            double scale = nanosPer(primary.path("scoreUnit").asText());
            double[] times = Arrays.stream(raw(primary)).map(v -> v * scale).toArray();
            double[] alloc = new double[0];
            for (Map.Entry<String, JsonNode> e : b.path("secondaryMetrics").properties()) {
                if (e.getKey().replace("\u00b7", "").equals(ALLOC_NORM)) {
                    alloc = raw(e.getValue());
                }
            }
            out.add(new Result(name, b.path("mode").asText(), params, times, alloc));
        }
        return new JmhResults(List.copyOf(out));
    }

    private static double[] raw(JsonNode metric) {
        List<Double> values = new ArrayList<>();
        for (JsonNode fork : metric.path("rawData")) {
            for (JsonNode v : fork) {
                values.add(v.asDouble());
            }
        }
        if (values.isEmpty() && metric.has("score")) {
            values.add(metric.path("score").asDouble());
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * @param unit a JMH time unit per operation, such as {@code us/op}
     * @return nanoseconds per one of that unit
     */
    static double nanosPer(String unit) {
        return switch (unit) {
            case "ns/op" -> 1;
            case "us/op" -> 1e3;
            case "ms/op" -> 1e6;
            case "s/op" -> 1e9;
            default -> throw new IllegalArgumentException("not a time per operation: " + unit);
        };
    }

    /**
     * @param values numbers
     * @return their median (the mean of the middle two for an even count); NaN for none
     */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    /**
     * @param benchmark class simple name and method
     * @param fleetSize the fleet size, or null for a benchmark without one
     * @return the result, if the run holds it
     */
    Optional<Result> find(String benchmark, String fleetSize) {
        return results.stream()
                .filter(r -> r.benchmark().equals(benchmark))
                .filter(r -> fleetSize == null || fleetSize.equals(r.params().get("fleetSize")))
                .findFirst();
    }
}
