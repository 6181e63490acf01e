package io.github.procscope.metrics;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.metrics.family.DcgmDevices;
import io.github.procscope.metrics.family.DeletedOpenFiles;
import io.github.procscope.metrics.family.DeviceReading;
import io.github.procscope.metrics.family.DoctorFindings;
import io.github.procscope.metrics.family.GpmSampler;
import io.github.procscope.metrics.family.GpuIdleHolding;
import io.github.procscope.metrics.family.GpuMemoryAttribution;
import io.github.procscope.metrics.family.JobTreeUsage;
import io.github.procscope.metrics.family.NvlinkRates;
import io.github.procscope.metrics.family.OomKills;
import io.github.procscope.metrics.family.PodGpuMemory;
import io.github.procscope.metrics.family.ProcessGroups;
import io.github.procscope.metrics.family.ProcessReading;
import io.github.procscope.metrics.family.ScrapeHealth;
import io.github.procscope.metrics.family.Zombies;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A Prometheus collector over procscope's readers: at each scrape it reads one process snapshot and derives
 * from it every process metric, so that label sets that come and go (groups, parents of zombies, GPU users) are
 * those of that moment. Names follow the exporters dashboards are built for: process-exporter's
 * {@code namedprocess_namegroup_*} for process groups, dcgm-exporter's {@code DCGM_FI_*} (its default counters
 * where NVML gives them, with its labels {@code gpu}, {@code UUID}, {@code pci_bus_id}, {@code device},
 * {@code modelName}, {@code Hostname}, {@code DCGM_FI_DRIVER_VERSION}; see {@link io.github.procscope.metrics.family.DcgmField}) for GPUs,
 * and {@code procscope_*} for what only procscope has. The README lists every name; each family is defined
 * once, in a class of {@link io.github.procscope.metrics.family} that also adds its series.
 *
 * <p>Register it with a {@link io.prometheus.metrics.model.registry.PrometheusRegistry}, or serve it with
 * {@link MetricsServer}. Scrapes are serialized. Close it to release the GPUs. A machine without a usable GPU
 * has no GPU metrics: the reason is told once, to the notice sink, when the collector is built.
 */
public final class ProcscopeCollector implements MultiCollector, AutoCloseable {
    private static final long NANOS = 1_000_000_000L;
    /** How long each GPU Performance Monitoring window of the {@code DCGM_FI_PROF_*} fields lasts. */
    private static final Duration GPM_WINDOW = Duration.ofSeconds(1);

    private final MetricsSources sources;
    private final ExporterOptions options;
    private final Optional<Gpus> gpus;
    private final Optional<String> gpuUnavailable;
    private final ScrapeHealth health = new ScrapeHealth();
    private final ProcessGroups groups;
    private final ProcessReading.Reader reader;
    private final GroupAssignments assignments = new GroupAssignments();
    private final GpuIdleHolding idleHolding;
    private final Optional<DeletedOpenFiles> deletedFiles;
    private final Optional<DoctorFindings> doctor;
    private final NvlinkRates nvlinkRates;
    private final Optional<GpmSampler> gpm;
    private long droppedTotal;
    private double lastDurationSeconds;

    /**
     * Builds the collector and opens the GPUs, if a GPU source is given; a GPU that cannot be used is told to
     * {@code System.err} in one line.
     *
     * @param sources the readers
     * @param options what to export
     */
    public ProcscopeCollector(MetricsSources sources, ExporterOptions options) {
        this(sources, options, System.err::println);
    }

    /**
     * @param sources the readers
     * @param options what to export
     * @param notices where the one line saying why there are no GPU metrics goes
     */
    public ProcscopeCollector(MetricsSources sources, ExporterOptions options, Consumer<String> notices) {
        this(sources, options, notices, System::nanoTime);
    }

