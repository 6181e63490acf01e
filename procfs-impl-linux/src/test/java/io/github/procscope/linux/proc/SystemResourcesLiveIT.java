package io.github.procscope.linux.proc;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.disk.DiskStat;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.disk.IoStat;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.memory.AvailableSource;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.api.memory.SystemMemory;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link LinuxSystemResources} on this machine, at the same moment as {@code df}, {@code free} and
 * {@code iostat}. Other work on the machine moves the figures between two readings, so each comparison
 * brackets the tool's reading between two of ours where the figure can move.
 */
class SystemResourcesLiveIT {
    private static final long MIB = 1 << 20;
    private final LinuxSystemResources system = LinuxSystemResources.at(Path.of("/proc"), Path.of("/sys"));

    @Test
    void rootFileSystemMatchesDf() {
        FileSystemUsage before = system.fileSystem(Path.of("/"));
        String[] df = lastLine(Commands.run("df", "-B1", "--output=size,used,avail,pcent", "/"));
        String[] dfi = lastLine(Commands.run("df", "--output=itotal,iused,iavail,ipcent", "/"));
        FileSystemUsage after = system.fileSystem(Path.of("/"));
        System.out.printf("df -B1 /: size %s used %s avail %s %s; ours: size %d used %d..%d avail %d..%d %s%n",
                df[0], df[1], df[2], df[3], before.sizeBytes(), before.usedBytes(), after.usedBytes(),
                before.availableBytes(), after.availableBytes(), before.usePercent());
        System.out.printf("df -i /: inodes %s used %s free %s %s; ours: inodes %d used %d..%d %s%n",
                dfi[0], dfi[1], dfi[2], dfi[3], before.inodes(), before.inodesUsed(), after.inodesUsed(),
                before.inodeUsePercent());

        assertEquals("/", before.mountPoint());
        assertFalse(before.isPseudo());
        assertEquals(Long.parseLong(df[0]), before.sizeBytes());
        assertBetween(Long.parseLong(df[1]), before.usedBytes(), after.usedBytes(), 16 * MIB, "used");
        assertBetween(Long.parseLong(df[2]), before.availableBytes(), after.availableBytes(), 16 * MIB, "available");
        // df's Use% from df's own figures, computed by our formula
        FileSystemUsage asDfSawIt = new FileSystemUsage(before.mount(), before.blockSizeBytes(), Long.parseLong(df[0]),
                Long.parseLong(df[0]) - Long.parseLong(df[1]), Long.parseLong(df[2]), 0, 0, false);
        assertEquals(df[3], asDfSawIt.usePercent().getAsInt() + "%");
        assertEquals(Long.parseLong(dfi[0]), before.inodes());
        assertBetween(Long.parseLong(dfi[1]), before.inodesUsed(), after.inodesUsed(), 10_000, "inodes used");
        assertBetween(Long.parseLong(dfi[2]), before.inodesFree(), after.inodesFree(), 10_000, "inodes free");
        if (before.inodesUsed() == after.inodesUsed()) {
            assertEquals(dfi[3], before.inodeUsePercent().getAsInt() + "%");
        }
        if (before.usedBytes() == after.usedBytes() && before.availableBytes() == after.availableBytes()) {
            assertEquals(df[3], before.usePercent().getAsInt() + "%");
        }
    }

    @Test
    void fileSystemsListTheRealAndThePseudoOnes() {
        List<FileSystemUsage> all = system.fileSystems();
        FileSystemUsage root = all.stream().filter(f -> f.mountPoint().equals("/")).findFirst().orElseThrow();
        assertTrue(root.sizeBytes() > 0);
        FileSystemUsage proc = all.stream().filter(f -> f.mountPoint().equals("/proc")).findFirst().orElseThrow();
        assertTrue(proc.isPseudo());
        assertEquals(0, proc.sizeBytes());
        assertTrue(all.size() <= system.mounts().size());
        for (FileSystemUsage f : all) {
            assertTrue(f.usedBytes() <= f.sizeBytes(), f.toString());
            assertTrue(f.availableBytes() <= f.freeBytes() || f.mount().fsType().startsWith("fuse"), f.toString());
        }
    }

