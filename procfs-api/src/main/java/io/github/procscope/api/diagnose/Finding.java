package io.github.procscope.api.diagnose;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One diagnosis: what is wrong, which processes are involved, the numbers that show it, and what to do.
 *
 * @param kind     what it is about
 * @param severity how much it matters
 * @param pids     the processes involved, ascending (empty when none is: a full disk)
 * @param summary  one line for a person
 * @param evidence the facts read, by name, in a stable order: values are {@link Number}, {@link String},
 *                 {@link Boolean} or lists of those (bytes are named {@code ...Bytes}, durations
 *                 {@code ...Seconds})
 * @param advice   what to do about it
 */
public record Finding(FindingKind kind, Severity severity, List<Long> pids, String summary,
                      Map<String, Object> evidence, String advice) {

    /** Checks components, copies the collections and checks the evidence's value types. */
    public Finding {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(severity, "severity");
        pids = pids.stream().sorted().distinct().toList();
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(advice, "advice");
        Map<String, Object> copy = new LinkedHashMap<>();
        evidence.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "evidence key"), checkValue(k, v)));
        evidence = Collections.unmodifiableMap(copy);
    }

    private static Object checkValue(String key, Object v) {
        if (v instanceof Number || v instanceof String || v instanceof Boolean) {
            return v;
        }
        if (v instanceof List<?> list) {
            for (Object e : list) {
                if (!(e instanceof Number || e instanceof String || e instanceof Boolean)) {
                    throw new IllegalArgumentException("evidence " + key + " holds a " + (e == null ? "null" : e.getClass().getName()));
                }
            }
            return List.copyOf(list);
        }
        throw new IllegalArgumentException("evidence " + key + " must be a number, string, boolean or list of those, not "
                + (v == null ? "null" : v.getClass().getName()));
    }
}