    /**
     * @param nanoClock the clock of the group and OOM-kill retention, in nanoseconds ({@link System#nanoTime()})
     */
    ProcscopeCollector(MetricsSources sources, ExporterOptions options, Consumer<String> notices,
                       LongSupplier nanoClock) {
        Objects.requireNonNull(nanoClock, "nanoClock");
        this.sources = Objects.requireNonNull(sources, "sources");
        this.options = Objects.requireNonNull(options, "options");
        Objects.requireNonNull(notices, "notices");
        this.groups = new ProcessGroups(options.seriesCap(), options.groupRetention(), nanoClock);
        this.reader = new ProcessReading.Reader(sources.processes(),
                options.gatherSmaps() ? sources.memory() : Optional.empty(), options.threads());
        this.idleHolding = new GpuIdleHolding(options.idleRule());
        this.deletedFiles = sources.openFiles().map(f -> new DeletedOpenFiles(f, options.deletedFilesEvery(), health));
        OomKills oomKills = new OomKills(options.seriesCap(), options.groupRetention(), nanoClock);
        this.doctor = sources.doctor().map(d -> new DoctorFindings(d, options.doctorOptions(), options.doctorEvery(),
                oomKills, health));
        Optional<Gpus> opened = Optional.empty();
        Optional<String> why = Optional.empty();
        if (sources.gpus().isPresent()) {
            try {
                opened = Optional.of(sources.gpus().get().get());
            } catch (GpuUnavailableException e) {
                why = Optional.of(e.getMessage());
                notices.accept("procscope metrics: no GPU metrics: " + e.getMessage());
            }
        }
        this.gpus = opened;
        this.gpuUnavailable = why;
        this.nvlinkRates = new NvlinkRates(nanoClock);
        this.gpm = opened.map(g -> new GpmSampler(g, GPM_WINDOW, health));
    }

    /** @return why there are no GPU metrics, when GPUs were asked for and could not be opened */
    public Optional<String> gpuUnavailable() {
        return gpuUnavailable;
    }

    /**
     * The grouper's facets, the open descriptors and I/O counters of the groups' metrics, the whole status only with
     * the per-thread families (else each grouped process's counters of it, context switches and swap, are read
     * alone: {@code ProcessTable.statusCounters}), and the cgroups too when GPU memory is reported per process (its
     * owner labels).
     */
    private Set<Facet> facets() {
        EnumSet<Facet> all = EnumSet.of(Facet.FDS, Facet.IO);
        if (options.threads()) {
            all.add(Facet.STATUS);
        }
        all.addAll(options.grouper().facets());
        if (options.grouper() instanceof IdentityBoundGrouper) {
            all.remove(Facet.CMDLINE); // read once per process identity, by the assignments
        }
        if (options.perPid() || sources.kubernetes().isPresent() && gpus.isPresent()) {
            all.add(Facet.CGROUP);
        }
        return all;
    }

    @Override
    public synchronized MetricSnapshots collect() {
        long start = System.nanoTime();
        Scrape s = new Scrape(options.seriesCap());
        ProcessSnapshot snapshot = null;
        boolean treeFree = options.grouper() instanceof TreeFreeGrouper;
        assignments.begin();
        reader.forgetReadAhead();
        try {
            // A grouper that needs no tree decides each process's group as it is read, and what the groups report
            // beyond the snapshot (status counters, limits) is read then too: one pass over /proc, not two.
            snapshot = treeFree
                    ? sources.processes().snapshot(facets(), p -> {
                        if (groupOf(p, TreeFreeGrouper.NO_TREE).isPresent()) {
                            reader.readAhead(p);
                        }
                    })
                    : sources.processes().snapshot(facets());
        } catch (ProcscopeException e) {
            health.error("processes");
            groups.scrapeFailed();
        }
        if (snapshot != null) {
            groups.unreadable(snapshot.unreadable().size());
            // The tree (an index of every process by pid and by parent) only where something reads it.
            ProcessTree tree = treeFree && gpus.isEmpty() ? TreeFreeGrouper.NO_TREE : snapshot.tree();
            ProcessTree groupTree = treeFree ? TreeFreeGrouper.NO_TREE : tree;
            ProcessGrouper grouper = options.grouper();
            groups.collect(s, snapshot.processes(), grouper.declaredGroups(), p -> groupOf(p, groupTree),
                    Optional.of(reader));
            reader.forgetReadAhead();
            Zombies.collect(s, snapshot.processes());
            if (sources.jobs().isPresent()) {
                jobs(s, snapshot);
            }
            if (gpus.isPresent()) {
                gpus(s, gpus.get(), snapshot, tree);
            }
        }
        deletedFiles.ifPresent(d -> d.collect(s));
        doctor.ifPresent(d -> d.collect(s));
        droppedTotal += s.dropped();
        lastDurationSeconds = (System.nanoTime() - start) / (double) NANOS;
        health.collect(s, lastDurationSeconds, droppedTotal, options.seriesCap());
        groups.collectErrors(s);
        return s.build();
    }

