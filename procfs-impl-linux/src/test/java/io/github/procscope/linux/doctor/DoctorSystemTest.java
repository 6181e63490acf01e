package io.github.procscope.linux.doctor;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.disk.DiskStats;
import io.github.procscope.linux.parse.DiskstatsParser;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxOpenFiles;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.LinuxSystemResources;
import io.github.procscope.testing.Fixtures;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The memory, cgroup, disk, deleted-file and I/O checks of the doctor, on fixtures and staged for real. */
class DoctorSystemTest {
    private static final DoctorOptions NOW = DoctorOptions.defaults().withSampleWindow(Duration.ZERO)
            .withAges(Duration.ZERO, Duration.ZERO);

    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    private static LinuxProcfs proc(Path root) {
        return LinuxProcfs.builder(root).clockTicksPerSecond(100).pageSizeBytes(4096).build();
    }

    @Test
    void aCleanSystemTreeHasNothingToReport() {
        LinuxProcfs proc = proc(Fixtures.path("proc-clean"));
        Diagnosis d = LinuxDoctor.builder(proc)
                .kernelLog(LinuxKernelLog.at(Fixtures.path("kmsg/clean.txt"), proc.bootTime()))
                .systemResources(LinuxSystemResources.at(Fixtures.path("proc-clean"), Fixtures.path("sys-clean")))
                .sysfsRoot(Fixtures.path("sys-clean"))
                .openFiles(LinuxOpenFiles.at(Fixtures.path("proc-clean"),
                        () -> LinuxProcfs.at(Fixtures.path("proc-clean"))))
                .build().examine(NOW.withDiskThresholds(99, 99));
        assertEquals(List.of(), d.findings());
        assertEquals(List.of("disk i/o: a sample window of 0 measures no rates"), d.skipped());
    }

    @Test
    void memoryPressureCgroupLimitAndOomCountersOfAFixture() {
        Path root = Fixtures.path("sys-pressure");
        LinuxProcfs proc = proc(Fixtures.path("proc-clean"));
        Diagnosis d = LinuxDoctor.builder(proc)
                .kernelLog(LinuxKernelLog.at(Fixtures.path("kmsg/oom-run-9.txt"), proc.bootTime()))
                .systemResources(LinuxSystemResources.at(root.resolve("proc"), root.resolve("sys")))
                .sysfsRoot(root.resolve("sys"))
                .build().examine(NOW.withDiskThresholds(99, 99));
        List<Finding> mem = d.of(FindingKind.MEMORY_PRESSURE);
        assertEquals(2, mem.size(), mem.toString());
        Finding machine = mem.stream().filter(f -> f.evidence() instanceof Evidence.LowMemory).findFirst().orElseThrow();
        Evidence.LowMemory low = (Evidence.LowMemory) machine.evidence();
        assertEquals(740_000L * 1024, low.availableBytes());
        assertEquals(3.0, low.availablePercent());
        assertEquals(List.of(90L, 91L, 92L), machine.pids(), "the largest processes are named");
        Evidence.CgroupMemoryPressure cgroup = mem.stream().map(Finding::evidence)
                .filter(Evidence.CgroupMemoryPressure.class::isInstance).map(Evidence.CgroupMemoryPressure.class::cast)
                .findFirst().orElseThrow();
        assertEquals("/train.slice/run-9", cgroup.cgroup());
        assertEquals(1_040_000_000L, cgroup.workingSetBytes(), "usage minus inactive file");
        assertEquals(96.9, cgroup.usePercent());

        List<Finding> oom = d.of(FindingKind.OOM_KILL);
        assertEquals(2, oom.size(), oom.toString());
        Finding logged = oom.stream().filter(f -> f.pids().equals(List.of(4242L))).findFirst().orElseThrow();
        assertEquals(java.util.OptionalLong.of(2), ((Evidence.OomKilled) logged.evidence()).cgroupOomKills());
        Finding counted = oom.stream().filter(f -> f.pids().isEmpty()).findFirst().orElseThrow();
        Evidence.CgroupOomKills ce = (Evidence.CgroupOomKills) counted.evidence();
        assertEquals("/train.slice/run-9", ce.cgroup(), "the parent's count is the child's");
        assertEquals(2L, ce.oomKills());
        assertEquals(1L, ce.inKernelLog());
    }

    @Test
    void aDoctorBuiltFromTheFrontDoorReadsCgroupCountersUnderItsSysfsRoot() {
        Path root = Fixtures.path("sys-pressure");
        io.github.procscope.api.Procscope p = io.github.procscope.api.Procscope.at(Fixtures.path("proc-clean"),
                root.resolve("sys"));
        Diagnosis d = LinuxDoctor.builder(p)
                .systemResources(LinuxSystemResources.at(root.resolve("proc"), root.resolve("sys")))
                .build().examine(NOW.withDiskThresholds(99, 99));
        Evidence.CgroupOomKills ce = d.of(FindingKind.OOM_KILL).stream().map(Finding::evidence)
                .filter(Evidence.CgroupOomKills.class::isInstance).map(Evidence.CgroupOomKills.class::cast)
                .findFirst().orElseThrow(() -> new AssertionError(d.toString()));
        assertEquals("/train.slice/run-9", ce.cgroup());
        assertEquals(2L, ce.oomKills());

        Diagnosis underSys = LinuxDoctor.builder(p.processes())
                .systemResources(LinuxSystemResources.at(root.resolve("proc"), root.resolve("sys")))
                .sysfsRoot(Fixtures.path("sys-clean")).build().examine(NOW.withDiskThresholds(99, 99));
        assertTrue(underSys.of(FindingKind.OOM_KILL).stream().noneMatch(f -> f.evidence() instanceof Evidence.CgroupOomKills),
                "another sysfs root holds no counters: " + underSys);
    }

