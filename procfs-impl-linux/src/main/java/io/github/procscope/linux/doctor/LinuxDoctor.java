package io.github.procscope.linux.doctor;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.CgroupOomCount;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.IdleHoldingRule;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.UnreadableProcess;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.proc.CgroupOomCounters;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The Linux {@link Doctor}. It reads the processes, the disks' counters and (when a GPU implementation
 * and driver are present) the GPUs at the start of the sample window, watches the window, reads them
 * again, then runs each check of the diagnosis map. Each source is given to the builder as an API type
 * (a {@link Procscope} or its readers), so that a fixture tree can be examined and a caller needs no
 * {@code io.github.procscope.linux} type but this one; a source not given is not examined. Thread-safe.
 */
public final class LinuxDoctor implements Doctor {
    private final ProcessTable procfs;
    private final Optional<SystemResources> resources;
    private final Optional<Supplier<Gpus>> gpus;
    private final List<DoctorCheck> checks;

    private LinuxDoctor(Builder b) {
        this.procfs = b.procfs;
        this.resources = Optional.ofNullable(b.resources);
        this.gpus = Optional.ofNullable(b.gpus);
        List<DoctorCheck> c = new ArrayList<>();
        c.add(new ZombieCheck());
        c.add(new OrphanCheck());
        c.add(new Pid1Check());
        c.add(new HangupCheck());
        if (b.kernelLog != null || b.resources != null) {
            SystemResources r = b.resources;
            Path sys = b.sysfsRoot;
            Supplier<List<CgroupOomCount>> counters = r == null ? List::of : () -> CgroupOomCounters.read(r, sys);
            c.add(new OomKillCheck(Optional.ofNullable(b.kernelLog), counters));
        }
        if (b.resources != null) {
            c.add(new DiskSpaceCheck(b.resources));
            c.add(new MemoryPressureCheck(b.resources));
            c.add(new IoBottleneckCheck());
        }
        if (b.openFiles != null) {
            c.add(new DeletedFilesCheck(b.openFiles));
        }
        if (b.gpus != null) {
            c.add(new GpuChecks());
        }
        this.checks = List.copyOf(c);
    }

    /**
     * A builder over the process table of {@code procscope}, whose cgroup files are found under its sysfs
     * root; the other sources are added with the builder's methods, for example
     * {@code LinuxDoctor.builder(p).systemResources(p.resources()).openFiles(p.openFiles()).build()}.
     *
     * @param procscope the readers of one procfs and sysfs root
     * @return a builder; sources not given are not examined
     */
    public static Builder builder(Procscope procscope) {
        Objects.requireNonNull(procscope, "procscope");
        return new Builder(procscope.processes()).sysfsRoot(procscope.sysfsRoot());
    }

    /**
     * A builder over a process table; cgroup files are found under {@code /sys} unless
     * {@link Builder#sysfsRoot(Path)} names another root.
     *
     * @param processes the process table to examine
     * @return a builder; sources not given are not examined
     */
    public static Builder builder(ProcessTable processes) {
        return new Builder(processes);
    }

    /**
     * @return the processes either snapshot left out as malformed, once each (by pid, the later reading's
     *         reason kept)
     */
    static List<UnreadableProcess> leftOut(ProcessSnapshot before, ProcessSnapshot after) {
        java.util.Map<Long, UnreadableProcess> byPid = new java.util.TreeMap<>();
        before.unreadable().forEach(u -> byPid.put(u.pid(), u));
        after.unreadable().forEach(u -> byPid.put(u.pid(), u));
        return List.copyOf(byPid.values());
    }

