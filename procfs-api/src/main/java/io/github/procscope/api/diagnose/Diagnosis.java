package io.github.procscope.api.diagnose;

import io.github.procscope.api.process.UnreadableProcess;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of one examination.
 *
 * @param takenAt   when the examination began
 * @param findings  what was found, most severe first
 * @param skipped   checks that could not run here, each with its reason ("kernel log: permission
 *                  denied (needs CAP_SYSLOG)", "GPUs: NVML library not found"): a clean result says
 *                  nothing about them
 * @param unreadable processes left out of the examination because their kernel files were malformed (a value
 *                  out of its range, a FIFO where a file should be), each with the file and what was wrong,
 *                  ascending by pid: no finding can name them
 */
public record Diagnosis(Instant takenAt, List<Finding> findings, List<String> skipped,
                        List<UnreadableProcess> unreadable) {
    /** Checks components; orders findings by severity, then kind, and the left-out processes by pid. */
    public Diagnosis {
        Objects.requireNonNull(takenAt, "takenAt");
        findings = findings.stream().sorted(Comparator.comparing(Finding::severity).reversed()
                .thenComparing(Finding::kind)).toList();
        skipped = List.copyOf(skipped);
        unreadable = unreadable.stream().sorted(Comparator.comparingLong(UnreadableProcess::pid)).toList();
    }

    /**
     * A diagnosis that left no process out.
     *
     * @param takenAt  see the record's components
     * @param findings see the record's components
     * @param skipped  see the record's components
     */
    public Diagnosis(Instant takenAt, List<Finding> findings, List<String> skipped) {
        this(takenAt, findings, skipped, List.of());
    }

    /** {@return the most severe finding's severity, or empty when nothing was found} */
    public Optional<Severity> worst() {
        return findings.stream().map(Finding::severity).max(Comparator.naturalOrder());
    }

    /** {@return whether a finding of warning severity or above exists} */
    public boolean hasWarnings() {
        return worst().map(s -> s.atLeast(Severity.WARNING)).orElse(false);
    }

    /**
     * {@return the findings of that kind}
     *
     * @param kind a kind of finding
     */
    public List<Finding> of(FindingKind kind) {
        Objects.requireNonNull(kind, "kind");
        return findings.stream().filter(f -> f.kind() == kind).toList();
    }
}
