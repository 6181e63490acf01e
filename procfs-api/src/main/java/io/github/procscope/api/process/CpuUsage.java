package io.github.procscope.api.process;

import io.github.procscope.api.core.ProcessKey;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * CPU use over an interval, as {@code top} computes it: the CPU time a process used between two
 * snapshots divided by the time between them, in percent of one CPU (a process busy on two CPUs shows
 * 200). Processes are matched by {@link ProcessKey}, so a recycled pid is never compared with its
 * predecessor.
 */
public final class CpuUsage {
    private CpuUsage() {
    }

    /**
     * {@return percent of one CPU for every process present in both, by identity; empty when the two
     * snapshots share one uptime reading (taken within the clock's 10 ms resolution)}
     *
     * @param earlier the first snapshot
     * @param later   the second snapshot, taken after the first
     * @throws IllegalArgumentException if {@code later} was taken before {@code earlier}
     */
    public static Map<ProcessKey, Double> between(ProcessSnapshot earlier, ProcessSnapshot later) {
        long wallNanos = intervalNanos(earlier, later);
        if (wallNanos == 0) {
            return Map.of();
        }
        Map<ProcessKey, Double> out = new HashMap<>(later.size() * 2);
        for (ProcessInfo now : later.processes()) {
            earlier.find(now.pid()).ifPresent(before -> {
                if (before.startTimeTicks() == now.startTimeTicks()) {
                    out.put(now.key(), percent(before.cpuTime(), now.cpuTime(), wallNanos));
                }
            });
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * {@return percent of one CPU the process used between the snapshots; empty if it is not in both with
     * the same start time, or the snapshots share one uptime reading}
     *
     * @param earlier the first snapshot
     * @param later   the second snapshot, taken after the first
     * @param pid     a process id
     * @throws IllegalArgumentException if {@code later} was taken before {@code earlier}
     */
    public static OptionalDouble percent(ProcessSnapshot earlier, ProcessSnapshot later, long pid) {
        long wallNanos = intervalNanos(earlier, later);
        if (wallNanos == 0) {
            return OptionalDouble.empty();
        }
        var before = earlier.find(pid);
        var now = later.find(pid);
        if (before.isEmpty() || now.isEmpty() || before.get().startTimeTicks() != now.get().startTimeTicks()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(percent(before.get().cpuTime(), now.get().cpuTime(), wallNanos));
    }

    /**
     * {@return percent of one CPU used over the interval}
     *
     * @param cpuBefore CPU time at the start of the interval
     * @param cpuAfter  CPU time at its end
     * @param interval  the interval's length
     */
    public static double percent(Duration cpuBefore, Duration cpuAfter, Duration interval) {
        return percent(cpuBefore, cpuAfter, interval.toNanos());
    }

    private static double percent(Duration cpuBefore, Duration cpuAfter, long wallNanos) {
        long used = Math.max(0, cpuAfter.minus(cpuBefore).toNanos());
        return wallNanos <= 0 ? 0.0 : 100.0 * used / wallNanos;
    }

    private static long intervalNanos(ProcessSnapshot earlier, ProcessSnapshot later) {
        Objects.requireNonNull(earlier, "earlier");
        Objects.requireNonNull(later, "later");
        long nanos = later.uptime().minus(earlier.uptime()).toNanos();
        if (nanos < 0) {
            throw new IllegalArgumentException("the second snapshot (uptime " + later.uptime()
                    + ") was taken before the first (uptime " + earlier.uptime() + ")");
        }
        return nanos;
    }
}
