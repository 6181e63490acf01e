package io.github.procscope.nvml;

import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.linux.proc.LinuxOpenFiles;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.NO_INSTANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GPU processes joined with the process table: run roots, ghosts, pids not visible here, fd-only users. */
class GpuUsersIT {

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    /**
     * A training run under a login shell, its workers, a worker whose run died, a torchrun job, a daemon, a
     * process adopted by a subreaper and a container process NVML does not list.
     */
    private static FakeProc machine(Path dir) {
        return new FakeProc(dir)
                .process(1, "systemd", 0, 1, 1)
                .process(500, "sshd", 1, 500, 500)
                .process(600, "bash", 500, 600, 600)
                .process(700, "python", 600, 700, 600)
                .process(701, "pt_data_worker", 700, 700, 600)
                .process(702, "pt_data_worker", 700, 700, 600).fd(702, 3, "/dev/nvidiactl").fd(702, 4, "/dev/nvidia1")
                .process(800, "pt_data_worker", 1, 790, 600)
                .process(900, "nvidia-persiste", 1, 900, 900)
                .process(1000, "torchrun", 600, 1000, 600)
                .process(1001, "python", 1000, 1000, 600)
                .process(1050, "reaper", 1, 1050, 1050)
                .process(1100, "python3", 1050, 1100, 600)
                .process(1200, "python", 1, 1200, 1200).fd(1200, 5, "/dev/nvidia0");
    }

