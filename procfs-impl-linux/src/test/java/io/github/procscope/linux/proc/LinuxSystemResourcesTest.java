package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.memory.AvailableSource;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.api.memory.SystemMemory;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LinuxSystemResources} on fixture trees. */
class LinuxSystemResourcesTest {
    private static final long K = 1024;

    private static LinuxSystemResources tree(String name) {
        return LinuxSystemResources.at(Fixtures.path(name + "/proc"), Fixtures.path(name + "/sys"));
    }

    @Test
    void memoryWithMemAvailableUsesTheKernelsFigure() {
        SystemMemory m = tree("sysres").memory();
        assertEquals(AvailableSource.KERNEL, m.availableSource());
        assertEquals(24683584L * K, m.totalBytes());
        assertEquals(m.fieldsBytes().get("MemAvailable"), m.availableBytes());
        assertEquals(m.fieldsBytes().get("Shmem"), m.sharedBytes().getAsLong());
        assertEquals(OptionalLong.of(m.fieldsBytes().get("SReclaimable")), m.reclaimableSlabBytes());
        assertEquals(0L, m.counts().get("HugePages_Total"));
    }

    @Test
    void memoryWithoutMemAvailableIsEstimatedFromMinFreeKbytes() {
        SystemMemory m = tree("sysres-estimated").memory();
        assertEquals(AvailableSource.ESTIMATED, m.availableSource());
        // min_free_kbytes 67584 -> low watermark 84480 kB; page cache 2403596 + 1837616 kB; SReclaimable 351076 kB
        long low = 84480;
        long pageCache = 2403596 + 1837616;
        long expected = 1203368 - low + pageCache - Math.min(pageCache / 2, low) + 351076 - Math.min(351076 / 2, low);
        assertEquals(expected * K, m.availableBytes());
        assertEquals(5542216L * K, m.availableBytes(), "the same figure worked by hand");
        assertEquals((8061404L - 5542216L) * K, m.usedBytes());
        assertEquals((8061404L - 1203368 - 190712 - 4123040 - 351076) * K, m.usedExcludingCacheBytes());
    }

    @Test
    void memoryWithoutTheEstimatesInputsFallsBackToFree() {
        SystemMemory m = tree("sysres-free").memory();
        assertEquals(AvailableSource.FREE, m.availableSource());
        assertEquals(m.freeBytes(), m.availableBytes());
    }

    @Test
    void estimateIsNeverNegative() {
        assertEquals(0, LinuxSystemResources.estimateAvailable(10, 0, 0, 1 << 20));
    }

    @Test
    void cgroupV1LimitComesFromTheMemoryHierarchyAndItsAncestors() {
        CgroupMemory c = tree("cgroup-v1").cgroupMemory().orElseThrow();
        assertEquals(CgroupVersion.V1, c.version());
        assertEquals("/batch/job-e43a", c.cgroupPath());
        assertTrue(c.directory().endsWith(Path.of("fs/cgroup/memory/batch/job-e43a")), c.directory().toString());
        assertEquals(OptionalLong.empty(), c.limitBytes(), "its own limit is v1's unlimited value");
        assertEquals(OptionalLong.of(2147483648L), c.effectiveLimitBytes(), "the parent's 2 GiB applies");
        assertEquals(56512512, c.usageBytes());
        assertEquals(OptionalLong.of(71303168), c.peakBytes());
        assertEquals(OptionalLong.of(2147483648L - 56512512), c.headroomBytes());
    }

    @Test
    void cgroupV2OnAHostTakesTheSmallestAncestorLimit() {
        CgroupMemory c = tree("cgroup-v2-host").cgroupMemory().orElseThrow();
        assertEquals(CgroupVersion.V2, c.version());
        assertEquals(OptionalLong.empty(), c.limitBytes());
        assertEquals(OptionalLong.of(4294967296L), c.effectiveLimitBytes());
        assertEquals(1073741824L, c.usageBytes());
        assertEquals(OptionalLong.empty(), c.peakBytes(), "no memory.peak before Linux 5.19");
    }

