package io.github.procscope.metrics.family;

import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * {@code procscope_oom_kills_total{cgroup}}: OOM kills per memory cgroup from the doctor's OOM findings, the
 * cgroup's own counter where the finding carries it, else the kills the kernel log holds for it. The count kept
 * never goes down while the cgroup is remembered. A cgroup no examination has reported for the retention is
 * forgotten (as a process group with no process is), and at most as many cgroups as the series cap are remembered,
 * those reported longest ago forgotten first; one seen again counts from what its finding says. Thread-safe: the
 * doctor's thread counts, scrapes read.
 */
public final class OomKills {
    /** {@code procscope_oom_kills_total}. */
    public static final MetricFamily OOM_KILLS = MetricFamily.counter("procscope_oom_kills",
            "OOM kills per memory cgroup (the cgroup's own oom_kill counter, or the kernel log's kills).");

    private final Map<String, Kills> byCgroup = new HashMap<>();
    private final int cap;
    private final long retentionNanos;
    private final LongSupplier nanoClock;

    /**
     * @param cap       the most cgroups remembered
     * @param retention how long a cgroup no examination reports is remembered
     * @param nanoClock the clock of the retention, in nanoseconds
     */
    public OomKills(int cap, Duration retention, LongSupplier nanoClock) {
        this.cap = cap;
        this.retentionNanos = ProcessGroups.nanosOf(Objects.requireNonNull(retention, "retention"));
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** A cgroup's count and when an examination last reported it. */
    private static final class Kills {
        long count;
        long seenNanos;
    }

    /**
     * Counts the OOM kills of an examination.
     *
     * @param dx the examination
     */
    public void count(Diagnosis dx) {
        Map<String, Long> logged = new HashMap<>();
        Map<String, Long> counted = new HashMap<>();
        for (Finding f : dx.of(FindingKind.OOM_KILL)) {
            if (f.evidence() instanceof Evidence.CgroupOomKills c) {
                counted.merge(c.cgroup(), c.oomKills(), Math::max);
            } else if (f.evidence() instanceof Evidence.OomKilled o && o.kill().cgroup().isPresent()) {
                String cgroup = o.kill().cgroup().get();
                logged.merge(cgroup, 1L, Long::sum);
                if (o.cgroupOomKills().isPresent()) {
                    counted.merge(cgroup, o.cgroupOomKills().getAsLong(), Math::max);
                }
            }
        }
        logged.forEach((cg, n) -> counted.merge(cg, n, Math::max));
        synchronized (byCgroup) {
            long now = nanoClock.getAsLong();
            counted.forEach((cg, n) -> {
                Kills k = byCgroup.computeIfAbsent(cg, x -> new Kills());
                k.count = Math.max(k.count, n);
                k.seenNanos = now;
            });
            forget(now);
        }
    }

    /** Forgets the cgroups past the retention, then those reported longest ago down to the cap. */
    private void forget(long now) {
        for (Iterator<Kills> it = byCgroup.values().iterator(); it.hasNext(); ) {
            if (now - it.next().seenNanos >= retentionNanos) {
                it.remove();
            }
        }
        while (byCgroup.size() > cap) {
            String oldest = null;
            long oldestSeen = Long.MAX_VALUE;
            for (Map.Entry<String, Kills> e : byCgroup.entrySet()) {
                if (oldest == null || e.getValue().seenNanos - oldestSeen < 0) {
                    oldest = e.getKey();
                    oldestSeen = e.getValue().seenNanos;
                }
            }
            byCgroup.remove(oldest);
        }
    }

    /** @return how many cgroups are remembered */
    public int remembered() {
        synchronized (byCgroup) {
            return byCgroup.size();
        }
    }

    /**
     * Adds a series per remembered cgroup, in the order of their names.
     *
     * @param s the scrape
     */
    public void collect(Scrape s) {
        Map<String, Long> counts = new TreeMap<>();
        synchronized (byCgroup) {
            forget(nanoClock.getAsLong());
            byCgroup.forEach((cg, k) -> counts.put(cg, k.count));
        }
        counts.forEach((cg, n) -> s.add(OOM_KILLS, Labels.of("cgroup", cg), n));
    }
}
