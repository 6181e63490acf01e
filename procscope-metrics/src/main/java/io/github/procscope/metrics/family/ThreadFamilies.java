package io.github.procscope.metrics.family;

import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * process-exporter's per-thread families ({@code -threads}): each group's threads summed by thread name
 * ({@code namedprocess_namegroup_thread_count}, {@code _thread_cpu_seconds_total{mode}},
 * {@code _thread_io_bytes_total{iomode}}, {@code _thread_major_page_faults_total},
 * {@code _thread_minor_page_faults_total}, {@code _thread_context_switches_total{ctxswitchtype}}) and the threads
 * of each group by the kernel function they sleep in ({@code namedprocess_namegroup_threads_wchan}).
 *
 * <p>The counters are kept as the groups' are: each thread adds what it used since the last scrape that counted
 * it under the same group and name (all it used, the first time), so a name's counters never go down while threads
 * of that name come and go. A name no thread of the group has in a scrape is forgotten; seen again, its counters
 * start from what its threads have used (a counter reset to Prometheus). Not thread-safe: scrapes are serialized.
 */
public final class ThreadFamilies {
    /** {@code namedprocess_namegroup_thread_count{threadname}}. */
    public static final MetricFamily THREAD_COUNT = MetricFamily.gauge("namedprocess_namegroup_thread_count",
            "Number of threads in this group with this thread name.");
    /** {@code namedprocess_namegroup_thread_cpu_seconds_total{mode,threadname}}. */
    public static final MetricFamily THREAD_CPU_SECONDS = MetricFamily.counter(
            "namedprocess_namegroup_thread_cpu_seconds",
            "CPU seconds used by this group's threads of this name, by mode.", "seconds");
    /** {@code namedprocess_namegroup_thread_io_bytes_total{iomode,threadname}}. */
    public static final MetricFamily THREAD_IO_BYTES = MetricFamily.counter("namedprocess_namegroup_thread_io_bytes",
            "Bytes this group's threads of this name caused to be read from or written to storage.", "bytes");
    /** {@code namedprocess_namegroup_thread_major_page_faults_total{threadname}}. */
    public static final MetricFamily THREAD_MAJOR_PAGE_FAULTS = MetricFamily.counter(
            "namedprocess_namegroup_thread_major_page_faults",
            "Major page faults of this group's threads of this name.");
    /** {@code namedprocess_namegroup_thread_minor_page_faults_total{threadname}}. */
    public static final MetricFamily THREAD_MINOR_PAGE_FAULTS = MetricFamily.counter(
            "namedprocess_namegroup_thread_minor_page_faults",
            "Minor page faults of this group's threads of this name.");
    /** {@code namedprocess_namegroup_thread_context_switches_total{ctxswitchtype,threadname}}. */
    public static final MetricFamily THREAD_CONTEXT_SWITCHES = MetricFamily.counter(
            "namedprocess_namegroup_thread_context_switches",
            "Context switches of this group's threads of this name, by type.");
    /** {@code namedprocess_namegroup_threads_wchan{wchan}}. */
    public static final MetricFamily THREADS_WCHAN = MetricFamily.gauge("namedprocess_namegroup_threads_wchan",
            "Number of threads in this group sleeping in each kernel function (wchan).");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(THREAD_COUNT, THREAD_CPU_SECONDS, THREAD_IO_BYTES,
            THREAD_MAJOR_PAGE_FAULTS, THREAD_MINOR_PAGE_FAULTS, THREAD_CONTEXT_SWITCHES, THREADS_WCHAN);

    private static final double NANOS = 1_000_000_000.0;

    /** Thread counters: user, system ns, major, minor faults, read, write bytes, voluntary, nonvoluntary switches. */
    private final ProcessCounters counters = new ProcessCounters();
    /** Per group, per thread name: the totals kept across scrapes. */
    private final Map<String, Map<String, Totals>> byGroup = new HashMap<>();
    private int nextId = 1;
    /** This scrape: per group, per thread name, the threads; per group, per wchan, the threads. */
    private final Map<String, Map<String, int[]>> countNow = new TreeMap<>();
    private final Map<String, Map<String, int[]>> wchanNow = new TreeMap<>();
    private final long[] values = new long[ProcessCounters.WIDTH];
    private final long[] deltas = new long[ProcessCounters.WIDTH];

    /** Starts a scrape. */
    public void begin() {
        countNow.clear();
        wchanNow.clear();
    }

