package io.github.procscope.api.system;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.disk.IoStat;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.SystemMemory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The machine's memory, load and disks, as {@code free}, {@code uptime}, {@code df}, {@code du} and {@code iostat}
 * show them.
 * Implementations are thread-safe and hold no data between calls: every call reads the kernel anew.
 *
 * <pre>{@code
 * SystemResources sys = Procscope.system().resources();
 * SystemMemory mem = sys.memory();
 * System.out.printf("available %d of %d bytes%n", mem.availableBytes(), mem.totalBytes());
 * sys.cgroupMemory().flatMap(CgroupMemory::effectiveLimitBytes)
 *         .ifPresent(limit -> System.out.println("container limit " + limit));
 * FileSystemUsage root = sys.fileSystem(Path.of("/"));
 * System.out.println(root.mountPoint() + " " + root.usePercent().orElse(0) + "% used");
 * for (IoStat io : sys.ioStat(Duration.ofSeconds(1))) {
 *     System.out.printf("%s r/s %.1f w/s %.1f %%util %.1f%n", io.name(), io.readsPerSecond(),
 *             io.writesPerSecond(), io.utilizationPercent());
 * }
 * }</pre>
 */
public interface SystemResources {

    /** {@return the system's memory ({@code /proc/meminfo}) with {@code free}'s derived figures} */
    SystemMemory memory();

    /**
     * {@return the load averages and task counts of {@code /proc/loadavg}, as {@code uptime} shows them}
     *
     * @throws ProcfsException if the file cannot be read or parsed
     */
    LoadAverage loadAverage();

    /**
     * {@return the memory limit and usage of the cgroup the current process belongs to (v2, or v1's {@code
     * memory} controller); empty when no memory controller governs it (the controller is not enabled, or the
     * process sits in the root cgroup, which has no limit)}
     */
    Optional<CgroupMemory> cgroupMemory();

    /** {@return every mount visible to the current process ({@code /proc/self/mountinfo}), in the kernel's order} */
    List<MountInfo> mounts();

    /**
     * Every mounted file system with its space and inodes ({@code df -a}). Mounts whose mount point cannot be
     * examined (hidden by a later mount on the same point, not permitted to this user, or a stale network mount)
     * are left out, as {@code df} leaves them out with a message, and so are {@code autofs} mount points, which
     * examining could trigger; {@link #mounts()} lists them all.
     *
     * @return the file systems, in mount order; filter with {@link FileSystemUsage#isPseudo()} for {@code df}'s
     *         default view
     */
    List<FileSystemUsage> fileSystems();

    /**
     * The file system holding a path, as {@code df PATH} finds it: the mount whose mount point is the
     * longest prefix of the path's real location (the latest such mount when several share a point).
     *
     * @param path an existing file or directory
     * @return its file system's space and inodes
     * @throws ProcscopeException if the path does not exist or cannot be examined (the message says why)
     */
    FileSystemUsage fileSystem(Path path);

    /** {@return one reading of {@code /proc/diskstats}, with the uptime to compute rates against} */
    DiskStats diskStats();

    /**
     * Measures disk usage under a directory, as {@code du -x} does, walking its subdirectories in parallel.
     *
     * @param directory an existing directory
     * @param topN      how many of the largest directories below it to report (0 for none)
     * @return its total and its largest directories
     * @throws IllegalArgumentException if {@code topN} is negative
     * @throws ProcscopeException       if the directory does not exist or cannot be examined
     */
    DirectoryUsage directoryUsage(Path directory, int topN);

    /**
     * Samples {@code iostat -x}: reads {@link #diskStats()}, waits for the interval, reads again, and computes
     * the figures with {@link IoStat#between(DiskStats, DiskStats)}.
     *
     * @param interval how long to measure; at least 10 ms (the resolution of the kernel's uptime)
     * @return the figures per device
     * @throws IllegalArgumentException if the interval is shorter than 10 ms
     * @throws ProcscopeException       if the calling thread is interrupted while it waits (its interrupt status
     *                                  is set again)
     */
    default List<IoStat> ioStat(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.toMillis() < 10) {
            throw new IllegalArgumentException("the interval must be at least 10 ms: " + interval);
        }
        DiskStats first = diskStats();
        try {
            Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProcscopeException("interrupted while sampling disk statistics", e);
        }
        return IoStat.between(first, diskStats());
    }
}
