package io.github.procscope.metrics.family;

import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * process-exporter's {@code namedprocess_namegroup_*} families: one group of series per process group, all read
 * from one process snapshot. The counters are kept across scrapes as process-exporter keeps them: each process
 * adds what it used since the last scrape ({@link ProcessCounters}), and what exited processes used stays counted.
 * A group with no process left is reported at 0 until the retention has passed, then forgotten; at most as many
 * groups as the series cap are remembered, the oldest forgotten first. Not thread-safe: scrapes are serialized.
 */
public final class ProcessGroups {
    /** {@code namedprocess_namegroup_num_procs}. */
    public static final MetricFamily NUM_PROCS = MetricFamily.gauge("namedprocess_namegroup_num_procs",
            "Number of processes in this group.");
    /** {@code namedprocess_namegroup_cpu_seconds_total{mode}}. */
    public static final MetricFamily CPU_SECONDS = MetricFamily.counter("namedprocess_namegroup_cpu_seconds",
            "CPU seconds used by this group's processes, by mode.", "seconds");
    /** {@code namedprocess_namegroup_memory_bytes{memtype}}. */
    public static final MetricFamily MEMORY_BYTES = MetricFamily.gauge("namedprocess_namegroup_memory_bytes",
            "Memory of this group's processes, in bytes, by type.", "bytes");
    /** {@code namedprocess_namegroup_num_threads}. */
    public static final MetricFamily NUM_THREADS = MetricFamily.gauge("namedprocess_namegroup_num_threads",
            "Number of threads of this group's processes.");
    /** {@code namedprocess_namegroup_states{state}}. */
    public static final MetricFamily STATES = MetricFamily.gauge("namedprocess_namegroup_states",
            "Number of this group's processes in each state.");
    /** {@code namedprocess_namegroup_oldest_start_time_seconds}. */
    public static final MetricFamily OLDEST_START_TIME = MetricFamily.gauge(
            "namedprocess_namegroup_oldest_start_time_seconds",
            "When the group's oldest process started, in seconds since the epoch; 0 with no process.", "seconds");
    /** {@code namedprocess_namegroup_major_page_faults_total}. */
    public static final MetricFamily MAJOR_PAGE_FAULTS = MetricFamily.counter(
            "namedprocess_namegroup_major_page_faults", "Major page faults of this group's processes.");
    /** {@code namedprocess_namegroup_open_filedesc}. */
    public static final MetricFamily OPEN_FILEDESC = MetricFamily.gauge("namedprocess_namegroup_open_filedesc",
            "Open file descriptors of this group's processes (those this user may list).");
    /** {@code namedprocess_namegroup_read_bytes_total}. */
    public static final MetricFamily READ_BYTES = MetricFamily.counter("namedprocess_namegroup_read_bytes",
            "Bytes this group's processes caused to be read from storage (read_bytes of /proc/PID/io).", "bytes");
    /** {@code namedprocess_namegroup_write_bytes_total}. */
    public static final MetricFamily WRITE_BYTES = MetricFamily.counter("namedprocess_namegroup_write_bytes",
            "Bytes this group's processes caused to be written to storage (write_bytes of /proc/PID/io).",
            "bytes");
    /** {@code namedprocess_namegroup_minor_page_faults_total}. */
    public static final MetricFamily MINOR_PAGE_FAULTS = MetricFamily.counter(
            "namedprocess_namegroup_minor_page_faults", "Minor page faults of this group's processes.");

    /** {@code namedprocess_namegroup_context_switches_total{ctxswitchtype}}. */
    public static final MetricFamily CONTEXT_SWITCHES = MetricFamily.counter(
            "namedprocess_namegroup_context_switches",
            "Context switches of this group's processes (each process's threads summed), by type.");
    /** {@code namedprocess_namegroup_worst_fd_ratio}. */
    public static final MetricFamily WORST_FD_RATIO = MetricFamily.gauge("namedprocess_namegroup_worst_fd_ratio",
            "The worst (closest to 1) ratio of open descriptors to the soft limit on them among the group's"
                    + " processes.");
    /** {@code namedprocess_scrape_errors}, process-exporter's name: scrapes without a process table. */
    public static final MetricFamily SCRAPE_ERRORS = MetricFamily.unsuffixedCounter("namedprocess_scrape_errors",
            "Scrapes that collected no process metrics (the process table could not be read).");
    /** {@code namedprocess_scrape_partial_errors}, process-exporter's name. */
    public static final MetricFamily SCRAPE_PARTIAL_ERRORS = MetricFamily.unsuffixedCounter(
            "namedprocess_scrape_partial_errors", "Grouped processes read in part (a file withheld: I/O counters,"
                    + " descriptors, status, limits, threads or smaps_rollup), counted per process and scrape.");
    /** {@code namedprocess_scrape_procread_errors}, process-exporter's name. */
    public static final MetricFamily SCRAPE_PROCREAD_ERRORS = MetricFamily.unsuffixedCounter(
            "namedprocess_scrape_procread_errors",
            "Processes left out of a scrape because their kernel files could not be read.");

    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(NUM_PROCS, CPU_SECONDS, MEMORY_BYTES, NUM_THREADS,
            STATES, OLDEST_START_TIME, MAJOR_PAGE_FAULTS, OPEN_FILEDESC, READ_BYTES, WRITE_BYTES, MINOR_PAGE_FAULTS,
            CONTEXT_SWITCHES, WORST_FD_RATIO, SCRAPE_ERRORS, SCRAPE_PARTIAL_ERRORS, SCRAPE_PROCREAD_ERRORS);

