package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.metrics.family.DoctorFindings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Micrometer gauges {@code procscope_doctor_findings}: the findings of the doctor's last examination, one row per
 * kind and severity, tagged {@code kind} and {@code severity} (lower case), 0 for a pair not found; and
 * {@code procscope_doctor_last_examination_timestamp_seconds}. The families, tags and values are those of
 * {@link DoctorFindings}, as the Prometheus collector exports them.
 *
 * <p>An examination reads every process twice, a sample window apart: call {@link #refresh()} on your own
 * schedule (every minute is plenty); {@link #bindTo} examines once. Thread-safe.
 */
public final class DoctorMetrics implements MeterBinder {
    private final Doctor doctor;
    private final DoctorOptions options;
    private MultiGauge findings;
    private volatile double lastExaminationSeconds = Double.NaN;

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
        findings = MultiGauge.builder(DoctorFindings.FINDINGS.name())
                .description(DoctorFindings.FINDINGS.help()).register(registry);
        Gauge.builder(DoctorFindings.LAST_EXAMINATION.name(), this, m -> m.lastExaminationSeconds)
                .baseUnit(Meters.unit(DoctorFindings.LAST_EXAMINATION))
                .description(DoctorFindings.LAST_EXAMINATION.help()).strongReference(true).register(registry);
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
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        DoctorFindings.counts(d).forEach((kind, bySeverity) -> bySeverity.forEach((severity, n) -> rows.add(
                MultiGauge.Row.of(Meters.tags(DoctorFindings.labels(kind, severity), Set.of()), n))));
        findings.register(rows, true);
        lastExaminationSeconds = d.takenAt().toEpochMilli() / 1000.0;
        return d;
    }
}