    private void gpus(Scrape s, Gpus g, ProcessSnapshot snapshot, ProcessTree tree) {
        List<GpuDevice> devices;
        String driver;
        try {
            devices = g.devices();
            driver = g.driverVersion();
        } catch (ProcscopeException e) {
            health.error("gpu");
            return;
        }
        GpmSampler sampler = gpm.orElseThrow();
        sampler.start();
        // one question to the kubelet per scrape, within the names' deadline (a dead socket: the last answer)
        Map<String, List<PodContainer>> allocations = sources.kubernetes().map(KubernetesNames::gpus).orElse(Map.of());
        for (GpuDevice d : devices) {
            try {
                DeviceReading r = DeviceReading.of(d, nvlinkRates, sampler.last(d.uuid()));
                DcgmDevices.collect(s, r, DcgmDevices.labels(d, options.hostname(), driver,
                        PodGpuMemory.allocationLabels(allocations, d)));
                idleHolding.collect(s, d, r.sample());
                GpuMemoryAttribution.collect(s, d, snapshot, p -> groupOf(p, tree),
                        options.perPid(), options.doctorOptions().subreapers());
                if (sources.kubernetes().isPresent()) {
                    PodGpuMemory.collect(s, d, snapshot, sources.kubernetes().get(),
                            options.doctorOptions().subreapers());
                }
            } catch (ProcscopeException e) {
                health.error("gpu");
            }
        }
    }

    private void jobs(Scrape s, ProcessSnapshot snapshot) {
        Map<String, ProcessKey> jobs;
        try {
            jobs = Map.copyOf(sources.jobs().get().get());
        } catch (RuntimeException e) {
            health.error("jobs");
            return;
        }
        if (!jobs.isEmpty()) {
            JobTreeUsage.collect(s, snapshot, jobs);
        }
    }

    /** A process's group: once per process identity for a grouper bound to it, else asked at each scrape. */
    private Optional<String> groupOf(ProcessInfo p, ProcessTree tree) {
        if (options.grouper() instanceof IdentityBoundGrouper bound) {
            return assignments.groupOf(p, bound, sources.processes());
        }
        return options.grouper().groupOf(p, tree);
    }

    /** @return how many command lines the collector has read to decide groups (one per process identity) */
    long commandLinesRead() {
        return assignments.commandLinesRead();
    }

    /** @return how long the last scrape took to read the machine */
    public synchronized Duration lastScrapeDuration() {
        return Duration.ofNanos((long) (lastDurationSeconds * NANOS));
    }

    /**
     * Stops the doctor's, the deleted-files scan's and the GPU performance sampler's threads and closes the GPUs, if
     * they were opened.
     */
    @Override
    public void close() {
        doctor.ifPresent(DoctorFindings::close);
        deletedFiles.ifPresent(DeletedOpenFiles::close);
        gpm.ifPresent(GpmSampler::close);
        gpus.ifPresent(Gpus::close);
    }
}