    @Test
    void mountsAreEveryLineOfMountinfo() throws IOException {
        List<MountInfo> mounts = system.mounts();
        List<String> lines = Files.readAllLines(Path.of("/proc/self/mountinfo"));
        assertEquals(lines.size(), mounts.size());
        assertTrue(mounts.stream().anyMatch(m -> m.mountPoint().equals("/")));
    }

    @Test
    void aPathThatDoesNotExistHasNoFileSystem() {
        assertThrows(io.github.procscope.api.core.ProcscopeException.class,
                () -> system.fileSystem(Path.of("/no/such/path/here")));
    }

    @Test
    void memoryMatchesMeminfoAndFree() throws IOException {
        SystemMemory before = system.memory();
        String[] mem = null;
        String[] swap = null;
        for (String line : Commands.run("free", "-b").split("\n")) {
            if (line.startsWith("Mem:")) {
                mem = line.trim().split("\\s+");
            } else if (line.startsWith("Swap:")) {
                swap = line.trim().split("\\s+");
            }
        }
        SystemMemory after = system.memory();
        System.out.printf("free -b: total %s used %s free %s shared %s buff/cache %s available %s; ours: total %d used %d"
                        + " free %d shared %d buff/cache %d available %d%n", mem[1], mem[2], mem[3], mem[4], mem[5], mem[6],
                before.totalBytes(), before.usedBytes(), before.freeBytes(), before.sharedBytes().getAsLong(),
                before.bufferCacheBytes(), before.availableBytes());
        assertEquals(AvailableSource.KERNEL, before.availableSource(), "this kernel has MemAvailable");
        assertEquals(Long.parseLong(mem[1]), before.totalBytes());
        long slack = 64 * MIB;
        assertBetween(Long.parseLong(mem[2]), before.usedBytes(), after.usedBytes(), slack, "used");
        assertBetween(Long.parseLong(mem[3]), before.freeBytes(), after.freeBytes(), slack, "free");
        assertBetween(Long.parseLong(mem[4]), before.sharedBytes().getAsLong(), after.sharedBytes().getAsLong(), slack,
                "shared");
        assertBetween(Long.parseLong(mem[5]), before.bufferCacheBytes(), after.bufferCacheBytes(), slack, "buff/cache");
        assertBetween(Long.parseLong(mem[6]), before.availableBytes(), after.availableBytes(), slack, "available");
        assertEquals(Long.parseLong(swap[1]), before.swapTotalBytes());

        String meminfo = Files.readString(Path.of("/proc/meminfo"));
        assertEquals(kib(meminfo, "MemTotal"), before.totalBytes());
        assertBetween(kib(meminfo, "MemAvailable"), before.availableBytes(), after.availableBytes(), slack, "MemAvailable");
    }