    @Test
    void ioBottleneckIsJudgedOverTheWindow() {
        byte[] a = Fixtures.ascii(" 254       0 vda 1000 0 8000 2000 1000 0 8000 2000 0 100 4000\n");
        byte[] b = Fixtures.ascii(" 254       0 vda 1100 0 8800 12000 1100 0 8800 12000 4 1050 24000\n");
        DiskStats before = new DiskStats(Duration.ofSeconds(100), DiskstatsParser.parse(Path.of("/proc/diskstats"), a, a.length));
        DiskStats after = new DiskStats(Duration.ofSeconds(101), DiskstatsParser.parse(Path.of("/proc/diskstats"), b, b.length));
        LinuxProcfs proc = proc(Fixtures.path("proc-clean"));
        var snap = proc.snapshot();
        Examination e = new Examination(proc, snap, snap, Optional.of(before), Optional.of(after), Optional.empty(),
                NOW.withSampleWindow(Duration.ofSeconds(1)), new java.util.ArrayList<>());
        List<Finding> f = new IoBottleneckCheck().run(e);
        assertEquals(1, f.size());
        Evidence.IoBottleneck io = (Evidence.IoBottleneck) f.get(0).evidence();
        assertEquals("vda", io.device());
        assertEquals(95.0, io.utilizationPercent());
        assertEquals(100.0, io.readAwaitMillis(), "10,000 ms of waiting over 100 reads");
        assertEquals(1000, io.intervalMillis());
        Examination calm = new Examination(proc, snap, snap, Optional.of(before), Optional.of(before), Optional.empty(),
                NOW.withSampleWindow(Duration.ofSeconds(1)), new java.util.ArrayList<>());
        assertEquals(List.of(), new IoBottleneckCheck().run(calm));
    }

    @Test
    void liveDeletedFileAndFullTmpfsAreFound(@TempDir Path tmp) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a tmpfs");
        Path mnt = Files.createDirectory(tmp.resolve("small"));
        io.github.procscope.testing.Commands.run("mount", "-t", "tmpfs", "-o", "size=80m,nr_inodes=64", "tmpfs", mnt.toString());
        try {
            Path big = mnt.resolve("big.bin");
            io.github.procscope.testing.Commands.run("dd", "if=/dev/zero", "of=" + big, "bs=1M", "count=64", "status=none");
            for (int i = 0; i < 58; i++) {
                Files.writeString(mnt.resolve("f" + i), "x");
            }
            Process holder = spawned.start("sh", "-c", "exec 3< \"$1\"; rm -f \"$1\"; echo held; read x", "sh", big.toString());
            assertEquals("held", Spawned.readLine(holder, Duration.ofSeconds(30)));

            Diagnosis d = Procscope.system().doctor().examine(NOW.withDiskThresholds(75, 90));
            String where = mnt.toRealPath().toString();
            Finding del = d.of(FindingKind.DELETED_OPEN_FILE).stream()
                    .filter(f -> where.equals(((Evidence.DeletedOpenFiles) f.evidence()).mountPoint())).findFirst()
                    .orElseThrow(() -> new AssertionError("no deleted-file finding on " + where + ": " + d));
            assertEquals(List.of(holder.pid()), del.pids());
            Evidence.DeletedOpenFiles de = (Evidence.DeletedOpenFiles) del.evidence();
            assertEquals(64L << 20, de.heldBytes());
            assertEquals(1, de.files());
            assertEquals(holder.pid(), de.holders().get(0).pid());
            Finding full = d.of(FindingKind.DISK_FULL).stream()
                    .filter(f -> where.equals(((Evidence.DiskFull) f.evidence()).mountPoint()))
                    .findFirst().orElseThrow(() -> new AssertionError("no DISK_FULL on " + where + ": " + d));
            int dfPercent = Integer.parseInt(io.github.procscope.testing.Commands.run("df", "--output=pcent", where)
                    .lines().skip(1).findFirst().orElseThrow().trim().replace("%", ""));
            assertEquals(java.util.OptionalInt.of(dfPercent), ((Evidence.DiskFull) full.evidence()).usePercent(),
                    "as df computes it");
            assertTrue(dfPercent >= 80, "64 MiB of 80 held by the deleted file, plus the small files");
            assertEquals(Severity.WARNING, full.severity());
            Finding inodes = d.of(FindingKind.INODES_EXHAUSTED).stream()
                    .filter(f -> where.equals(((Evidence.InodesExhausted) f.evidence()).mountPoint())).findFirst()
                    .orElseThrow(() -> new AssertionError("no INODES_EXHAUSTED on " + where + ": " + d));
            assertTrue(((Evidence.InodesExhausted) inodes.evidence()).inodesFree() <= 5, inodes.toString());
            try (OutputStream in = holder.getOutputStream()) {
                in.write('\n');
            }
            Spawned.await(Duration.ofSeconds(30), "the holder to end", () -> !holder.isAlive());
        } finally {
            spawned.close();
            io.github.procscope.testing.Commands.run("umount", mnt.toString());
        }
    }
}