    @Override
    public Diagnosis examine(DoctorOptions options) {
        Objects.requireNonNull(options, "options");
        Instant start = Instant.now();
        List<String> skipped = Collections.synchronizedList(new ArrayList<>());
        // Neither snapshot reads a facet: checks read the few processes they need more of again (Examination.reread).
        // With facets, a snapshot of thousands of processes holds every status and command line: `serve` with 5,000
        // processes and the doctor on held 97 MiB RSS when the later snapshot read them, 81 MiB since.
        ProcessSnapshot before = procfs.snapshot(Set.of());
        Optional<DiskStats> disksBefore = disks(skipped);
        GpuWatch watch = gpus.map(g -> GpuWatch.start(g, options, skipped)).orElse(null);
        try {
            sleep(options.sampleWindow());
            ProcessSnapshot after = procfs.snapshot(Set.of());
            Optional<DiskStats> disksAfter = disks(skipped);
            Optional<Examination.GpuWindow> gpuWindow = watch == null ? Optional.empty()
                    : watch.finish(procfs, options, skipped);
            Examination e = new Examination(procfs, before, after, disksBefore, disksAfter, gpuWindow, options,
                    skipped);
            List<Finding> findings = new ArrayList<>();
            for (DoctorCheck c : checks) {
                try {
                    findings.addAll(c.run(e));
                } catch (ProcscopeException ex) {
                    skipped.add(c.name() + ": " + ex.getMessage());
                }
            }
            return new Diagnosis(start, findings, skipped, leftOut(before, after));
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    private Optional<DiskStats> disks(List<String> skipped) {
        if (resources.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(resources.get().diskStats());
        } catch (ProcscopeException ex) {
            skipped.add("disk i/o: " + ex.getMessage());
            return Optional.empty();
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new ProcscopeException("interrupted during the sample window", ex);
        }
    }

    /** The GPUs watched over the window: an open inventory and a monitor sampling it. */
    private static final class GpuWatch implements AutoCloseable {
        private final Gpus gpus;
        private final GpuMonitor monitor;

        private GpuWatch(Gpus gpus, GpuMonitor monitor) {
            this.gpus = gpus;
            this.monitor = monitor;
        }

        static GpuWatch start(Supplier<Gpus> source, DoctorOptions options, List<String> skipped) {
            Gpus g;
            try {
                g = source.get();
            } catch (ProcscopeException ex) {
                skipped.add("GPUs: " + ex.getMessage());
                return null;
            }
            try {
                Duration window = options.sampleWindow();
                Duration interval = window.isZero() ? Duration.ofMillis(100)
                        : max(Duration.ofMillis(100), window.dividedBy(8));
                int minSamples = window.isZero() ? 1 : 3;
                GpuMonitor m = g.monitor(GpuMonitorOptions.defaults().withInterval(interval)
                        .withWindow(window.plusSeconds(1))
                        .withIdleHolding(new IdleHoldingRule(options.gpuIdleUtilizationPercent(),
                                options.gpuIdleMemoryBytes(), minSamples)));
                m.sampleNow();
                if (!window.isZero()) {
                    m.start();
                }
                return new GpuWatch(g, m);
            } catch (RuntimeException ex) {
                g.close();
                skipped.add("GPUs: " + ex.getMessage());
                return null;
            }
        }

        Optional<Examination.GpuWindow> finish(ProcessTable procfs, DoctorOptions options, List<String> skipped) {
            try {
                monitor.sampleNow(); // the window's last round; close() stops the schedule afterwards
                return Optional.of(new Examination.GpuWindow(monitor.summaries(),
                        gpus.users(procfs, options.subreapers())));
            } catch (RuntimeException ex) {
                skipped.add("GPUs: " + ex.getMessage());
                return Optional.empty();
            }
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        @Override
        public void close() {
            try {
                monitor.close();
            } finally {
                gpus.close();
            }
        }
    }

    /** Chooses the sources a {@link LinuxDoctor} examines. */
    public static final class Builder {
        private final ProcessTable procfs;
        private KernelLog kernelLog;
        private SystemResources resources;
        private Path sysfsRoot = Path.of("/sys");
        private OpenFiles openFiles;
        private Supplier<Gpus> gpus;

        private Builder(ProcessTable procfs) {
            this.procfs = Objects.requireNonNull(procfs, "processes");
        }

        /**
         * @param log the kernel log to search for OOM kills
         * @return this builder
         */
        public Builder kernelLog(KernelLog log) {
            this.kernelLog = Objects.requireNonNull(log, "log");
            return this;
        }

        /**
         * @param r memory, file systems and disks to judge, and the cgroup hierarchies whose OOM counters
         *          to read
         * @return this builder
         */
        public Builder systemResources(SystemResources r) {
            this.resources = Objects.requireNonNull(r, "resources");
            return this;
        }

        /**
         * @param root the sysfs root that cgroup mount points under {@code /sys} map to when the OOM counters
         *             are read (a fixture's or a host's {@code sys}); {@code /sys} unless given
         * @return this builder
         */
        Builder sysfsRoot(Path root) {
            this.sysfsRoot = Objects.requireNonNull(root, "root");
            return this;
        }

        /**
         * @param f the open-files reader for the deleted-but-open scan
         * @return this builder
         */
        public Builder openFiles(OpenFiles f) {
            this.openFiles = Objects.requireNonNull(f, "openFiles");
            return this;
        }

        /**
         * @param source opens the GPU inventory to watch (for example {@code procscope::openGpus}); a
         *               {@link io.github.procscope.api.gpu.GpuUnavailableException} makes the GPU checks skipped
         * @return this builder
         */
        public Builder gpus(Supplier<Gpus> source) {
            this.gpus = Objects.requireNonNull(source, "source");
            return this;
        }

        /** @return the doctor */
        public LinuxDoctor build() {
            return new LinuxDoctor(this);
        }
    }
}
