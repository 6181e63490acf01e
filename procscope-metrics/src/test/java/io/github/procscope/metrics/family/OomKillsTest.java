package io.github.procscope.metrics.family;

import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** OOM kills per cgroup: counts that never go down, kept no longer than the groups' retention and cap. */
class OomKillsTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

    /** An examination whose OOM findings carry these cgroups' own counters. */
    private static Diagnosis examination(Map<String, Long> kills) {
        List<Finding> findings = new ArrayList<>();
        kills.forEach((cg, n) -> findings.add(new Finding(Severity.WARNING, List.of(), "OOM kills in " + cg,
                new Evidence.CgroupOomKills(cg, 2, n, OptionalLong.empty(), 0), "raise memory.max")));
        return new Diagnosis(Instant.now(), findings, List.of());
    }

    private static Map<String, Double> scrape(OomKills k) {
        Scrape s = new Scrape(1_000_000);
        k.collect(s);
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot m : s.build()) {
            assertEquals("procscope_oom_kills", m.getMetadata().getName());
            for (CounterSnapshot.CounterDataPointSnapshot p : ((CounterSnapshot) m).getDataPoints()) {
                out.put(p.getLabels().get("cgroup"), p.getValue());
            }
        }
        return out;
    }

    @Test
    void aCountNeverGoesDownAndAQuietCgroupIsForgottenAfterTheRetention() {
        OomKills k = new OomKills(100, Duration.ofSeconds(60), clock::get);
        k.count(examination(Map.of("/a", 2L, "/b", 5L)));
        assertEquals(Map.of("/a", 2.0, "/b", 5.0), scrape(k));
        clock.addAndGet(30 * SECOND);
        k.count(examination(Map.of("/a", 1L)));
        assertEquals(Map.of("/a", 2.0, "/b", 5.0), scrape(k), "/a stays at 2; /b is within the retention");
        clock.addAndGet(30 * SECOND);
        assertEquals(Map.of("/a", 2.0), scrape(k), "/b unreported for 60 s");
        k.count(examination(Map.of("/b", 1L)));
        assertEquals(Map.of("/a", 2.0, "/b", 1.0), scrape(k), "/b seen again counts from its finding");
    }

    @Test
    void theCgroupsReportedLongestAgoGoPastTheCap() {
        OomKills k = new OomKills(3, Duration.ofDays(365), clock::get);
        for (String cg : List.of("/c", "/d", "/e", "/f")) {
            k.count(examination(Map.of(cg, 1L)));
            clock.addAndGet(SECOND);
        }
        assertEquals(List.of("/d", "/e", "/f"), new ArrayList<>(scrape(k).keySet()));
    }

    @Test
    void churningCgroupsStayBoundedByTheRetention() {
        OomKills k = new OomKills(1_000_000, Duration.ofSeconds(60), clock::get);
        for (int i = 0; i < 10_000; i++) {
            k.count(examination(Map.of("/job-" + i, 1L)));
            clock.addAndGet(SECOND);
        }
        assertTrue(k.remembered() <= 60, k.remembered() + " cgroups remembered");
        assertEquals(59, scrape(k).size(), "those reported in the last 60 s");
    }
}
