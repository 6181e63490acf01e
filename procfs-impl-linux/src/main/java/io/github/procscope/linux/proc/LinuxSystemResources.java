package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.api.disk.DiskStat;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.memory.AvailableSource;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.api.memory.SystemMemory;
import io.github.procscope.api.system.LoadAverage;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.parse.DiskstatsParser;
import io.github.procscope.linux.parse.LoadavgParser;
import io.github.procscope.linux.parse.MeminfoParser;
import io.github.procscope.linux.parse.MountinfoParser;
import io.github.procscope.linux.parse.ProcCgroupParser;
import io.github.procscope.linux.parse.UptimeParser;
import io.github.procscope.linux.parse.ValueFileParser;
import io.github.procscope.linux.sys.FsCalls;
import io.github.procscope.linux.sys.ProcBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The machine's memory, load and disks from a Linux procfs and sysfs, each rooted at a directory: {@code /proc}
 * and {@code /sys} for the live system, or fixture trees in tests. Thread-safe; it holds no data between
 * calls.
 *
 * <p>What each call reads: {@link #memory()} {@code /proc/meminfo} (and {@code /proc/sys/vm/min_free_kbytes}
 * on kernels without {@code MemAvailable}); {@link #loadAverage()} {@code /proc/loadavg};
 * {@link #cgroupMemory()} {@code /proc/self/cgroup}, {@code /proc/self/mountinfo} and the cgroup's memory files under the sysfs root; {@link #mounts()}
 * {@code /proc/self/mountinfo}; {@link #diskStats()} {@code /proc/uptime} then {@code /proc/diskstats}.
 * {@link #fileSystems()}, {@link #fileSystem(Path)} and {@link #directoryUsage(Path, int)} examine the live
 * file systems themselves ({@code statvfs}, {@code lstat}); their mount points are not re-rooted.
 *
 * <p>Cgroup mount points under {@code /sys} (as {@code /proc/self/mountinfo} names them) are read under the
 * sysfs root given here, so a fixture tree mounts its cgroups under {@code /sys/fs/cgroup} like a real system.
 */
public final class LinuxSystemResources implements SystemResources {
    private static final Path DEFAULT_PROC = Path.of("/proc");
    private static final Path DEFAULT_SYS = Path.of("/sys");

    private final Path proc;
    private final Path sys;
    private final int walkParallelism;

    private LinuxSystemResources(Path proc, Path sys, int walkParallelism) {
        this.proc = proc;
        this.sys = sys;
        this.walkParallelism = walkParallelism;
    }

    /**
     * @param procRoot a procfs mount, or a fixture tree with the same layout
     * @param sysRoot  a sysfs mount, or a fixture tree with the same layout
     * @return the resources under those roots
     * @throws ProcfsUnavailableException if either is not a directory
     */
    public static LinuxSystemResources at(Path procRoot, Path sysRoot) {
        return at(procRoot, sysRoot, Math.min(32, Math.max(4, 2 * Runtime.getRuntime().availableProcessors())));
    }

    /**
     * @param procRoot        a procfs mount, or a fixture tree with the same layout
     * @param sysRoot         a sysfs mount, or a fixture tree with the same layout
     * @param walkParallelism how many threads {@link #directoryUsage(Path, int)} walks with (its work is mostly
     *                        waiting for {@code lstat}, so more threads than processors pay off on cold caches)
     * @return the resources under those roots
     * @throws ProcfsUnavailableException if either root is not a directory
     * @throws IllegalArgumentException   if the parallelism is not between 1 and 256
     */
    static LinuxSystemResources at(Path procRoot, Path sysRoot, int walkParallelism) {
        ProcRoot.requireDirectory(procRoot, "procRoot");
        ProcRoot.requireDirectory(sysRoot, "sysRoot");
        if (walkParallelism < 1 || walkParallelism > 256) {
            throw new IllegalArgumentException("walk parallelism must be between 1 and 256: " + walkParallelism);
        }
        return new LinuxSystemResources(procRoot, sysRoot, walkParallelism);
    }

    /** @return the procfs root */
    Path procRoot() {
        return proc;
    }

    /** @return the sysfs root */
    Path sysRoot() {
        return sys;
    }

    // ---------------------------------------------------------------- memory

    @Override
    public SystemMemory memory() {
        Path file = proc.resolve("meminfo");
        ProcBuffer buf = new ProcBuffer(8192);
        readSystemFile(file, buf);
        MeminfoParser.Meminfo m = MeminfoParser.parse(file, buf.bytes(), buf.length());
        Map<String, Long> b = m.bytes();
        long total = required(file, b, "MemTotal");
        long free = required(file, b, "MemFree");
        long buffers = required(file, b, "Buffers");
        long cached = required(file, b, "Cached");
        long swapTotal = required(file, b, "SwapTotal");
        long swapFree = required(file, b, "SwapFree");
        OptionalLong reclaimable = optional(b, "SReclaimable");
        long available;
        AvailableSource source;
        Long kernel = b.get("MemAvailable");
        if (kernel != null) {
            available = kernel;
            source = AvailableSource.KERNEL;
        } else {
            OptionalLong minFree = minFreeBytes(buf);
            Long active = b.get("Active(file)");
            Long inactive = b.get("Inactive(file)");
            if (minFree.isPresent() && active != null && inactive != null) {
                available = estimateAvailable(free, active + inactive, reclaimable.orElse(0), minFree.getAsLong());
                source = AvailableSource.ESTIMATED;
            } else {
                available = free;
                source = AvailableSource.FREE;
            }
        }
        return new SystemMemory(total, free, available, source, buffers, cached, optional(b, "Shmem"), reclaimable,
                swapTotal, swapFree, b, m.counts());
    }

    @Override
    public LoadAverage loadAverage() {
        Path file = proc.resolve("loadavg");
        ProcBuffer buf = new ProcBuffer(128);
        readSystemFile(file, buf);
        return LoadavgParser.parse(file, buf.bytes(), buf.length());
    }

    /**
     * procps-ng 3.3's estimate of available memory for kernels without {@code MemAvailable}, in bytes: the low
     * watermark is taken as 5/4 of {@code min_free_kbytes} (the sum of the zones' low watermarks).
     */
    static long estimateAvailable(long free, long pageCache, long reclaimableSlab, long minFree) {
        long low = minFree * 5 / 4;
        long available = free - low
                + pageCache - Math.min(pageCache / 2, low)
                + reclaimableSlab - Math.min(reclaimableSlab / 2, low);
        return Math.max(0, available);
    }

    private OptionalLong minFreeBytes(ProcBuffer buf) {
        Path file = proc.resolve("sys").resolve("vm").resolve("min_free_kbytes");
        if (buf.read(file) != ProcBuffer.Result.OK) {
            return OptionalLong.empty();
        }
        long kib = ValueFileParser.number(file, buf.bytes(), buf.length());
        return kib > Long.MAX_VALUE / 1024 ? OptionalLong.empty() : OptionalLong.of(kib * 1024);
    }

    private static long required(Path file, Map<String, Long> values, String key) {
        Long v = values.get(key);
        if (v == null) {
            throw new ProcfsParseException(file, key + ":", "the required " + key + " line (in kB) is missing");
        }
        return v;
    }

    private static OptionalLong optional(Map<String, Long> values, String key) {
        Long v = values.get(key);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    @Override
    public Optional<CgroupMemory> cgroupMemory() {
        ProcBuffer buf = new ProcBuffer(4096);
        Path cgroupFile = proc.resolve("self").resolve("cgroup");
        ProcBuffer.Result read = buf.read(cgroupFile);
        if (read == ProcBuffer.Result.NOT_FOUND) {
            return Optional.empty(); // a kernel built without cgroups
        }
        requireRead(cgroupFile, read);
        List<ProcCgroupParser.Membership> memberships = ProcCgroupParser.parse(cgroupFile, buf.bytes(), buf.length());
        List<MountInfo> mounts = mounts(buf);
        for (ProcCgroupParser.Membership g : memberships) {
            if (g.isV2()) {
                Optional<CgroupMemory> v2 = read(CgroupVersion.V2, g.path(), find(mounts, "cgroup2", null), buf);
                if (v2.isPresent()) {
                    return v2;
                }
            }
        }
        for (ProcCgroupParser.Membership g : memberships) {
            if (g.controllers().contains("memory")) {
                return read(CgroupVersion.V1, g.path(), find(mounts, "cgroup", "memory"), buf);
            }
        }
        return Optional.empty();
    }

    private static Optional<MountInfo> find(List<MountInfo> mounts, String type, String controller) {
        MountInfo found = null;
        for (MountInfo m : mounts) {
            if (m.fsType().equals(type) && (controller == null || m.superOptions().contains(controller))) {
                found = m; // the last one: a later mount hides an earlier one
            }
        }
        return Optional.ofNullable(found);
    }

    private Optional<CgroupMemory> read(CgroupVersion version, String cgroupPath, Optional<MountInfo> mount,
                                        ProcBuffer buf) {
        if (mount.isEmpty()) {
            return Optional.empty();
        }
        Path mountDir = underSys(mount.get().mountPoint());
        Path dir = cgroupDirectory(mountDir, mount.get().root(), cgroupPath);
        String limitName = version == CgroupVersion.V2 ? "memory.max" : "memory.limit_in_bytes";
        String usageName = version == CgroupVersion.V2 ? "memory.current" : "memory.usage_in_bytes";
        String peakName = version == CgroupVersion.V2 ? "memory.peak" : "memory.max_usage_in_bytes";
        Path usageFile = dir.resolve(usageName);
        ProcBuffer.Result r = buf.read(usageFile);
        if (r == ProcBuffer.Result.NOT_FOUND) {
            return Optional.empty(); // the root cgroup, or no memory controller enabled for this one
        }
        if (r != ProcBuffer.Result.OK) {
            throw new ProcfsException(usageFile, "cannot read " + usageFile + " (" + r + ")");
        }
        long usage = ValueFileParser.number(usageFile, buf.bytes(), buf.length());
        OptionalLong limit = limit(dir.resolve(limitName), buf);
        OptionalLong effective = limit;
        Path p = dir;
        while (!p.equals(mountDir) && p.startsWith(mountDir)) {
            p = p.getParent();
            OptionalLong l = limit(p.resolve(limitName), buf);
            if (l.isPresent() && (effective.isEmpty() || l.getAsLong() < effective.getAsLong())) {
                effective = l;
            }
        }
        OptionalLong peak = OptionalLong.empty();
        Path peakFile = dir.resolve(peakName);
        if (buf.read(peakFile) == ProcBuffer.Result.OK) {
            peak = OptionalLong.of(ValueFileParser.number(peakFile, buf.bytes(), buf.length()));
        }
        return Optional.of(new CgroupMemory(version, cgroupPath, dir, limit, effective, usage, peak));
    }

    /** @return the limit in a file, or empty if it says none or the file is absent (the root cgroup has none) */
    private static OptionalLong limit(Path file, ProcBuffer buf) {
        if (buf.read(file) != ProcBuffer.Result.OK) {
            return OptionalLong.empty();
        }
        return ValueFileParser.limit(file, buf.bytes(), buf.length());
    }

    /**
     * Where a cgroup's files are: the mount point joined with the cgroup path relative to the mount's root.
     * Inside a container without a cgroup namespace the path names the host's hierarchy while the mount's
     * root is the container's own cgroup; then the mount point itself is the cgroup.
     */
    static Path cgroupDirectory(Path mountDir, String mountRoot, String cgroupPath) {
        if (mountRoot.equals("/")) {
            return resolveRelative(mountDir, cgroupPath);
        }
        if (cgroupPath.equals(mountRoot)) {
            return mountDir;
        }
        if (cgroupPath.startsWith(mountRoot + "/")) {
            return resolveRelative(mountDir, cgroupPath.substring(mountRoot.length()));
        }
        return mountDir;
    }

    private static Path resolveRelative(Path base, String absolute) {
        String rel = absolute;
        while (rel.startsWith("/")) {
            rel = rel.substring(1);
        }
        return rel.isEmpty() ? base : base.resolve(rel);
    }

    /** Maps an absolute path under /sys to the sysfs root given to this instance. */
    public Path underSys(String mountPoint) {
        return underSys(sys, mountPoint);
    }

    /** @return where a mount point under {@code /sys} lies under the sysfs root {@code sys}; others as they are */
    static Path underSys(Path sys, String mountPoint) {
        if (mountPoint.equals("/sys")) {
            return sys;
        }
        if (mountPoint.startsWith("/sys/")) {
            return sys.resolve(mountPoint.substring("/sys/".length()));
        }
        return Path.of(mountPoint);
    }

    // ---------------------------------------------------------------- file systems

    @Override
    public List<MountInfo> mounts() {
        return mounts(new ProcBuffer(16 * 1024));
    }

    private List<MountInfo> mounts(ProcBuffer buf) {
        Path file = proc.resolve("self").resolve("mountinfo");
        readSystemFile(file, buf);
        return MountinfoParser.parse(file, buf.bytes(), buf.length());
    }

    /** @return the mounts not hidden by another mount on the same mount point */
    static List<MountInfo> visible(List<MountInfo> mounts) {
        Set<Integer> hidden = new HashSet<>();
        for (MountInfo top : mounts) {
            for (MountInfo under : mounts) {
                if (top.parentId() == under.mountId() && top.mountId() != under.mountId()
                        && top.mountPoint().equals(under.mountPoint())) {
                    hidden.add(under.mountId());
                }
            }
        }
        List<MountInfo> out = new ArrayList<>(mounts.size());
        for (MountInfo m : mounts) {
            if (!hidden.contains(m.mountId())) {
                out.add(m);
            }
        }
        return out;
    }

    @Override
    public List<FileSystemUsage> fileSystems() {
        FsCalls fs = FsCalls.get();
        List<FileSystemUsage> out = new ArrayList<>();
        for (MountInfo m : visible(mounts())) {
            if (m.fsType().equals("autofs")) {
                continue; // examining an automount point can trigger the mount
            }
            try {
                out.add(usage(m, fs.statvfs(m.mountPoint())));
            } catch (FsCalls.NativeErrno e) {
                // not reachable from here (permission, a stale network mount, a detached tree): left out, as df does
            }
        }
        return out;
    }

    @Override
    public FileSystemUsage fileSystem(Path path) {
        Objects.requireNonNull(path, "path");
        Path real;
        try {
            real = path.toRealPath();
        } catch (NoSuchFileException e) {
            throw new ProcscopeException("cannot find the file system of " + path + ": it does not exist");
        } catch (IOException e) {
            throw new ProcscopeException("cannot find the file system of " + path + ": " + e.getMessage(), e);
        }
        MountInfo best = holding(visible(mounts()), real.toString());
        if (best == null) {
            throw new ProcscopeException("no mount in " + proc.resolve("self/mountinfo") + " holds " + real);
        }
        try {
            return usage(best, FsCalls.get().statvfs(real.toString()));
        } catch (FsCalls.NativeErrno e) {
            throw new ProcscopeException("cannot examine the file system of " + real + ": " + e.getMessage(), e);
        }
    }

    /** @return the mount whose mount point is the longest prefix of the path, the last of equals; or null */
    static MountInfo holding(List<MountInfo> mounts, String realPath) {
        MountInfo best = null;
        for (MountInfo m : mounts) {
            String mp = m.mountPoint();
            boolean prefix = mp.equals("/") || realPath.equals(mp) || realPath.startsWith(mp + "/");
            if (prefix && (best == null || mp.length() >= best.mountPoint().length())) {
                best = m;
            }
        }
        return best;
    }

    private static FileSystemUsage usage(MountInfo m, FsCalls.Statvfs v) {
        long unit = v.fragmentSize() != 0 ? v.fragmentSize() : v.blockSize();
        if (unit <= 0) {
            unit = 1;
        }
        return new FileSystemUsage(m, unit, bytes(v.blocks(), unit), bytes(v.blocksFree(), unit),
                bytes(v.blocksAvailable(), unit), Math.max(0, v.files()), Math.max(0, v.filesFree()),
                (v.flags() & FsCalls.ST_RDONLY) != 0);
    }

    private static long bytes(long blocks, long unit) {
        if (blocks < 0) {
            return 0;
        }
        return blocks > Long.MAX_VALUE / unit ? Long.MAX_VALUE : blocks * unit;
    }

    @Override
    public DirectoryUsage directoryUsage(Path directory, int topN) {
        Objects.requireNonNull(directory, "directory");
        if (topN < 0) {
            throw new IllegalArgumentException("topN must not be negative: " + topN);
        }
        return DirectoryWalker.walk(FsCalls.get(), directory, topN, walkParallelism);
    }

    // ---------------------------------------------------------------- disks

    @Override
    public DiskStats diskStats() {
        ProcBuffer buf = new ProcBuffer(8192);
        Path uptimeFile = proc.resolve("uptime");
        readSystemFile(uptimeFile, buf);
        Duration uptime = UptimeParser.parse(uptimeFile, buf.bytes(), buf.length());
        Path file = proc.resolve("diskstats");
        readSystemFile(file, buf);
        List<DiskStat> devices = DiskstatsParser.parse(file, buf.bytes(), buf.length());
        return new DiskStats(uptime, devices);
    }

    private static void readSystemFile(Path file, ProcBuffer buf) {
        requireRead(file, buf.read(file));
    }

    private static void requireRead(Path file, ProcBuffer.Result r) {
        if (r != ProcBuffer.Result.OK) {
            throw new ProcfsException(file, "cannot read " + file + ": "
                    + (r == ProcBuffer.Result.DENIED ? "permission denied" : "it does not exist")
                    + " (is this a procfs of Linux 2.6.26 or later?)");
        }
    }

    @Override
    public String toString() {
        return "LinuxSystemResources[" + proc + ", " + sys + "]";
    }
}
