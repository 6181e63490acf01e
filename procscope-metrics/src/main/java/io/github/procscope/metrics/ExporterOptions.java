package io.github.procscope.metrics;

import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.gpu.IdleHoldingRule;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link ProcscopeCollector} exports and how much of it.
 *
 * @param grouper      puts processes into the {@code namedprocess_namegroup_*} groups
 * @param perPid       whether GPU memory is also reported per process ({@code pid} and {@code comm} labels): one
 *                     series per process using a GPU, so off by default
 * @param seriesCap    the most series one scrape returns; series past it are dropped and counted in
 *                     {@code procscope_series_dropped_total}
 * @param hostname     the {@code Hostname} label of the GPU metrics, as dcgm-exporter sets it
 * @param idleRule     when a GPU counts as idle while holding memory, judged over the last scrapes
 * @param doctorEvery  how often the doctor examines the machine, on a thread of its own that the first scrape
 *                     starts (scrapes report the last examination's findings); {@link Duration#ZERO} examines
 *                     within every scrape instead (an examination reads every process twice, a sample window
 *                     apart)
 * @param doctorOptions the doctor's thresholds; its sample window is the pause between its two readings
 * @param deletedFilesEvery how often deleted-but-open files are looked for (every descriptor of every process is
 *                     examined), on a thread of its own that the first scrape starts (scrapes report the last
 *                     scan, so the first scrapes may have none yet); {@link Duration#ZERO} scans within every
 *                     scrape instead. The scan costs more than the rest of a scrape together on a busy machine
 * @param groupRetention how long a group whose processes are all gone is still reported (at 0 processes, its
 *                     counters kept) before it is forgotten: from the first scrape that finds it empty, so a
 *                     retention above 0 reports it empty at least once; {@link Duration#ZERO} forgets it at that
 *                     scrape. The groups a grouper declares ({@link ProcessGrouper#declaredGroups()}, the
 *                     {@code NAME=REGEX} rules) are never forgotten. A forgotten group that comes back is a new
 *                     group: its counters start again from what its processes have used, which Prometheus reads
 *                     as a counter reset
 * @param threads      whether each group's threads are reported by thread name, as process-exporter's
 *                     {@code -threads} does ({@code namedprocess_namegroup_thread_*} and
 *                     {@code namedprocess_namegroup_threads_wchan}): four more files read per thread of every
 *                     grouped process, so off by default (process-exporter has it on)
 * @param gatherSmaps  whether each grouped process's {@code /proc/PID/smaps_rollup} is read for the memory types
 *                     {@code proportionalResident} and {@code proportionalSwapped}, as process-exporter's
 *                     {@code -gather-smaps} does: one more file per grouped process, whose reading costs the kernel
 *                     a walk of the process's mappings, so off by default (process-exporter has it on)
 */
public record ExporterOptions(ProcessGrouper grouper, boolean perPid, int seriesCap, String hostname,
                              IdleHoldingRule idleRule, Duration doctorEvery, DoctorOptions doctorOptions,
                              Duration deletedFilesEvery, Duration groupRetention, boolean threads,
                              boolean gatherSmaps) {

    /** The default series cap: ample for a node with thousands of processes grouped by command. */
    public static final int DEFAULT_SERIES_CAP = 10_000;

    /**
     * The default group retention: five minutes, twenty scrapes at a 15 s interval and five at Prometheus's
     * default of one minute.
     */
    public static final Duration DEFAULT_GROUP_RETENTION = Duration.ofMinutes(5);

    /** @throws IllegalArgumentException if the cap is below 1, or an interval or the retention negative */
    public ExporterOptions {
        Objects.requireNonNull(grouper, "grouper");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(idleRule, "idleRule");
        Objects.requireNonNull(doctorEvery, "doctorEvery");
        Objects.requireNonNull(doctorOptions, "doctorOptions");
        Objects.requireNonNull(deletedFilesEvery, "deletedFilesEvery");
        Objects.requireNonNull(groupRetention, "groupRetention");
        if (seriesCap < 1) {
            throw new IllegalArgumentException("the series cap must be at least 1: " + seriesCap);
        }
        if (doctorEvery.isNegative()) {
            throw new IllegalArgumentException("the doctor interval must not be negative: " + doctorEvery);
        }
        if (deletedFilesEvery.isNegative()) {
            throw new IllegalArgumentException("the deleted-files interval must not be negative: "
                    + deletedFilesEvery);
        }
        if (groupRetention.isNegative()) {
            throw new IllegalArgumentException("the group retention must not be negative: " + groupRetention);
        }
    }

    /**
     * Options without the per-thread families and without {@code smaps_rollup}.
     *
     * @param grouper           see the record's components
     * @param perPid            see the record's components
     * @param seriesCap         see the record's components
     * @param hostname          see the record's components
     * @param idleRule          see the record's components
     * @param doctorEvery       see the record's components
     * @param doctorOptions     see the record's components
     * @param deletedFilesEvery see the record's components
     * @param groupRetention    see the record's components
     */
    public ExporterOptions(ProcessGrouper grouper, boolean perPid, int seriesCap, String hostname,
                           IdleHoldingRule idleRule, Duration doctorEvery, DoctorOptions doctorOptions,
                           Duration deletedFilesEvery, Duration groupRetention) {
        this(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions, deletedFilesEvery,
                groupRetention, false, false);
    }

    /**
     * Options with the default group retention ({@link #DEFAULT_GROUP_RETENTION}).
     *
     * @param grouper           see the record's components
     * @param perPid            see the record's components
     * @param seriesCap         see the record's components
     * @param hostname          see the record's components
     * @param idleRule          see the record's components
     * @param doctorEvery       see the record's components
     * @param doctorOptions     see the record's components
     * @param deletedFilesEvery see the record's components
     */
    public ExporterOptions(ProcessGrouper grouper, boolean perPid, int seriesCap, String hostname,
                           IdleHoldingRule idleRule, Duration doctorEvery, DoctorOptions doctorOptions,
                           Duration deletedFilesEvery) {
        this(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions, deletedFilesEvery,
                DEFAULT_GROUP_RETENTION);
    }

    /**
     * Options with deleted-but-open files looked for within every scrape (see {@link #withDeletedFilesEvery}).
     *
     * @param grouper       see the record's components
     * @param perPid        see the record's components
     * @param seriesCap     see the record's components
     * @param hostname      see the record's components
     * @param idleRule      see the record's components
     * @param doctorEvery   see the record's components
     * @param doctorOptions see the record's components
     */
    public ExporterOptions(ProcessGrouper grouper, boolean perPid, int seriesCap, String hostname,
                           IdleHoldingRule idleRule, Duration doctorEvery, DoctorOptions doctorOptions) {
        this(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions, Duration.ZERO);
    }

    /**
     * @return grouping by command name, no per-pid series, a cap of {@value #DEFAULT_SERIES_CAP} series, this
     *         machine's host name, the default idle rule, the doctor at most once a minute with a sample
     *         window of one second, deleted-but-open files looked for within every scrape, and empty groups
     *         kept for {@link #DEFAULT_GROUP_RETENTION}
     */
    public static ExporterOptions defaults() {
        return new ExporterOptions(ProcessGrouper.byCommand(), false, DEFAULT_SERIES_CAP, localHostname(),
                IdleHoldingRule.DEFAULT, Duration.ofMinutes(1), DoctorOptions.defaults().withSampleWindow(Duration.ofSeconds(1)));
    }

    /**
     * @param g the grouper
     * @return these options with it
     */
    public ExporterOptions withGrouper(ProcessGrouper g) {
        return new ExporterOptions(g, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param on whether to report GPU memory per process
     * @return these options with it
     */
    public ExporterOptions withPerPid(boolean on) {
        return new ExporterOptions(grouper, on, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param cap the most series per scrape
     * @return these options with it
     */
    public ExporterOptions withSeriesCap(int cap) {
        return new ExporterOptions(grouper, perPid, cap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param name the {@code Hostname} label
     * @return these options with it
     */
    public ExporterOptions withHostname(String name) {
        return new ExporterOptions(grouper, perPid, seriesCap, name, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param rule the idle-holding rule
     * @return these options with it
     */
    public ExporterOptions withIdleRule(IdleHoldingRule rule) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, rule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param every   how old findings may get before the next examination
     * @param options the doctor's thresholds and sample window
     * @return these options with them
     */
    public ExporterOptions withDoctor(Duration every, DoctorOptions options) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, every, options,
                deletedFilesEvery, groupRetention, threads, gatherSmaps);
    }

    /**
     * @param every how old the deleted-but-open files reported may get: a thread of its own scans that often;
     *              {@link Duration#ZERO} scans within every scrape
     * @return these options with it
     * @throws IllegalArgumentException if it is negative
     */
    public ExporterOptions withDeletedFilesEvery(Duration every) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions, every,
                groupRetention, threads, gatherSmaps);
    }

    /**
     * @param retention how long a group with no process left is still reported before it is forgotten
     * @return these options with it
     * @throws IllegalArgumentException if it is negative
     */
    public ExporterOptions withGroupRetention(Duration retention) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, retention, threads, gatherSmaps);
    }

    /**
     * @param on whether each group's threads are reported by thread name (process-exporter's {@code -threads})
     * @return these options with it
     */
    public ExporterOptions withThreads(boolean on) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, on, gatherSmaps);
    }

    /**
     * @param on whether grouped processes' {@code smaps_rollup} is read for proportional memory
     *           (process-exporter's {@code -gather-smaps})
     * @return these options with it
     */
    public ExporterOptions withGatherSmaps(boolean on) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery, groupRetention, threads, on);
    }

    /**
     * @return this machine's host name as the kernel holds it for this process (its UTS namespace: a pod's name in a
     *         pod without the host's network, as dcgm-exporter's {@code os.Hostname()} gives), or {@code localhost}
     *         when it cannot be read. No name lookup: {@code InetAddress.getLocalHost()} asks the resolver, which
     *         stalls the exporter's start on a node whose DNS does not answer and yields {@code localhost} on one
     *         whose name does not resolve.
     */
    static String localHostname() {
        return hostnameFrom(Path.of("/proc/sys/kernel/hostname"));
    }

    /**
     * @param file the kernel's {@code hostname} file
     * @return its first line, or {@code localhost} when it cannot be read or is empty
     */
    static String hostnameFrom(Path file) {
        // At most 256 bytes: the kernel's limit is 64.
        try (InputStream in = Files.newInputStream(file)) {
            String text = new String(in.readNBytes(256), StandardCharsets.UTF_8);
            int end = text.indexOf('\n');
            String name = (end < 0 ? text : text.substring(0, end)).strip();
            return name.isEmpty() ? "localhost" : name;
        } catch (IOException | SecurityException e) {
            return "localhost";
        }
    }
}