    private static long kib(String meminfo, String key) {
        for (String line : meminfo.split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).replace("kB", "").trim()) * 1024;
            }
        }
        throw new AssertionError("no " + key);
    }

    @Test
    void cgroupMemoryMatchesItsFiles() throws IOException {
        Optional<CgroupMemory> c = system.cgroupMemory();
        String cgroups = Files.readString(Path.of("/proc/self/cgroup"));
        boolean v1Memory = cgroups.lines().anyMatch(l -> l.split(":", 3)[1].matches("(.*,)?memory(,.*)?"));
        assumeTrue(c.isPresent() || !v1Memory, "a v1 memory controller exists but was not found");
        if (c.isEmpty()) {
            return; // a v2 root cgroup or no controller: nothing to compare
        }
        CgroupMemory m = c.get();
        System.out.println("cgroup memory: " + m);
        String usageName = m.version() == CgroupVersion.V2 ? "memory.current" : "memory.usage_in_bytes";
        String limitName = m.version() == CgroupVersion.V2 ? "memory.max" : "memory.limit_in_bytes";
        long u1 = Long.parseLong(small(m.directory().resolve(usageName)));
        String limit = small(m.directory().resolve(limitName));
        long u2 = Long.parseLong(small(m.directory().resolve(usageName)));
        assertBetween(m.usageBytes(), u1, u2, 256 * MIB, "usage");
        if (limit.equals("max") || Long.parseLong(limit) > Long.MAX_VALUE - (1L << 20)) {
            assertEquals(OptionalLong.empty(), m.limitBytes());
        } else {
            assertEquals(OptionalLong.of(Long.parseLong(limit)), m.limitBytes());
        }
        if (m.limitBytes().isPresent()) {
            assertTrue(m.effectiveLimitBytes().getAsLong() <= m.limitBytes().getAsLong());
        }
        assertTrue(m.cgroupPath().startsWith("/"));
    }

    /** Reads a small kernel file in one read (a JDK reader could read sysctl and cgroup files piecemeal). */
    private static String small(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return new String(in.readNBytes(4096), StandardCharsets.US_ASCII).trim();
        }
    }

    @Test
    void sinceBootFiguresMatchIostat() {
        assumeTrue(Commands.available("iostat"), "sysstat is not installed");
        DiskStats before = system.diskStats();
        String out = Commands.run("iostat", "-x", "-d", "-k");
        DiskStats after = system.diskStats();
        Map<String, Map<String, Double>> iostat = parseIostat(out);
        assertFalse(iostat.isEmpty(), out);
        Map<String, IoStat> a = byName(IoStat.sinceBoot(before));
        Map<String, IoStat> b = byName(IoStat.sinceBoot(after));
        for (Map.Entry<String, Map<String, Double>> e : iostat.entrySet()) {
            String dev = e.getKey();
            Map<String, Double> v = e.getValue();
            IoStat x = a.get(dev);
            IoStat y = b.get(dev);
            assertTrue(x != null && y != null, "iostat shows " + dev + " which /proc/diskstats lacks");
            System.out.printf("iostat %s: r/s %.2f w/s %.2f rkB/s %.2f wkB/s %.2f r_await %.2f w_await %.2f aqu-sz %.2f"
                            + " %%util %.2f; ours r/s %.4f w/s %.4f rkB/s %.4f wkB/s %.4f r_await %.4f w_await %.4f"
                            + " aqu-sz %.4f %%util %.4f%n", dev, v.get("r/s"), v.get("w/s"), v.get("rkB/s"), v.get("wkB/s"),
                    v.get("r_await"), v.get("w_await"), v.get("aqu-sz"), v.get("%util"), x.readsPerSecond(),
                    x.writesPerSecond(), x.readKilobytesPerSecond(), x.writeKilobytesPerSecond(), x.readAwaitMillis(),
                    x.writeAwaitMillis(), x.averageQueueSize(), x.utilizationPercent());
            check(v, "r/s", x, y, IoStat::readsPerSecond);
            check(v, "w/s", x, y, IoStat::writesPerSecond);
            check(v, "rkB/s", x, y, IoStat::readKilobytesPerSecond);
            check(v, "wkB/s", x, y, IoStat::writeKilobytesPerSecond);
            check(v, "rrqm/s", x, y, IoStat::readMergesPerSecond);
            check(v, "wrqm/s", x, y, IoStat::writeMergesPerSecond);
            check(v, "r_await", x, y, IoStat::readAwaitMillis);
            check(v, "w_await", x, y, IoStat::writeAwaitMillis);
            check(v, "rareq-sz", x, y, IoStat::averageReadRequestKilobytes);
            check(v, "wareq-sz", x, y, IoStat::averageWriteRequestKilobytes);
            check(v, "aqu-sz", x, y, IoStat::averageQueueSize);
            check(v, "%util", x, y, IoStat::utilizationPercent);
            if (v.containsKey("d/s")) {
                check(v, "d/s", x, y, IoStat::discardsPerSecond);
            }
            if (v.containsKey("f/s")) {
                check(v, "f/s", x, y, IoStat::flushesPerSecond);
            }
        }
    }

    private static void check(Map<String, Double> iostat, String column, IoStat a, IoStat b, ToDoubleFunction<IoStat> f) {
        Double printed = iostat.get(column);
        assertTrue(printed != null, "iostat has no column " + column);
        double lo = Math.min(f.applyAsDouble(a), f.applyAsDouble(b));
        double hi = Math.max(f.applyAsDouble(a), f.applyAsDouble(b));
        double tol = 0.006 + 0.01 * Math.abs(hi);
        assertTrue(printed >= lo - tol && printed <= hi + tol,
                column + " of " + a.name() + ": iostat " + printed + ", ours " + lo + ".." + hi);
    }

    private static Map<String, IoStat> byName(List<IoStat> list) {
        Map<String, IoStat> m = new HashMap<>();
        list.forEach(s -> m.put(s.name(), s));
        return m;
    }

    /** Parses the device table of {@code iostat -x}: header names to values, per device. */
    private static Map<String, Map<String, Double>> parseIostat(String out) {
        Map<String, Map<String, Double>> m = new HashMap<>();
        String[] header = null;
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 2 && (f[0].equals("Device") || f[0].equals("Device:"))) {
                header = f;
                continue;
            }
            if (header != null && f.length == header.length) {
                Map<String, Double> v = new HashMap<>();
                for (int i = 1; i < f.length; i++) {
                    v.put(header[i], Double.parseDouble(f[i].replace(',', '.')));
                }
                m.put(f[0], v);
            }
        }
        return m;
    }

    @Test
    void samplingSeesWritesOnTheRootDevice(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        DeviceNumber rootDevice = system.fileSystem(dir).mount().device();
        DiskStats first = system.diskStats();
        Optional<DiskStat> disk = first.devices().stream().filter(d -> d.device().equals(rootDevice)).findFirst();
        assumeTrue(disk.isPresent(), "the temporary directory's file system is not on a block device in /proc/diskstats");
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(dir.resolve("w"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.DSYNC)) {
            for (int i = 0; i < 8; i++) {
                out.write(block);
            }
        }
        Thread.sleep(50);
        DiskStats second = system.diskStats();
        IoStat s = IoStat.between(first, second).stream().filter(x -> x.device().equals(rootDevice)).findFirst()
                .orElseThrow();
        assertTrue(s.writesPerSecond() > 0 && s.writeKilobytesPerSecond() >= 0, s.toString());
        assertTrue(second.device(disk.get().name()).orElseThrow().writtenBytes() - disk.get().writtenBytes() >= 8 * MIB,
                "at least the 8 MiB written synchronously reached the device");
        assertTrue(s.utilizationPercent() >= 0 && s.averageQueueSize() >= 0 && s.writeAwaitMillis() >= 0);
        List<IoStat> sampled = system.ioStat(Duration.ofMillis(20));
        assertEquals(first.devices().size(), sampled.size());
    }

    @Test
    void serviceLoaderFindsTheLinuxImplementation() {
        assertInstanceOf(LinuxSystemResources.class, Procscope.system().resources());
    }

    private static String[] lastLine(String out) {
        String[] lines = out.trim().split("\n");
        return lines[lines.length - 1].trim().split("\\s+");
    }

    private static void assertBetween(long tool, long ours1, long ours2, long slack, String what) {
        long lo = Math.min(ours1, ours2) - slack;
        long hi = Math.max(ours1, ours2) + slack;
        assertTrue(tool >= lo && tool <= hi, what + ": tool says " + tool + ", ours " + ours1 + ".." + ours2);
    }
}
