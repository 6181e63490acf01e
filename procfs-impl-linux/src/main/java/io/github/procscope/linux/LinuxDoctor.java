package io.github.procscope.linux;

import io.github.procscope.api.Facet;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.KernelLog;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;

/**
 * The Linux {@link Doctor}: two snapshots a sample window apart, then each check of the diagnosis map.
 * Rooted like every reader here, so that a fixture tree can be examined. Thread-safe.
 */
public final class LinuxDoctor implements Doctor {
    private final LinuxProcfs procfs;
    private final List<DoctorCheck> checks;

    private LinuxDoctor(LinuxProcfs procfs, List<DoctorCheck> checks) {
        this.procfs = procfs;
        this.checks = List.copyOf(checks);
    }

    /** @return the doctor of the live system */
    public static LinuxDoctor system() {
        return builder(LinuxProcfs.system()).kernelLog(LinuxKernelLog.system()).build();
    }

    /**
     * @param procfs the process table to examine
     * @return a builder; sources not given are not examined (and are listed as skipped)
     */
    public static Builder builder(LinuxProcfs procfs) {
        return new Builder(procfs);
    }

    @Override
    public Diagnosis examine(DoctorOptions options) {
        Objects.requireNonNull(options, "options");
        Instant start = Instant.now();
        EnumSet<Facet> facets = EnumSet.allOf(Facet.class);
        ProcessSnapshot before = procfs.snapshot(facets);
        sleep(options);
        ProcessSnapshot after = procfs.snapshot(facets);
        Examination e = new Examination(before, after, options);
        List<Finding> findings = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (DoctorCheck c : checks) {
            try {
                findings.addAll(c.run(e));
            } catch (ProcscopeException ex) {
                skipped.add(c.name() + ": " + ex.getMessage());
            }
        }
        return new Diagnosis(start, findings, skipped);
    }

    private static void sleep(DoctorOptions options) {
        try {
            Thread.sleep(options.sampleWindow().toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new ProcscopeException("interrupted during the sample window", ex);
        }
    }

    /** Chooses the sources a {@link LinuxDoctor} examines. */
    public static final class Builder {
        private final LinuxProcfs procfs;
        private KernelLog kernelLog;

        private Builder(LinuxProcfs procfs) {
            this.procfs = Objects.requireNonNull(procfs, "procfs");
        }

        /**
         * @param log the kernel log to search for OOM kills
         * @return this builder
         */
        public Builder kernelLog(KernelLog log) {
            this.kernelLog = Objects.requireNonNull(log, "log");
            return this;
        }

        /** @return the doctor */
        public LinuxDoctor build() {
            List<DoctorCheck> checks = new ArrayList<>();
            checks.add(new ZombieCheck());
            checks.add(new OrphanCheck());
            checks.add(new Pid1Check());
            checks.add(new HangupCheck());
            if (kernelLog != null) {
                checks.add(new OomKillCheck(kernelLog));
            }
            return new LinuxDoctor(procfs, checks);
        }
    }
}
