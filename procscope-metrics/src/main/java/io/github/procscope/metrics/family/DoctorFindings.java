package io.github.procscope.metrics.family;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * {@code procscope_doctor_findings{kind,severity}} and {@code procscope_doctor_last_examination_timestamp_seconds}:
 * the findings of the doctor's last examination, every kind and severity with a series (0 where none was found).
 * The doctor examines within each scrape, or every so often on a thread of its own that the first scrape starts
 * (so that a scrape never waits for the sample window); each examination's OOM kills go to {@link OomKills}.
 */
public final class DoctorFindings implements AutoCloseable {
    /** {@code procscope_doctor_findings{kind,severity}}. */
    public static final MetricFamily FINDINGS = MetricFamily.gauge("procscope_doctor_findings",
            "Findings of the last examination by procscope's doctor, by kind and severity.");
    /** {@code procscope_doctor_last_examination_timestamp_seconds}. */
    public static final MetricFamily LAST_EXAMINATION = MetricFamily.gauge(
            "procscope_doctor_last_examination_timestamp_seconds",
            "When the doctor last examined the machine, in seconds since the epoch.", "seconds");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(FINDINGS, LAST_EXAMINATION);

    private final Doctor doctor;
    private final DoctorOptions options;
    private final Duration every;
    private final OomKills oomKills;
    private final ScrapeHealth health;
    private volatile Diagnosis diagnosis;
    private Thread thread;

    /**
     * @param doctor   the doctor
     * @param options  its thresholds and sample window
     * @param every    how often it examines; zero to examine within each scrape
     * @param oomKills where each examination's OOM kills are counted
     * @param health   where a failed examination is counted (as {@code doctor})
     */
    public DoctorFindings(Doctor doctor, DoctorOptions options, Duration every, OomKills oomKills,
                          ScrapeHealth health) {
        this.doctor = Objects.requireNonNull(doctor, "doctor");
        this.options = Objects.requireNonNull(options, "options");
        this.every = Objects.requireNonNull(every, "every");
        this.oomKills = Objects.requireNonNull(oomKills, "oomKills");
        this.health = Objects.requireNonNull(health, "health");
    }

    /**
     * Counts the findings of a diagnosis by kind and severity, every pair present.
     *
     * @param d the diagnosis
     * @return the counts
     */
    public static Map<FindingKind, EnumMap<Severity, Integer>> counts(Diagnosis d) {
        Map<FindingKind, EnumMap<Severity, Integer>> counts = new EnumMap<>(FindingKind.class);
        for (FindingKind k : FindingKind.values()) {
            EnumMap<Severity, Integer> m = new EnumMap<>(Severity.class);
            for (Severity v : Severity.values()) {
                m.put(v, 0);
            }
            counts.put(k, m);
        }
        for (Finding f : d.findings()) {
            counts.get(f.kind()).merge(f.severity(), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * @param kind     a finding kind
     * @param severity a severity
     * @return the labels of their series
     */
    public static Labels labels(FindingKind kind, Severity severity) {
        return Labels.of("kind", kind.name().toLowerCase(Locale.ROOT),
                "severity", severity.name().toLowerCase(Locale.ROOT));
    }

    /**
     * Adds the last examination's series, and then the OOM kills', examining first when examinations are made
     * within scrapes.
     *
     * @param s the scrape
     */
    public synchronized void collect(Scrape s) {
        if (every.isZero()) {
            examine();
        } else if (thread == null) {
            long millis = Math.max(1, every.toMillis());
            thread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    examine();
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "procscope-metrics-doctor");
            thread.setDaemon(true);
            thread.start();
        }
        Diagnosis d = diagnosis;
        if (d == null) {
            return;
        }
        counts(d).forEach((k, m) -> m.forEach((v, n) -> s.add(FINDINGS, labels(k, v), n)));
        s.add(LAST_EXAMINATION, Labels.EMPTY, d.takenAt().toEpochMilli() / 1000.0);
        oomKills.collect(s);
    }

    private void examine() {
        try {
            Diagnosis dx = doctor.examine(options);
            oomKills.count(dx);
            diagnosis = dx;
        } catch (ProcscopeException e) {
            health.error("doctor");
        }
    }

    /** Stops the examining thread, if one was started. */
    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
