package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Micrometer gauge {@code procscope.doctor.findings}: the findings of the doctor's last examination, one row per
 * kind and severity found, tagged {@code kind} and {@code severity} (lower case). Kinds not found have no row.
 *
 * <p>An examination reads every process twice, a sample window apart: call {@link #refresh()} on your own
 * schedule (every minute is plenty); {@link #bindTo} examines once. Thread-safe.
 */
public final class DoctorMetrics implements MeterBinder {
    private final Doctor doctor;
    private final DoctorOptions options;
    private MultiGauge findings;

    /**
     * @param doctor  the doctor
     * @param options its thresholds and sample window
     */
    public DoctorMetrics(Doctor doctor, DoctorOptions options) {
        this.doctor = Objects.requireNonNull(doctor, "doctor");
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        findings = MultiGauge.builder("procscope.doctor.findings")
                .description("Findings of the doctor's last examination, by kind and severity.").register(registry);
        refresh();
    }

    /**
     * Examines the machine and replaces the rows.
     *
     * @return the examination
     * @throws IllegalStateException if the binder was not bound to a registry
     */
    public synchronized Diagnosis refresh() {
        if (findings == null) {
            throw new IllegalStateException("bind the doctor metrics to a registry before refreshing them");
        }
        Diagnosis d = doctor.examine(options);
        Map<FindingKind, Map<Severity, Integer>> counts = new EnumMap<>(FindingKind.class);
        for (Finding f : d.findings()) {
            counts.computeIfAbsent(f.kind(), k -> new EnumMap<>(Severity.class)).merge(f.severity(), 1, Integer::sum);
        }
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        counts.forEach((kind, bySeverity) -> bySeverity.forEach((severity, n) -> rows.add(MultiGauge.Row.of(
                Tags.of("kind", kind.name().toLowerCase(Locale.ROOT), "severity", severity.name().toLowerCase(Locale.ROOT)),
                n))));
        findings.register(rows, true);
        return d;
    }
}
