package io.github.procscope.api.diagnose;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The sample window and thresholds of a diagnosis. Build with {@link #defaults()} and the
 * {@code with...} methods; every value is checked.
 *
 * @param sampleWindow               how long to watch CPU, disks and GPUs before judging them
 * @param diskUsedPercent            a file system at or over this use% is {@link FindingKind#DISK_FULL}
 * @param inodesUsedPercent          at or over this inode use% is {@link FindingKind#INODES_EXHAUSTED}
 * @param memoryAvailablePercent     memory available below this % of total is {@link FindingKind#MEMORY_PRESSURE}
 * @param cgroupUsagePercent         a memory cgroup at or over this % of its limit is memory pressure
 * @param gpuIdleUtilizationPercent  mean GPU utilization below this is idle
 * @param gpuIdleMemoryBytes         an idle GPU using more than this holds memory
 * @param ioUtilPercent              a disk at or over this %util ...
 * @param ioAwaitMillis              ... with a mean wait at or over this is {@link FindingKind#IO_BOTTLENECK}
 * @param orphanMinAge               an orphan idle over the window and older than this is a warning
 * @param hangupMinAge               terminal processes younger than this are not reported as hang-up vulnerable
 * @param subreapers                 pids known to be subreapers (orphans are re-parented to them)
 * @param deletedOpenMinBytes        deleted-but-open files holding less than this on a file system are not reported
 */
public record DoctorOptions(Duration sampleWindow, double diskUsedPercent, double inodesUsedPercent,
                            double memoryAvailablePercent, double cgroupUsagePercent,
                            double gpuIdleUtilizationPercent, long gpuIdleMemoryBytes, double ioUtilPercent,
                            double ioAwaitMillis, Duration orphanMinAge, Duration hangupMinAge, Set<Long> subreapers,
                            long deletedOpenMinBytes) {

    /** Checks every value. */
    public DoctorOptions {
        Objects.requireNonNull(sampleWindow, "sampleWindow");
        if (sampleWindow.isNegative() || sampleWindow.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("sample window must be between 0 and 1 hour: " + sampleWindow);
        }
        percent("diskUsedPercent", diskUsedPercent);
        percent("inodesUsedPercent", inodesUsedPercent);
        percent("memoryAvailablePercent", memoryAvailablePercent);
        percent("cgroupUsagePercent", cgroupUsagePercent);
        percent("gpuIdleUtilizationPercent", gpuIdleUtilizationPercent);
        percent("ioUtilPercent", ioUtilPercent);
        if (gpuIdleMemoryBytes < 0) {
            throw new IllegalArgumentException("gpuIdleMemoryBytes must not be negative: " + gpuIdleMemoryBytes);
        }
        if (!(ioAwaitMillis >= 0)) {
            throw new IllegalArgumentException("ioAwaitMillis must not be negative: " + ioAwaitMillis);
        }
        Objects.requireNonNull(orphanMinAge, "orphanMinAge");
        Objects.requireNonNull(hangupMinAge, "hangupMinAge");
        if (orphanMinAge.isNegative() || hangupMinAge.isNegative()) {
            throw new IllegalArgumentException("ages must not be negative");
        }
        subreapers = Set.copyOf(subreapers);
        if (deletedOpenMinBytes < 0) {
            throw new IllegalArgumentException("deletedOpenMinBytes must not be negative: " + deletedOpenMinBytes);
        }
    }

    private static void percent(String name, double v) {
        if (!(v >= 0 && v <= 100)) {
            throw new IllegalArgumentException(name + " must be a percentage from 0 to 100: " + v);
        }
    }

    /**
     * {@return a 3-second window; disks and inodes at 90%; memory available under 10%; cgroups at 90% of
     * their limit; GPUs idle under 5% utilization while holding over 1 GiB (the rule of {@code procscope gpu} and the exporter); disks at 80%
     * util with 50 ms waits; orphans idle and older than 10 minutes; terminal processes older than 1 minute;
     * deleted-but-open files from 10 MiB per file system}
     */
    public static DoctorOptions defaults() {
        return new DoctorOptions(Duration.ofSeconds(3), 90, 90, 10, 90, 5, 1L << 30, 80, 50,
                Duration.ofMinutes(10), Duration.ofMinutes(1), Set.of(), 10L << 20);
    }

    /**
     * {@return a copy with another sample window}
     *
     * @param d how long to watch CPU, I/O and GPU use for the checks that need two readings
     */
    public DoctorOptions withSampleWindow(Duration d) {
        return new DoctorOptions(d, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent, cgroupUsagePercent,
                gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis, orphanMinAge,
                hangupMinAge, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy with other disk thresholds}
     *
     * @param usedPercent the share of a file system's space in use from which it is reported as full
     * @param inodesPercent the share of its inodes in use from which it is reported
     */
    public DoctorOptions withDiskThresholds(double usedPercent, double inodesPercent) {
        return new DoctorOptions(sampleWindow, usedPercent, inodesPercent, memoryAvailablePercent, cgroupUsagePercent,
                gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis, orphanMinAge,
                hangupMinAge, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy with other memory thresholds}
     *
     * @param availablePercent the share of the machine's memory still available below which it is under pressure
     * @param cgroupPercent the share of the cgroup's limit in use from which it is under pressure
     */
    public DoctorOptions withMemoryThresholds(double availablePercent, double cgroupPercent) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, availablePercent, cgroupPercent,
                gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis, orphanMinAge,
                hangupMinAge, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy with other GPU idle-holding thresholds}
     *
     * @param utilizationPercent the utilization at or below which a GPU counts as idle
     * @param memoryBytes the memory held from which an idle GPU is reported
     */
    public DoctorOptions withGpuIdleThresholds(double utilizationPercent, long memoryBytes) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent,
                cgroupUsagePercent, utilizationPercent, memoryBytes, ioUtilPercent, ioAwaitMillis, orphanMinAge,
                hangupMinAge, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy with other I/O bottleneck thresholds}
     *
     * @param utilPercent the disk utilization from which a disk is a bottleneck
     * @param awaitMillis the average wait per request from which it is one
     */
    public DoctorOptions withIoThresholds(double utilPercent, double awaitMillis) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent,
                cgroupUsagePercent, gpuIdleUtilizationPercent, gpuIdleMemoryBytes, utilPercent, awaitMillis,
                orphanMinAge, hangupMinAge, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy with other process age thresholds}
     *
     * @param orphan how long an adopted process must have run to be reported
     * @param hangup how long a process that would die with its terminal must have run to be reported
     */
    public DoctorOptions withAges(Duration orphan, Duration hangup) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent,
                cgroupUsagePercent, gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis,
                orphan, hangup, subreapers, deletedOpenMinBytes);
    }

    /**
     * {@return a copy that reports deleted-but-open files from this many bytes per file system}
     *
     * @param bytes the smallest space held per file system that is reported
     */
    public DoctorOptions withDeletedOpenMinBytes(long bytes) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent,
                cgroupUsagePercent, gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis,
                orphanMinAge, hangupMinAge, subreapers, bytes);
    }

    /**
     * {@return a copy that knows these subreapers}
     *
     * @param pids processes that adopt orphans besides PID 1, so that their adopted children count as orphans
     */
    public DoctorOptions withSubreapers(Set<Long> pids) {
        return new DoctorOptions(sampleWindow, diskUsedPercent, inodesUsedPercent, memoryAvailablePercent,
                cgroupUsagePercent, gpuIdleUtilizationPercent, gpuIdleMemoryBytes, ioUtilPercent, ioAwaitMillis,
                orphanMinAge, hangupMinAge, pids, deletedOpenMinBytes);
    }
}
