package io.github.procscope.metrics.model;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A metric family as procscope exports it: its name, help text, type and unit, defined once and used by both the
 * Prometheus collector and the Micrometer binders (a binder's meter has the family's name, help and unit).
 *
 * @param name the family's name in the exposition, without the {@code _total} the formats append to a
 *             {@link MetricType#COUNTER}; it ends with {@code _}{@code unit} where a unit is given
 * @param help the help text
 * @param type how it is typed
 * @param unit the base unit its name ends with ({@code bytes}, {@code seconds}), or empty when the name carries
 *             none (dcgm-exporter's names give their unit in the help text)
 */
public record MetricFamily(String name, String help, MetricType type, String unit) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> UNSUFFIXED = ConcurrentHashMap.newKeySet();

    /** Checks the name and that the name ends with the unit. */
    public MetricFamily {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(help, "help");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(unit, "unit");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a metric name: " + name);
        }
        if (!unit.isEmpty() && !name.endsWith("_" + unit)) {
            throw new IllegalArgumentException(name + " does not end with its unit " + unit);
        }
        if (type == MetricType.UNSUFFIXED_COUNTER) {
            UNSUFFIXED.add(name);
        }
    }

    /**
     * @param name the name
     * @param help the help text
     * @return a gauge without unit
     */
    public static MetricFamily gauge(String name, String help) {
        return new MetricFamily(name, help, MetricType.GAUGE, "");
    }

    /**
     * @param name the name, ending with the unit
     * @param help the help text
     * @param unit the unit
     * @return a gauge
     */
    public static MetricFamily gauge(String name, String help, String unit) {
        return new MetricFamily(name, help, MetricType.GAUGE, unit);
    }

    /**
     * @param name the name without {@code _total}
     * @param help the help text
     * @return a counter without unit
     */
    public static MetricFamily counter(String name, String help) {
        return new MetricFamily(name, help, MetricType.COUNTER, "");
    }

    /**
     * @param name the name without {@code _total}, ending with the unit
     * @param help the help text
     * @param unit the unit
     * @return a counter
     */
    public static MetricFamily counter(String name, String help, String unit) {
        return new MetricFamily(name, help, MetricType.COUNTER, unit);
    }

    /**
     * @param name the name, which gets no {@code _total}
     * @param help the help text
     * @return a counter named as dcgm-exporter names its counters
     */
    public static MetricFamily unsuffixedCounter(String name, String help) {
        return new MetricFamily(name, help, MetricType.UNSUFFIXED_COUNTER, "");
    }

    /**
     * Whether a family of this name was defined as a {@link MetricType#UNSUFFIXED_COUNTER}. A scrape can only
     * hold a family that was defined before it, so the answer is complete for every family of a scrape.
     *
     * @param name a family's name
     * @return whether it is a counter without {@code _total}
     */
    public static boolean isUnsuffixedCounter(String name) {
        return UNSUFFIXED.contains(name);
    }
}
