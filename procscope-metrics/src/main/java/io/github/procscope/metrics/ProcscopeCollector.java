package io.github.procscope.metrics;

import io.github.procscope.api.Facet;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.gpu.EccErrorCounts;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.monitor.IdleHoldingVerdict;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A Prometheus collector over procscope's readers: at each scrape it reads one process snapshot and derives
 * from it every process metric, so that label sets that come and go (groups, parents of zombies, GPU users) are
 * those of that moment. Names follow the exporters dashboards are built for: process-exporter's
 * {@code namedprocess_namegroup_*} for process groups, dcgm-exporter's {@code DCGM_FI_DEV_*} (with its labels
 * {@code gpu}, {@code UUID}, {@code device}, {@code modelName}, {@code Hostname}, {@code pci_bus_id}) for GPUs,
 * and {@code procscope_*} for what only procscope has. The README lists every name.
 *
 * <p>Register it with a {@link io.prometheus.metrics.model.registry.PrometheusRegistry}, or serve it with
 * {@link MetricsServer}. Scrapes are serialized. Close it to release the GPUs. A machine without a usable GPU
 * has no GPU metrics: the reason is told once, to the notice sink, when the collector is built.
 */
public final class ProcscopeCollector implements MultiCollector, AutoCloseable {
    private static final double MIB = 1024.0 * 1024.0;
    private static final long NANOS = 1_000_000_000L;