    @Test
    void everyUserIsJoinedWithItsRunAndGhostsAreFound(@TempDir Path dir) {
        FakeProc proc = machine(dir);
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        for (long pid : new long[] {700, 701, 800, 900, 1001, 1100}) {
            NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) pid, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        }
        NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, 3_999_999, 7 * GIB, NO_INSTANCE, NO_INSTANCE));
        LinuxProcfs table = LinuxProcfs.builder(proc.root()).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        List<GpuUser> users;
        try (NvmlGpus gpus = NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)).openFiles(LinuxOpenFiles.at(proc.root(), () -> table)).open()) {
            users = gpus.users(table, Set.of(1050L));
        }
        Map<Long, GpuUser> byPid = users.stream().collect(Collectors.toMap(GpuUser::pid, Function.identity()));
        assertEquals(List.of(700L, 701L, 702L, 800L, 900L, 1001L, 1100L, 1200L, 3_999_999L),
                users.stream().map(GpuUser::pid).toList());

        GpuUser main = byPid.get(700L);
        assertEquals(700, main.runRoot().orElseThrow().pid(), "bash is a boundary: python is the run's root");
        assertFalse(main.parentGone());
        assertEquals(700, byPid.get(701L).runRoot().orElseThrow().pid());
        GpuUser fdOnly = byPid.get(702L);
        assertFalse(fdOnly.listedByNvml());
        assertEquals(Set.of(1), fdOnly.openDeviceMinors());
        assertEquals(700, fdOnly.runRoot().orElseThrow().pid());

        GpuUser ghost = byPid.get(800L);
        assertTrue(ghost.ghost(), "a worker re-parented to PID 1 still holding VRAM");
        assertEquals(800, ghost.runRoot().orElseThrow().pid());
        assertEquals(OptionalLong.of(2 * GIB), ghost.usedMemoryBytes());
        assertFalse(byPid.get(900L).ghost(), "a daemon leads its own session");
        assertEquals(1000, byPid.get(1001L).runRoot().orElseThrow().pid(), "torchrun is the root");
        assertTrue(byPid.get(1100L).ghost(), "adopted by the named subreaper");
        assertEquals(1100, byPid.get(1100L).runRoot().orElseThrow().pid());
        assertEquals(Set.of(0), byPid.get(1200L).openDeviceMinors());

        GpuUser hidden = byPid.get(3_999_999L);
        assertFalse(hidden.visibleHere(), "a host pid of another namespace");
        assertTrue(hidden.runRoot().isEmpty());
        assertFalse(hidden.ghost());
        assertEquals(OptionalLong.of(7 * GIB), hidden.usedMemoryBytes());

        List<GpuUser> withoutSubreaper = GpuUsers.join(
                users.stream().flatMap(u -> u.gpuProcesses().stream()).toList(), List.of(), table.snapshot(), Set.of());
        GpuUser adopted = withoutSubreaper.stream().filter(u -> u.pid() == 1100).findFirst().orElseThrow();
        assertFalse(adopted.ghost(), "unknown subreapers look like parents");
        assertEquals(1050, adopted.runRoot().orElseThrow().pid());
    }

    @Test
    void aRealChildWhoseParentExitedIsAGhost() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ProcessTable table = Procscope.system().processes();
        try (Spawned spawned = new Spawned()) {
            Process parent = spawned.start("sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!");
            long orphan = Long.parseLong(Spawned.readLine(parent, Duration.ofSeconds(60)).strip());
            spawned.adopt(orphan);
            Spawned.await(Duration.ofSeconds(60), "the parent to exit", () -> !parent.isAlive());
            Spawned.await(Duration.ofSeconds(60), "the orphan to be re-parented",
                    () -> table.find(orphan).map(p -> p.ppid() != parent.pid()).orElse(false));
            // $! is printed right after the fork: the child may still be the shell until it has exec'd sleep
            Spawned.await(Duration.ofSeconds(60), "the orphan to run sleep",
                    () -> table.find(orphan).map(p -> p.comm().equals("sleep")).orElse(false));
            long adopter = table.process(orphan).ppid();
            Set<Long> subreapers = adopter == 1 ? Set.of() : Set.of(adopter);

            long self = ProcessHandle.current().pid();
            NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) orphan, 4 * GIB, NO_INSTANCE, NO_INSTANCE));
            NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) self, GIB, NO_INSTANCE, NO_INSTANCE));
            List<GpuUser> users;
            try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
                users = gpus.users(table, subreapers);
            }
            GpuUser ghost = users.stream().filter(u -> u.pid() == orphan).findFirst().orElseThrow();
            assertTrue(ghost.visibleHere());
            assertEquals("sleep", ghost.process().orElseThrow().comm());
            assertTrue(ghost.parentGone());
            assertTrue(ghost.ghost());
            assertEquals(orphan, ghost.runRoot().orElseThrow().pid());
            assertEquals(List.of(4 * GIB), ghost.gpuProcesses().stream().map(p -> p.usedMemoryBytes().orElseThrow()).toList());

            GpuUser me = users.stream().filter(u -> u.pid() == self).findFirst().orElseThrow();
            assertFalse(me.ghost(), "this JVM's parent is alive");
            ProcessInfo root = me.runRoot().orElseThrow();
            List<Long> lineage = new java.util.ArrayList<>(List.of(self));
            lineage.addAll(table.snapshot().tree().ancestors(self).stream().map(ProcessInfo::pid).toList());
            assertTrue(lineage.contains(root.pid()), "the run root is this JVM or an ancestor: " + root.pid());
            assertTrue(root.ppid() <= 1 || GpuUsers.DEFAULT_BOUNDARY_COMMANDS.contains(table.process(root.ppid()).comm()),
                    "the run root's parent bounds the run: " + root.ppid());
        }
    }

    @Test
    void processesNvmlListsOnSeveralGpusAreOneUser(@TempDir Path dir) {
        FakeProc proc = machine(dir);
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 1001, GIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, 1001, 3 * GIB, NO_INSTANCE, NO_INSTANCE));
        LinuxProcfs table = LinuxProcfs.builder(proc.root()).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        try (NvmlGpus gpus = NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)).openFiles(LinuxOpenFiles.at(proc.root(), () -> table)).open()) {
            GpuUser u = gpus.users(table).stream().filter(x -> x.pid() == 1001).findFirst().orElseThrow();
            assertEquals(List.of(0, 1), u.gpuProcesses().stream().map(GpuProcess::deviceIndex).toList());
            assertEquals(OptionalLong.of(4 * GIB), u.usedMemoryBytes());
        }
        assertTrue(Files.isDirectory(dir));
    }
}