    /**
     * Adds the threads of one process of a group.
     *
     * @param group   the group's name
     * @param threads the process's threads, read with their status, I/O counters and wait channel
     */
    public void add(String group, Iterable<ThreadInfo> threads) {
        Map<String, Totals> names = byGroup.computeIfAbsent(group, g -> new HashMap<>());
        Map<String, int[]> counts = countNow.computeIfAbsent(group, g -> new TreeMap<>());
        Map<String, int[]> wchans = wchanNow.computeIfAbsent(group, g -> new TreeMap<>());
        for (ThreadInfo t : threads) {
            String name = t.name();
            Totals totals = names.computeIfAbsent(name, n -> new Totals(nextId++));
            counts.computeIfAbsent(name, n -> new int[1])[0]++;
            t.wchan().ifPresent(w -> wchans.computeIfAbsent(w, n -> new int[1])[0]++);
            values[0] = t.stat().userTime().toNanos();
            values[1] = t.stat().systemTime().toNanos();
            values[2] = t.stat().majorFaults();
            values[3] = t.stat().minorFaults();
            values[4] = t.io().isPresent() ? t.io().get().storageReadBytes() : 0;
            values[5] = t.io().isPresent() ? t.io().get().storageWriteBytes() : 0;
            ProcessStatus st = t.status().orElse(null);
            values[6] = st == null ? 0 : st.voluntaryContextSwitches().orElse(0);
            values[7] = st == null ? 0 : st.nonvoluntaryContextSwitches().orElse(0);
            counters.advance(t.tid(), t.stat().startTimeTicks(), totals.id, values, deltas);
            totals.add(deltas);
        }
    }

    /**
     * Ends a scrape: writes the families for the groups reported, forgets the names no thread had and the groups
     * no longer reported.
     *
     * @param s        the scrape
     * @param reported the groups this scrape reports
     */
    public void end(Scrape s, Set<String> reported) {
        counters.swap();
        byGroup.keySet().retainAll(reported);
        for (Map.Entry<String, Map<String, Totals>> g : byGroup.entrySet()) {
            Map<String, int[]> counts = countNow.getOrDefault(g.getKey(), Map.of());
            g.getValue().keySet().retainAll(counts.keySet());
        }
        for (Map.Entry<String, Map<String, int[]>> g : countNow.entrySet()) {
            String group = g.getKey();
            if (!reported.contains(group)) {
                continue;
            }
            Map<String, Totals> names = byGroup.get(group);
            for (Map.Entry<String, int[]> n : g.getValue().entrySet()) {
                String name = n.getKey();
                Totals t = names.get(name);
                Labels l = Labels.of("groupname", group, "threadname", name);
                s.add(THREAD_COUNT, l, n.getValue()[0]);
                s.add(THREAD_CPU_SECONDS, labels(group, "mode", "user", name), t.userNanos / NANOS);
                s.add(THREAD_CPU_SECONDS, labels(group, "mode", "system", name), t.systemNanos / NANOS);
                s.add(THREAD_IO_BYTES, labels(group, "iomode", "read", name), t.readBytes);
                s.add(THREAD_IO_BYTES, labels(group, "iomode", "write", name), t.writeBytes);
                s.add(THREAD_MAJOR_PAGE_FAULTS, l, t.majorFaults);
                s.add(THREAD_MINOR_PAGE_FAULTS, l, t.minorFaults);
                s.add(THREAD_CONTEXT_SWITCHES, labels(group, "ctxswitchtype", "nonvoluntary", name), t.nonvoluntarySwitches);
                s.add(THREAD_CONTEXT_SWITCHES, labels(group, "ctxswitchtype", "voluntary", name), t.voluntarySwitches);
            }
        }
        for (Map.Entry<String, Map<String, int[]>> g : wchanNow.entrySet()) {
            if (!reported.contains(g.getKey())) {
                continue;
            }
            for (Map.Entry<String, int[]> w : g.getValue().entrySet()) {
                s.add(THREADS_WCHAN, Labels.of("groupname", g.getKey(), "wchan", w.getKey()), w.getValue()[0]);
            }
        }
        for (Iterator<Map<String, Totals>> it = byGroup.values().iterator(); it.hasNext(); ) {
            if (it.next().isEmpty()) {
                it.remove();
            }
        }
    }

    private static Labels labels(String group, String key, String value, String threadName) {
        return Labels.of("groupname", group, key, value, "threadname", threadName);
    }

    /** One group's counters for one thread name. */
    private static final class Totals extends CounterTotals {
        Totals(int id) {
            super(id);
        }
    }
}