    private static final long NANOS = 1_000_000_000L;
    private static final String[] STATE_NAMES = {"Running", "Sleeping", "Waiting", "Zombie", "Other"};

    private final Map<String, GroupTotals> groups = new LinkedHashMap<>();
    private final ProcessCounters counters = new ProcessCounters();
    private final ThreadFamilies threadFamilies = new ThreadFamilies();
    private long scrapeErrors;
    private long partialErrors;
    private long procreadErrors;
    private final int seriesCap;
    private final long retentionNanos;
    private final LongSupplier nanoClock;
    private int nextGroupId;

    /**
     * @param seriesCap the most groups remembered
     * @param retention how long a group with no process left is still reported
     * @param nanoClock the clock of the retention, in nanoseconds
     */
    public ProcessGroups(int seriesCap, Duration retention, LongSupplier nanoClock) {
        this.seriesCap = seriesCap;
        this.retentionNanos = nanosOf(Objects.requireNonNull(retention, "retention"));
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** @return the duration in nanoseconds, {@link Long#MAX_VALUE} for one too long for that (292 years) */
    static long nanosOf(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Adds the groups' series of one snapshot.
     *
     * @param s         the scrape
     * @param processes the snapshot's processes
     * @param declared  the groups reported even with no process
     * @param groupOf   the group of a process, empty for none
     */
    public void collect(Scrape s, Collection<ProcessInfo> processes, Collection<String> declared,
                        Function<ProcessInfo, Optional<String>> groupOf) {
        collect(s, processes, declared, groupOf, Optional.empty());
    }

    /**
     * Adds the groups' series of one snapshot, with what the reader reads of each grouped process beyond the
     * snapshot: context switches summed over threads, swapped memory, the descriptor ratio, and where the reader
     * reads them, proportional memory and the per-thread families ({@link ThreadFamilies}).
     *
     * @param s         the scrape
     * @param processes the snapshot's processes
     * @param declared  the groups reported even with no process
     * @param groupOf   the group of a process, empty for none
     * @param reader    reads each grouped process's extra files; empty for none (and none of their families)
     */
    public void collect(Scrape s, Collection<ProcessInfo> processes, Collection<String> declared,
                        Function<ProcessInfo, Optional<String>> groupOf, Optional<ProcessReading.Reader> reader) {
        threadFamilies.begin();
        Map<String, GroupNow> now = new LinkedHashMap<>();
        for (String d : declared) {
            now.put(d, new GroupNow(groups.computeIfAbsent(d, k -> new GroupTotals(nextGroupId++))));
        }
        long[] values = new long[ProcessCounters.WIDTH];
        long[] deltas = new long[ProcessCounters.WIDTH];
        for (ProcessInfo p : processes) {
            Optional<String> g = groupOf.apply(p);
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
                if (reader.isPresent()) {
                    ProcessReading r = reader.get().read(p);
                    values[6] = r.voluntary;
                    values[7] = r.nonvoluntary;
                    group.add(r);
                    partialErrors += r.partial ? 1 : 0;
                    if (reader.get().threads()) {
                        threadFamilies.add(g.get(), r.threads);
                    }
                }
                counters.advance(p.pid(), p.stat().startTimeTicks(), group.totals.id, values, deltas);
                group.totals.add(deltas);
            }
        }
        counters.swap();
        // Groups with no process left: reported at 0 from the first scrape that finds them empty until the
        // retention has passed, then forgotten (declared groups are in `now` already and stay).
        long clock = nanoClock.getAsLong();
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
            if (clock - t.emptySinceNanos >= retentionNanos) {
                it.remove();
            } else {
                now.put(seen.getKey(), new GroupNow(t));
            }
        }
        // Remember at most as many groups as the cap allows series: the oldest are forgotten first.
        while (groups.size() > seriesCap) {
            String oldest = groups.keySet().iterator().next();
            groups.remove(oldest);
            now.remove(oldest);
        }
        for (Map.Entry<String, GroupNow> e : now.entrySet()) {
            String name = e.getKey();
            GroupNow g = e.getValue();
            GroupTotals t = groups.get(name);
            Labels l = Labels.of("groupname", name);
            s.add(NUM_PROCS, l, g.procs);
            s.add(CPU_SECONDS, Labels.of("groupname", name, "mode", "user"), t.userNanos / (double) NANOS);
            s.add(CPU_SECONDS, Labels.of("groupname", name, "mode", "system"), t.systemNanos / (double) NANOS);
            s.add(MEMORY_BYTES, Labels.of("groupname", name, "memtype", "resident"), g.residentBytes);
            s.add(MEMORY_BYTES, Labels.of("groupname", name, "memtype", "virtual"), g.virtualBytes);
            s.add(NUM_THREADS, l, g.threads);
            for (int i = 0; i < STATE_NAMES.length; i++) {
                s.add(STATES, Labels.of("groupname", name, "state", STATE_NAMES[i]), g.states[i]);
            }
            s.add(OLDEST_START_TIME, l, g.oldestStartMillis == Long.MAX_VALUE ? 0 : g.oldestStartMillis / 1000.0);
            s.add(MAJOR_PAGE_FAULTS, l, t.majorFaults);
            s.add(OPEN_FILEDESC, l, g.openFds);
            s.add(READ_BYTES, l, t.readBytes);
            s.add(WRITE_BYTES, l, t.writeBytes);
            s.add(MINOR_PAGE_FAULTS, l, t.minorFaults);
            if (reader.isPresent()) {
                s.add(MEMORY_BYTES, Labels.of("groupname", name, "memtype", "swapped"), g.swapBytes);
                if (reader.get().smaps()) {
                    s.add(MEMORY_BYTES, Labels.of("groupname", name, "memtype", "proportionalResident"), g.pssBytes);
                    s.add(MEMORY_BYTES, Labels.of("groupname", name, "memtype", "proportionalSwapped"),
                            g.swapPssBytes);
                }
                s.add(CONTEXT_SWITCHES, Labels.of("ctxswitchtype", "nonvoluntary", "groupname", name),
                        t.nonvoluntarySwitches);
                s.add(CONTEXT_SWITCHES, Labels.of("ctxswitchtype", "voluntary", "groupname", name),
                        t.voluntarySwitches);
                s.add(WORST_FD_RATIO, l, g.worstFdRatio);
            }
        }
        if (reader.isPresent() && reader.get().threads()) {
            threadFamilies.end(s, now.keySet());
        }
    }

    /** Counts a scrape whose process table could not be read (process-exporter's {@code scrape_errors}). */
    public void scrapeFailed() {
        scrapeErrors++;
    }

    /**
     * Counts processes a snapshot left out as unreadable (process-exporter's {@code scrape_procread_errors}).
     *
     * @param n how many
     */
    public void unreadable(int n) {
        procreadErrors += n;
    }

    /**
     * Adds process-exporter's three scrape-error counters, past the cap (the exporter's own series).
     *
     * @param s the scrape
     */
    public void collectErrors(Scrape s) {
        s.addOwn(SCRAPE_ERRORS, Labels.EMPTY, scrapeErrors);
        s.addOwn(SCRAPE_PARTIAL_ERRORS, Labels.EMPTY, partialErrors);
        s.addOwn(SCRAPE_PROCREAD_ERRORS, Labels.EMPTY, procreadErrors);
    }

    /** What a group holds in this snapshot. */
    private static final class GroupNow {
        final GroupTotals totals;
        int procs;
        long residentBytes;
        long virtualBytes;
        long threads;
        long openFds;
        long swapBytes;
        long pssBytes;
        long swapPssBytes;
        double worstFdRatio;
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

        void add(ProcessReading r) {
            swapBytes += r.swapBytes;
            pssBytes += r.pssBytes;
            swapPssBytes += r.swapPssBytes;
            worstFdRatio = Math.max(worstFdRatio, r.fdRatio);
        }
    }

    /**
     * A group's counters kept across scrapes, as process-exporter keeps them: each process adds what it used since
     * the last scrape (a new one adds all it used; {@link ProcessCounters}), and what exited processes used stays
     * counted, so the counters never go down. A group forgotten (empty past the retention, or the oldest under the
     * series cap) and seen again is a new group (a new id): its processes count from the start again, and its series
     * restart from that, which Prometheus takes for a counter reset after the series went stale.
     */
    private static final class GroupTotals extends CounterTotals {
        /** Whether the last scrape found no process in the group, and since when (the first scrape that did). */
        boolean empty;
        long emptySinceNanos;

        GroupTotals(int id) {
            super(id);
        }
    }
}
