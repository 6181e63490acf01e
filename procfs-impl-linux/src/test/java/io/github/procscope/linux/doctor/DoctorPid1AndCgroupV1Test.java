package io.github.procscope.linux.doctor;

import io.github.procscope.linux.proc.CgroupOomCounters;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.LinuxSystemResources;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.diagnose.CgroupOomCount;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.testing.FixtureTrees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two findings on trees written by the test: PID 1 that is not an init and has adopted a zombie (as in a
 * container whose entry point is the application), and OOM kills counted by cgroup v1's
 * {@code memory.oom_control}.
 */
class DoctorPid1AndCgroupV1Test {
    private static final DoctorOptions NOW = DoctorOptions.defaults().withSampleWindow(Duration.ZERO);

    @Test
    void pid1ThatIsNotAnInitIsReportedWithTheZombiesItAdopted(@TempDir Path tmp) throws IOException {
        Path proc = FixtureTrees.copy(Fixtures.dir("proc-clean"), tmp.resolve("proc"));
        replaceInStat(proc.resolve("1/stat"), "(systemd)", "(python3)");
        Files.writeString(proc.resolve("1/cmdline"), "python3\0serve.py\0");
        Files.writeString(proc.resolve("1/status"), Files.readString(proc.resolve("1/status"))
                .replace("Name:\tsystemd", "Name:\tpython3"));
        // 92 ended after its parent did: adopted by PID 1, which never waits for it.
        Path stat92 = proc.resolve("92/stat");
        Files.writeString(stat92, Files.readString(stat92).replaceFirst("^92 \\(pt_data_worker\\) S 90 ",
                "92 (pt_data_worker) Z 1 "));
        LinuxProcfs table = LinuxProcfs.builder(proc).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        Diagnosis d = LinuxDoctor.builder(table)
                .kernelLog(LinuxKernelLog.at(Fixtures.dir("kmsg/clean.txt"), table.bootTime())).build().examine(NOW);

        Finding f = d.of(FindingKind.PID1_NOT_INIT).get(0);
        assertEquals(Severity.WARNING, f.severity(), "a zombie is already waiting: " + f);
        assertEquals(List.of(1L), f.pids());
        Evidence.Pid1NotInit e = (Evidence.Pid1NotInit) f.evidence();
        assertEquals("python3", e.pid1Comm());
        assertEquals("python3 serve.py", e.pid1Cmdline());
        assertEquals(1, e.adoptedZombiePids().size());
        assertEquals(List.of(1L, 92L), d.of(FindingKind.ZOMBIE).get(0).pids());
    }

    @Test
    void cgroupV1OomControlCountersAreReadPerCgroup(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        Path sys = tmp.resolve("sys");
        Files.createDirectories(proc.resolve("self"));
        Files.copy(Fixtures.dir("cgroup-v1").resolve("proc/self/mountinfo"), proc.resolve("self/mountinfo"));
        Path memory = sys.resolve("fs/cgroup/memory");
        Files.createDirectories(memory.resolve("batch/job-1"));
        Files.createDirectories(memory.resolve("batch/job-2"));
        Files.writeString(memory.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        Files.writeString(memory.resolve("batch/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\n");
        Files.writeString(memory.resolve("batch/job-1/memory.oom_control"),
                "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
        Files.writeString(memory.resolve("batch/job-2/memory.oom_control"),
                "oom_kill_disable 0\nunder_oom 1\noom_kill 0\n");

        List<CgroupOomCount> counts = CgroupOomCounters.read(LinuxSystemResources.at(proc, sys), sys);

        assertEquals(List.of(new CgroupOomCount(1, "/batch/job-1", 2, OptionalLong.empty())), counts,
                "v1 counts each cgroup's own kills; a kernel without the oom_kill line counts nothing");
    }

    private static void replaceInStat(Path stat, String from, String to) throws IOException {
        Files.writeString(stat, Files.readString(stat).replace(from, to));
    }
}