    @Test
    void cgroupV2InAContainerReadsTheNamespaceRoot() {
        CgroupMemory c = tree("cgroup-v2-container").cgroupMemory().orElseThrow();
        assertEquals("/", c.cgroupPath());
        assertEquals(OptionalLong.of(536870912), c.limitBytes());
        assertEquals(OptionalLong.of(536870912), c.effectiveLimitBytes());
        assertEquals(123457536, c.usageBytes());
        assertEquals(OptionalLong.of(234565632), c.peakBytes());
    }

    @Test
    void noMemoryControllerMeansNoCgroupMemory() {
        assertEquals(Optional.empty(), tree("cgroup-none").cgroupMemory());
    }

    @Test
    void aKernelWithoutCgroupsHasNoCgroupMemory() {
        assertEquals(Optional.empty(), tree("sysres").cgroupMemory(), "the sysres tree has no self/cgroup");
    }

    @Test
    void aMissingMeminfoIsAnErrorNamingTheFile() {
        ProcfsException e = assertThrows(ProcfsException.class, () -> tree("cgroup-none").memory());
        assertTrue(e.getMessage().contains("meminfo"), e.getMessage());
        assertTrue(e.file().endsWith("meminfo"));
    }

    @Test
    void rootsThatAreNotDirectoriesAreRefused() {
        assertThrows(ProcfsUnavailableException.class,
                () -> LinuxSystemResources.at(Path.of("/no/such/proc"), Fixtures.path("sysres/sys")));
        assertThrows(IllegalArgumentException.class,
                () -> LinuxSystemResources.at(Fixtures.path("sysres/proc"), Fixtures.path("sysres/sys"), 0));
    }

    @Test
    void cgroupDirectoryFollowsTheMountRoot() {
        Path m = Path.of("/sys/fs/cgroup");
        assertEquals(m.resolve("a/b"), LinuxSystemResources.cgroupDirectory(m, "/", "/a/b"));
        assertEquals(m, LinuxSystemResources.cgroupDirectory(m, "/", "/"));
        assertEquals(m, LinuxSystemResources.cgroupDirectory(m, "/kubepods/pod1", "/kubepods/pod1"));
        assertEquals(m.resolve("sub"), LinuxSystemResources.cgroupDirectory(m, "/kubepods/pod1", "/kubepods/pod1/sub"));
        assertEquals(m, LinuxSystemResources.cgroupDirectory(m, "/kubepods/pod1", "/elsewhere"));
        assertEquals(m, LinuxSystemResources.cgroupDirectory(m, "/kubepods/pod1", "/kubepods/pod10"),
                "a sibling whose name starts alike is not below the root");
    }

    @Test
    void mountsAreReadFromSelfMountinfo() {
        List<MountInfo> mounts = tree("sysres").mounts();
        assertEquals(14, mounts.size());
        assertEquals("/mnt/my disk", mounts.get(6).mountPoint());
    }

    @Test
    void mountsHiddenUnderAnotherOnTheSamePointAreNotVisible() {
        List<MountInfo> visible = LinuxSystemResources.visible(tree("sysres").mounts());
        assertEquals(13, visible.size());
        assertTrue(visible.stream().noneMatch(m -> m.mountId() == 65), "65 is covered by 66 on /dev/shm");
        assertTrue(visible.stream().anyMatch(m -> m.mountId() == 66));
    }

    @Test
    void theMountHoldingAPathIsTheLongestPrefix() {
        List<MountInfo> visible = LinuxSystemResources.visible(tree("sysres").mounts());
        assertEquals(27, LinuxSystemResources.holding(visible, "/home2/x").mountId(), "not /home");
        assertEquals(63, LinuxSystemResources.holding(visible, "/home/u/file").mountId());
        assertEquals(63, LinuxSystemResources.holding(visible, "/home").mountId());
        assertEquals(64, LinuxSystemResources.holding(visible, "/mnt/my disk/nested/f").mountId());
        assertEquals(66, LinuxSystemResources.holding(visible, "/dev/shm/seg").mountId());
        assertNull(LinuxSystemResources.holding(List.of(), "/x"));
    }

    @Test
    void diskStatsCarryTheUptimeReadWithThem() {
        DiskStats d = tree("sysres").diskStats();
        assertEquals(Duration.ofSeconds(350735, 470_000_000), d.uptime());
        assertEquals(4, d.devices().size());
        assertEquals(new DeviceNumber(254, 0), d.device("vda").orElseThrow().device());
        assertFalse(d.device("sdz").isPresent());
    }
}