    private final MetricsSources sources;
    private final ExporterOptions options;
    private final Optional<Gpus> gpus;
    private final Optional<String> gpuUnavailable;
    private final Map<String, GroupTotals> groups = new LinkedHashMap<>();
    private final ProcessCounters counters = new ProcessCounters();
    private final ThreadFamilies threadFamilies = new ThreadFamilies();
    private final GroupAssignments assignments = new GroupAssignments();
    /** process-exporter's error counters: scrapes without processes, processes read in part, and not at all. */
    private long scrapeErrors;
    private long partialErrors;
    private long procreadErrors;
    private int nextGroupId;
    private final Map<String, ArrayDeque<double[]>> gpuHistory = new HashMap<>();
    private final Map<String, Long> oomKillsByCgroup = new TreeMap<>();
    private final Map<String, Long> errors = new TreeMap<>();
    private volatile Diagnosis diagnosis;
    private Thread doctorThread;
    private volatile DeletedFilesScan deletedScan;
    private Thread deletedThread;
    private long droppedTotal;
    private double lastDurationSeconds;
    private final LongSupplier nanoClock;

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
     * @param nanoClock the clock of the group retention, in nanoseconds ({@link System#nanoTime()})
     */
    ProcscopeCollector(MetricsSources sources, ExporterOptions options, Consumer<String> notices,
                       LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.sources = Objects.requireNonNull(sources, "sources");
        this.options = Objects.requireNonNull(options, "options");
        Objects.requireNonNull(notices, "notices");
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
    }

    /** @return why there are no GPU metrics, when GPUs were asked for and could not be opened */
    public Optional<String> gpuUnavailable() {
        return gpuUnavailable;
    }

    /**
     * The grouper's facets, the open descriptors, I/O counters and status (context switches, swap) of the groups'
     * metrics, and the cgroups too when
     * GPU memory is reported per process (its owner labels).
     */
    private Set<Facet> facets() {
        EnumSet<Facet> all = EnumSet.of(Facet.FDS, Facet.IO, Facet.STATUS);
        all.addAll(options.grouper().facets());
        if (options.grouper() instanceof IdentityBoundGrouper) {
            all.remove(Facet.CMDLINE); // read once per process identity, by the assignments
        }
        if (options.perPid()) {
            all.add(Facet.CGROUP);
        }
        return all;
    }

    @Override
    public synchronized MetricSnapshots collect() {
        long start = System.nanoTime();
        Scrape s = new Scrape(options.seriesCap());
        ProcessSnapshot snapshot = null;
        try {
            snapshot = sources.processes().snapshot(facets());
        } catch (ProcscopeException e) {
            error("processes");
            scrapeErrors++;
        }
        if (snapshot != null) {
            procreadErrors += snapshot.unreadable().size();
            // The tree (an index of every process by pid and by parent) only where something reads it.
            boolean treeFree = options.grouper() instanceof TreeFreeGrouper;
            ProcessTree tree = treeFree && gpus.isEmpty() ? TreeFreeGrouper.NO_TREE : snapshot.tree();
            processGroups(s, snapshot, treeFree ? TreeFreeGrouper.NO_TREE : tree);
            zombies(s, snapshot);
            if (gpus.isPresent()) {
                gpus(s, gpus.get(), snapshot, tree);
            }
        }
        sources.openFiles().ifPresent(files -> deletedFiles(s, files));
        sources.doctor().ifPresent(d -> doctor(s, d));
        droppedTotal += s.dropped();
        lastDurationSeconds = (System.nanoTime() - start) / (double) NANOS;
        s.ownGauge("procscope_scrape_duration_seconds",
                "How long the exporter took to read the machine for this scrape, in seconds.", Labels.EMPTY,
                lastDurationSeconds);
        s.ownCounter("procscope_series_dropped", "Series left out of scrapes because the series cap was reached.",
                Labels.EMPTY, droppedTotal);
        s.ownGauge("procscope_series_cap", "The most series one scrape returns.", Labels.EMPTY, options.seriesCap());
        Map<String, Long> errorCounts;
        synchronized (errors) {
            errorCounts = new TreeMap<>(errors);
        }
        s.ownUnsuffixedCounter("namedprocess_scrape_errors",
                "Scrapes that collected no process metrics (the process table could not be read).", Labels.EMPTY,
                scrapeErrors);
        s.ownUnsuffixedCounter("namedprocess_scrape_partial_errors",
                "Grouped processes read in part (a file withheld: I/O counters, descriptors, status, limits, threads"
                        + " or smaps_rollup), counted per process and scrape.", Labels.EMPTY, partialErrors);
        s.ownUnsuffixedCounter("namedprocess_scrape_procread_errors",
                "Processes left out of a scrape because their kernel files could not be read.", Labels.EMPTY,
                procreadErrors);
        errorCounts.forEach((source, n) -> s.ownCounter("procscope_scrape_errors",
                "Reads that failed during scrapes, by source; that source's series are missing from those scrapes.",
                Labels.of("source", source), n));
        return s.build();
    }

    private void error(String source) {
        synchronized (errors) {
            errors.merge(source, 1L, Long::sum);
        }
    }

    // ---------------------------------------------------------------- process groups (process-exporter)

    private void processGroups(Scrape s, ProcessSnapshot snapshot, ProcessTree tree) {
        ProcessGrouper grouper = options.grouper();
        Map<String, GroupNow> now = new LinkedHashMap<>();
        for (String declared : grouper.declaredGroups()) {
            now.put(declared, new GroupNow(groups.computeIfAbsent(declared, k -> new GroupTotals(nextGroupId++))));
        }
        long[] values = new long[ProcessCounters.WIDTH];
        long[] deltas = new long[ProcessCounters.WIDTH];
        threadFamilies.begin();
        assignments.begin();
        for (ProcessInfo p : snapshot.processes()) {
            Optional<String> g = groupOf(p, tree);
            if (g.isPresent()) {
                GroupNow group = now.get(g.get());
                if (group == null) {
                    group = new GroupNow(groups.computeIfAbsent(g.get(), k -> new GroupTotals(nextGroupId++)));
                    now.put(g.get(), group);
                }
                group.add(p);
                // What the process used since the last scrape counted it in this group (all of it if none did).
                values[0] = p.userTime().toNanos();
                values[1] = p.systemTime().toNanos();
                values[2] = p.majorFaults();
                values[3] = p.minorFaults();
                values[4] = p.io().isPresent() ? p.io().get().storageReadBytes() : 0;
                values[5] = p.io().isPresent() ? p.io().get().storageWriteBytes() : 0;
                ProcessExporterExtras.Read extra = ProcessExporterExtras.read(sources, options, p);
                values[6] = extra.voluntary;
                values[7] = extra.nonvoluntary;
                counters.advance(p.pid(), p.stat().startTimeTicks(), group.totals.id, values, deltas);
                group.totals.add(deltas);
                group.extras.add(extra);
                partialErrors += extra.partial ? 1 : 0;
                if (options.threads()) {
                    threadFamilies.add(g.get(), extra.threads);
                }
            }
        }
        counters.swap();
        // Groups with no process left: reported at 0 from the first scrape that finds them empty until the
        // retention has passed, then forgotten (declared groups are in `now` already and stay).
        long clock = nanoClock.getAsLong();
        long retention = nanosOf(options.groupRetention());
        for (Iterator<Map.Entry<String, GroupTotals>> it = groups.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, GroupTotals> seen = it.next();
            GroupTotals t = seen.getValue();
            if (now.containsKey(seen.getKey())) {
                t.empty = false;
                continue;
            }
            if (!t.empty) {
                t.empty = true;
                t.emptySinceNanos = clock;
            }
            if (clock - t.emptySinceNanos >= retention) {
                it.remove();
            } else {
                now.put(seen.getKey(), new GroupNow(t));
            }
        }
        // Remember at most as many groups as the cap allows series: the oldest are forgotten first.
        while (groups.size() > options.seriesCap()) {
            String oldest = groups.keySet().iterator().next();
            groups.remove(oldest);
            now.remove(oldest);
        }
        String[] stateNames = {"Running", "Sleeping", "Waiting", "Zombie", "Other"};
        for (Map.Entry<String, GroupNow> e : now.entrySet()) {
            String name = e.getKey();
            GroupNow g = e.getValue();
            GroupTotals t = groups.get(name);
            Labels l = Labels.of("groupname", name);
            s.gauge("namedprocess_namegroup_num_procs", "Number of processes in this group.", l, g.procs);
            s.counter("namedprocess_namegroup_cpu_seconds", "CPU seconds used by this group's processes, by mode.",
                    Labels.of("groupname", name, "mode", "user"), t.userNanos / (double) NANOS);
            s.counter("namedprocess_namegroup_cpu_seconds", "CPU seconds used by this group's processes, by mode.",
                    Labels.of("groupname", name, "mode", "system"), t.systemNanos / (double) NANOS);
            s.gauge("namedprocess_namegroup_memory_bytes", "Memory of this group's processes, in bytes, by type.",
                    Labels.of("groupname", name, "memtype", "resident"), g.residentBytes);
            s.gauge("namedprocess_namegroup_memory_bytes", "Memory of this group's processes, in bytes, by type.",
                    Labels.of("groupname", name, "memtype", "virtual"), g.virtualBytes);
            s.gauge("namedprocess_namegroup_num_threads", "Number of threads of this group's processes.", l, g.threads);
            for (int i = 0; i < stateNames.length; i++) {
                s.gauge("namedprocess_namegroup_states", "Number of this group's processes in each state.",
                        Labels.of("groupname", name, "state", stateNames[i]), g.states[i]);
            }
            s.gauge("namedprocess_namegroup_oldest_start_time_seconds",
                    "When the group's oldest process started, in seconds since the epoch; 0 with no process.", l,
                    g.oldestStartMillis == Long.MAX_VALUE ? 0 : g.oldestStartMillis / 1000.0);
            s.counter("namedprocess_namegroup_major_page_faults", "Major page faults of this group's processes.", l,
                    t.majorFaults);
            s.gauge("namedprocess_namegroup_open_filedesc",
                    "Open file descriptors of this group's processes (those this user may list).", l, g.openFds);
            s.counter("namedprocess_namegroup_read_bytes",
                    "Bytes this group's processes caused to be read from storage (read_bytes of /proc/PID/io).", l,
                    t.readBytes);
            s.counter("namedprocess_namegroup_write_bytes",
                    "Bytes this group's processes caused to be written to storage (write_bytes of /proc/PID/io).",
                    l, t.writeBytes);
            s.counter("namedprocess_namegroup_minor_page_faults", "Minor page faults of this group's processes.", l,
                    t.minorFaults);
            s.counter("namedprocess_namegroup_context_switches",
                    "Context switches of this group's processes, by type (/proc/PID/status).",
                    Labels.of("ctxswitchtype", "nonvoluntary", "groupname", name), t.nonvoluntarySwitches);
            s.counter("namedprocess_namegroup_context_switches",
                    "Context switches of this group's processes, by type (/proc/PID/status).",
                    Labels.of("ctxswitchtype", "voluntary", "groupname", name), t.voluntarySwitches);
            g.extras.write(s, name, options);
        }
        if (options.threads()) {
            threadFamilies.end(s, now.keySet());
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

    /** @return the duration in nanoseconds, {@link Long#MAX_VALUE} for one too long for that (292 years) */
    private static long nanosOf(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

        /** What a group holds in this snapshot. */
    private static final class GroupNow {
        final GroupTotals totals;
        int procs;
        long residentBytes;
        long virtualBytes;
        long threads;
        long openFds;
        final ProcessExporterExtras extras = new ProcessExporterExtras();
        final int[] states = new int[5];
        long oldestStartMillis = Long.MAX_VALUE;

        GroupNow(GroupTotals totals) {
            this.totals = totals;
        }

        void add(ProcessInfo p) {
            procs++;
            residentBytes += p.rssBytes();
            virtualBytes += p.vszBytes();
            threads += p.threads();
            states[switch (p.state()) {
                case RUNNING -> 0;
                case SLEEPING, IDLE -> 1;
                case DISK_SLEEP -> 2;
                case ZOMBIE -> 3;
                default -> 4;
            }]++;
            oldestStartMillis = Math.min(oldestStartMillis, p.startTime().toEpochMilli());
            openFds += p.openFds().orElse(0);
        }
    }

    /**
     * A group's counters kept across scrapes, as process-exporter keeps them: each process adds what it used since
     * the last scrape (a new one adds all it used; {@link ProcessCounters}), and what exited processes used stays
     * counted, so the counters never go down. A group forgotten (empty past the retention, or the oldest under the
     * series cap) and seen again is a new group (a new id): its processes count from the start again, and its series
     * restart from that, which Prometheus takes for a counter reset after the series went stale.
     */
    private static final class GroupTotals {
        final int id;
        /** Whether the last scrape found no process in the group, and since when (the first scrape that did). */
        boolean empty;
        long emptySinceNanos;
        long userNanos;
        long systemNanos;
        long majorFaults;
        long minorFaults;
        long readBytes;
        long writeBytes;
        long voluntarySwitches;
        long nonvoluntarySwitches;

        GroupTotals(int id) {
            this.id = id;
        }

        void add(long[] deltas) {
            userNanos += deltas[0];
            systemNanos += deltas[1];
            majorFaults += deltas[2];
            minorFaults += deltas[3];
            readBytes += deltas[4];
            writeBytes += deltas[5];
            voluntarySwitches += deltas[6];
            nonvoluntarySwitches += deltas[7];
        }
    }

    // ---------------------------------------------------------------- zombies

    private void zombies(Scrape s, ProcessSnapshot snapshot) {
        // Zombies by the pid of the parent that has not reaped them, ascending, as ProcessTree.zombiesByParent()
        // has them, without building the tree.
        TreeMap<Long, int[]> byParent = new TreeMap<>();
        int total = 0;
        for (ProcessInfo p : snapshot.processes()) {
            if (p.state() == io.github.procscope.api.ProcessState.ZOMBIE) {
                byParent.computeIfAbsent(p.ppid(), k -> new int[1])[0]++;
                total++;
            }
        }
        s.gauge("procscope_zombie_processes", "Zombie processes: exited, not yet reaped by their parent.",
                Labels.EMPTY, total);
        if (byParent.isEmpty()) {
            return;
        }
        Map<Long, String> parentComm = new HashMap<>();
        for (ProcessInfo p : snapshot.processes()) {
            if (byParent.containsKey(p.pid())) {
                parentComm.put(p.pid(), p.comm());
            }
        }
        for (Map.Entry<Long, int[]> e : byParent.entrySet()) {
            long parent = e.getKey();
            s.gauge("procscope_zombies", "Zombie processes by the parent that has not reaped them.",
                    Labels.of("parent_pid", Long.toString(parent), "parent_comm", parentComm.getOrDefault(parent, "")),
                    e.getValue()[0]);
        }
    }

    // ---------------------------------------------------------------- GPUs (dcgm-exporter)

    private void gpus(Scrape s, Gpus g, ProcessSnapshot snapshot, ProcessTree tree) {
        java.util.List<GpuDevice> devices;
        try {
            devices = g.devices();
        } catch (ProcscopeException e) {
            error("gpu");
            return;
        }
        for (GpuDevice d : devices) {
            try {
                gpu(s, d, snapshot, tree);
            } catch (ProcscopeException e) {
                error("gpu");
            }
        }
    }

    private void gpu(Scrape s, GpuDevice d, ProcessSnapshot snapshot, ProcessTree tree) {
        GpuSample sample = d.sample();
        String gpu = Integer.toString(d.index());
        Labels l = Labels.of("gpu", gpu, "UUID", d.uuid(),
                "device", d.minorNumber().isPresent() ? "nvidia" + d.minorNumber().getAsInt() : "",
                "modelName", d.name(), "Hostname", options.hostname(), "pci_bus_id", d.pciBusId().orElse(""));
        sample.gpuUtilizationPercent().ifPresent(v -> s.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", l, v));
        sample.memoryUtilizationPercent().ifPresent(v ->
                s.gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", l, v));
        if (sample.memory().isPresent()) {
            GpuMemory m = sample.memory().get();
            s.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", l, Math.floor(m.usedBytes() / MIB));
            s.gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", l, Math.floor(m.freeBytes() / MIB));
        }
        sample.temperatureCelsius().ifPresent(v -> s.gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", l, v));
        sample.powerDrawMilliwatts().ifPresent(v ->
                s.gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", l, v / 1000.0));
        sample.energyMillijoules().ifPresent(v -> s.unsuffixedCounter("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                "Total energy consumption since boot (in mJ).", l, v));
        sample.smClockMhz().ifPresent(v -> s.gauge("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", l, v));
        sample.memoryClockMhz().ifPresent(v ->
                s.gauge("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", l, v));
        if (sample.eccErrors().isPresent()) {
            EccErrorCounts ecc = sample.eccErrors().get();
            ecc(s, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors.", l,
                    ecc.volatileCorrected());
            ecc(s, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.", l,
                    ecc.volatileUncorrected());
            ecc(s, "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "Total number of single-bit persistent ECC errors.", l,
                    ecc.aggregateCorrected());
            ecc(s, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "Total number of double-bit persistent ECC errors.", l,
                    ecc.aggregateUncorrected());
        }
        errorCounters(s, d, l);
        idleHolding(s, d, sample);
        gpuUsers(s, d, snapshot, tree);
    }

    /** PCIe replays, remapped rows and XID errors, as dcgm-exporter names them; absent where not offered. */
    private static void errorCounters(Scrape s, GpuDevice d, Labels l) {
        d.pcieReplays().ifPresent(v -> s.unsuffixedCounter("DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                "Total number of PCIe retries.", l, v));
        d.remappedRows().ifPresent(r -> {
            s.unsuffixedCounter("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                    "Number of remapped rows for correctable errors", l, r.correctableRows());
            s.unsuffixedCounter("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                    "Number of remapped rows for uncorrectable errors", l, r.uncorrectableRows());
            s.gauge("DCGM_FI_DEV_ROW_REMAP_PENDING", "Whether remapping of rows is pending (1) or not (0).", l,
                    r.pending() ? 1 : 0);
            s.gauge("DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed (1) or not (0).", l,
                    r.failed() ? 1 : 0);
        });
        d.xidErrors().ifPresent(x -> {
            s.gauge("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered (0: none since the exporter"
                    + " started watching).", l, x.lastXid().orElse(0));
            s.counter("procscope_gpu_xid_errors", "XID errors seen since the exporter started watching.", l,
                    x.count());
        });
    }

    private static void ecc(Scrape s, String name, String help, Labels l, OptionalLong v) {
        if (v.isPresent()) {
            s.unsuffixedCounter(name, help, l, v.getAsLong());
        }
    }

    private void idleHolding(Scrape s, GpuDevice d, GpuSample sample) {
        if (sample.gpuUtilizationPercent().isEmpty() || sample.memory().isEmpty()) {
            return;
        }
        int keep = options.idleRule().minSamples();
        ArrayDeque<double[]> h = gpuHistory.computeIfAbsent(d.uuid(), k -> new ArrayDeque<>());
        h.addLast(new double[] {sample.gpuUtilizationPercent().getAsInt(), sample.memory().get().usedBytes()});
        while (h.size() > keep) {
            h.removeFirst();
        }
        double sum = 0;
        double minUsed = Double.MAX_VALUE;
        for (double[] x : h) {
            sum += x[0];
            minUsed = Math.min(minUsed, x[1]);
        }
        IdleHoldingVerdict v = options.idleRule().judge(sum / h.size(), (long) minUsed, h.size());
        if (v != IdleHoldingVerdict.INSUFFICIENT_DATA) {
            s.gauge("procscope_gpu_idle_holding",
                    "1 when the GPU was idle over the last scrapes while processes held its memory, else 0.",
                    Labels.of("gpu", Integer.toString(d.index()), "UUID", d.uuid()),
                    v == IdleHoldingVerdict.IDLE_HOLDING ? 1 : 0);
        }
    }

    private void gpuUsers(Scrape s, GpuDevice d, ProcessSnapshot snapshot, ProcessTree tree) {
        var listed = d.processes();
        Set<Long> reapers = options.doctorOptions().subreapers();
        java.util.List<GpuUser> users = GpuUsers.join(listed.processes(), java.util.List.of(), snapshot, reapers);
        String gpu = Integer.toString(d.index());
        Map<String, Long> byGroup = new TreeMap<>();
        long unattributed = 0;
        int ghosts = 0;
        long ghostBytes = 0;
        for (GpuUser u : users) {
            long bytes = u.usedMemoryBytes().orElse(0);
            Optional<String> group = u.process().flatMap(p -> groupOf(p, tree));
            if (group.isPresent()) {
                byGroup.merge(group.get(), bytes, Long::sum);
            } else {
                unattributed += bytes;
            }
            if (u.ghost()) {
                ghosts++;
                ghostBytes += bytes;
            }
            if (options.perPid()) {
                Optional<Owner> owner = u.process().flatMap(ProcessInfo::owner);
                s.gauge("procscope_gpu_process_memory_bytes", "GPU memory used by one process, in bytes.",
                        Labels.of("gpu", gpu, "UUID", d.uuid(), "pid", Long.toString(u.pid()),
                                "comm", u.process().map(ProcessInfo::comm).orElse(""),
                                "container", owner.flatMap(Owner::container).map(Container::shortId).orElse(""),
                                "pod_uid", owner.flatMap(Owner::podUid).orElse("")), bytes);
            }
        }
        byGroup.forEach((g, bytes) -> s.gauge("procscope_gpu_group_memory_bytes",
                "GPU memory used by a process group (the groups of namedprocess_namegroup_*), in bytes.",
                Labels.of("gpu", gpu, "UUID", d.uuid(), "groupname", g), bytes));
        s.gauge("procscope_gpu_unattributed_memory_bytes",
                "GPU memory used by processes in no group or not visible here (another pid namespace), in bytes.",
                Labels.of("gpu", gpu, "UUID", d.uuid()), unattributed);
        s.gauge("procscope_gpu_ghost_processes",
                "Processes holding this GPU whose parent is gone (adopted by PID 1 or a subreaper).",
                Labels.of("gpu", gpu, "UUID", d.uuid()), ghosts);
        s.gauge("procscope_gpu_ghost_memory_bytes", "GPU memory held by ghost processes, in bytes.",
                Labels.of("gpu", gpu, "UUID", d.uuid()), ghostBytes);
    }

    // ---------------------------------------------------------------- deleted-but-open files

    /** Within the scrape, or from the last scan of the scanning thread (which the first scrape starts). */
    private void deletedFiles(Scrape s, io.github.procscope.api.files.OpenFiles files) {
        if (options.deletedFilesEvery().isZero()) {
            scanDeleted(files);
        } else if (deletedThread == null) {
            long every = Math.max(1, options.deletedFilesEvery().toMillis());
            deletedThread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    scanDeleted(files);
                    try {
                        Thread.sleep(every);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "procscope-metrics-deleted-files");
            deletedThread.setDaemon(true);
            deletedThread.start();
        }
        DeletedFilesScan scan = deletedScan;
        if (scan != null) {
            deleted(s, scan);
        }
    }

    private void scanDeleted(io.github.procscope.api.files.OpenFiles files) {
        try {
            deletedScan = files.deletedFiles();
        } catch (ProcscopeException e) {
            error("open_files");
        }
    }

    private static void deleted(Scrape s, DeletedFilesScan scan) {
        for (DeletedSpace fs : scan.fileSystems()) {
            Labels l = Labels.of("device", fs.device().toString(), "mountpoint", fs.mountPoint().orElse(""),
                    "fstype", fs.fsType().orElse(""));
            s.gauge("procscope_deleted_open_bytes",
                    "Disk space held by deleted files that processes still hold open, in bytes, per file system.",
                    l, fs.allocatedBytes());
            s.gauge("procscope_deleted_open_files", "Deleted files that processes still hold open, per file system.",
                    l, fs.files());
        }
    }

    // ---------------------------------------------------------------- doctor

    private void doctor(Scrape s, io.github.procscope.api.diagnose.Doctor d) {
        if (options.doctorEvery().isZero()) {
            examine(d);
        } else if (doctorThread == null) {
            startDoctor(d);
        }
        Diagnosis diagnosis = this.diagnosis;
        if (diagnosis == null) {
            return;
        }
        Map<FindingKind, EnumMap<Severity, Integer>> counts = new EnumMap<>(FindingKind.class);
        for (FindingKind k : FindingKind.values()) {
            EnumMap<Severity, Integer> m = new EnumMap<>(Severity.class);
            for (Severity v : Severity.values()) {
                m.put(v, 0);
            }
            counts.put(k, m);
        }
        for (Finding f : diagnosis.findings()) {
            counts.get(f.kind()).merge(f.severity(), 1, Integer::sum);
        }
        counts.forEach((k, m) -> m.forEach((v, n) -> s.gauge("procscope_doctor_findings",
                "Findings of the last examination by procscope's doctor, by kind and severity.",
                Labels.of("kind", k.name().toLowerCase(java.util.Locale.ROOT),
                        "severity", v.name().toLowerCase(java.util.Locale.ROOT)), n)));
        s.gauge("procscope_doctor_last_examination_timestamp_seconds",
                "When the doctor last examined the machine, in seconds since the epoch.", Labels.EMPTY,
                diagnosis.takenAt().toEpochMilli() / 1000.0);
        Map<String, Long> oom;
        synchronized (oomKillsByCgroup) {
            oom = new TreeMap<>(oomKillsByCgroup);
        }
        oom.forEach((cg, n) -> s.counter("procscope_oom_kills",
                "OOM kills per memory cgroup (the cgroup's own oom_kill counter, or the kernel log's kills).",
                Labels.of("cgroup", cg), n));
    }

    /**
     * OOM kills per cgroup from the doctor's OOM findings: a cgroup's own counter where the finding carries it,
     * else the kills the kernel log holds for it. The count kept never goes down.
     */
    private void examine(io.github.procscope.api.diagnose.Doctor d) {
        try {
            Diagnosis dx = d.examine(options.doctorOptions());
            synchronized (oomKillsByCgroup) {
                countOomKills(dx);
            }
            diagnosis = dx;
        } catch (ProcscopeException e) {
            error("doctor");
        }
    }

    /** The doctor examines the machine on its own thread, so that a scrape never waits for its sample window. */
    private void startDoctor(io.github.procscope.api.diagnose.Doctor d) {
        long every = Math.max(1, options.doctorEvery().toMillis());
        doctorThread = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                examine(d);
                try {
                    Thread.sleep(every);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "procscope-metrics-doctor");
        doctorThread.setDaemon(true);
        doctorThread.start();
    }

    private void countOomKills(Diagnosis dx) {
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
        counted.forEach((cg, n) -> oomKillsByCgroup.merge(cg, n, Math::max));
    }

    /** @return how long the last scrape took to read the machine */
    public synchronized Duration lastScrapeDuration() {
        return Duration.ofNanos((long) (lastDurationSeconds * NANOS));
    }

    /** Stops the doctor's and the deleted-files scan's threads and closes the GPUs, if they were opened. */
    @Override
    public void close() {
        synchronized (this) {
            if (doctorThread != null) {
                doctorThread.interrupt();
            }
            if (deletedThread != null) {
                deletedThread.interrupt();
            }
        }
        gpus.ifPresent(Gpus::close);
    }
}
