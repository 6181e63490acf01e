package io.github.procscope.metrics;

import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.gpu.monitor.IdleHoldingRule;

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
 */
public record ExporterOptions(ProcessGrouper grouper, boolean perPid, int seriesCap, String hostname,
                              IdleHoldingRule idleRule, Duration doctorEvery, DoctorOptions doctorOptions,
                              Duration deletedFilesEvery) {

    /** The default series cap: ample for a node with thousands of processes grouped by command. */
    public static final int DEFAULT_SERIES_CAP = 10_000;

    /** @throws IllegalArgumentException if the cap is below 1 or the doctor interval negative */
    public ExporterOptions {
        Objects.requireNonNull(grouper, "grouper");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(idleRule, "idleRule");
        Objects.requireNonNull(doctorEvery, "doctorEvery");
        Objects.requireNonNull(doctorOptions, "doctorOptions");
        Objects.requireNonNull(deletedFilesEvery, "deletedFilesEvery");
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
     *         window of one second, and deleted-but-open files looked for within every scrape
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
                deletedFilesEvery);
    }

    /**
     * @param on whether to report GPU memory per process
     * @return these options with it
     */
    public ExporterOptions withPerPid(boolean on) {
        return new ExporterOptions(grouper, on, seriesCap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery);
    }

    /**
     * @param cap the most series per scrape
     * @return these options with it
     */
    public ExporterOptions withSeriesCap(int cap) {
        return new ExporterOptions(grouper, perPid, cap, hostname, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery);
    }

    /**
     * @param name the {@code Hostname} label
     * @return these options with it
     */
    public ExporterOptions withHostname(String name) {
        return new ExporterOptions(grouper, perPid, seriesCap, name, idleRule, doctorEvery, doctorOptions,
                deletedFilesEvery);
    }

    /**
     * @param rule the idle-holding rule
     * @return these options with it
     */
    public ExporterOptions withIdleRule(IdleHoldingRule rule) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, rule, doctorEvery, doctorOptions,
                deletedFilesEvery);
    }

    /**
     * @param every   how old findings may get before the next examination
     * @param options the doctor's thresholds and sample window
     * @return these options with them
     */
    public ExporterOptions withDoctor(Duration every, DoctorOptions options) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, every, options,
                deletedFilesEvery);
    }

    /**
     * @param every how old the deleted-but-open files reported may get: a thread of its own scans that often;
     *              {@link Duration#ZERO} scans within every scrape
     * @return these options with it
     * @throws IllegalArgumentException if it is negative
     */
    public ExporterOptions withDeletedFilesEvery(Duration every) {
        return new ExporterOptions(grouper, perPid, seriesCap, hostname, idleRule, doctorEvery, doctorOptions, every);
    }

    /** @return this machine's host name, or {@code localhost} when it cannot be found */
    static String localHostname() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | SecurityException e) {
            return "localhost";
        }
    }
}
