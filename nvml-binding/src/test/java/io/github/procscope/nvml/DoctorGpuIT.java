package io.github.procscope.nvml;

import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.linux.doctor.LinuxDoctor;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.NO_INSTANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The doctor's GPU checks through the NVML test double: an idle GPU holding memory, and a ghost. */
class DoctorGpuIT {

    @Test
    void idleHoldingGpuAndGhostAreFoundWithTheirPids() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        ProcessTable table = Procscope.system().processes();
        try (Spawned spawned = new Spawned()) {
            Process parent = spawned.start("sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!");
            long orphan = Long.parseLong(Spawned.readLine(parent, Duration.ofSeconds(60)).strip());
            spawned.adopt(orphan);
            Spawned.await(Duration.ofSeconds(60), "the orphan to be re-parented",
                    () -> !parent.isAlive() && table.find(orphan).map(p -> p.ppid() != parent.pid()).orElse(false));
            long adopter = table.process(orphan).ppid();
            long self = ProcessHandle.current().pid();
            NvmlDouble.ok(c.ndSetValue(0, "util.gpu", 97));
            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 0));
            NvmlDouble.ok(c.ndSetValue(1, "memory.used", 37 * GIB));
            NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) orphan, 30 * GIB, NO_INSTANCE, NO_INSTANCE));
            NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) self, 7 * GIB, NO_INSTANCE, NO_INSTANCE));
            DoctorOptions opts = DoctorOptions.defaults().withSampleWindow(Duration.ofMillis(600))
                    .withSubreapers(adopter == 1 ? Set.of() : Set.of(adopter));
            LinuxDoctor doctor = LinuxDoctor.builder(table).gpus(() -> NvmlDouble.open(NvmlDouble.FULL)).build();

            Diagnosis d = doctor.examine(opts);
            List<Finding> idle = d.of(FindingKind.GPU_IDLE_HOLDING);
            assertEquals(1, idle.size(), d.toString());
            Finding f = idle.get(0);
            Evidence.GpuIdleHolding e = (Evidence.GpuIdleHolding) f.evidence();
            assertEquals(1, e.deviceIndex());
            assertEquals(java.util.OptionalLong.of(37 * GIB), e.minMemoryUsedBytes());
            assertEquals(java.util.OptionalDouble.of(0.0), e.meanGpuUtilizationPercent());
            assertTrue(e.samples() >= 3, f.toString());
            assertEquals(List.of(Math.min(orphan, self), Math.max(orphan, self)), f.pids());

            Finding ghost = d.of(FindingKind.GPU_GHOST).stream().filter(g -> g.pids().equals(List.of(orphan)))
                    .findFirst().orElseThrow(() -> new AssertionError("no ghost " + orphan + ": " + d));
            Evidence.GpuGhost ge = (Evidence.GpuGhost) ghost.evidence();
            assertEquals("sleep", ge.comm());
            assertEquals(java.util.OptionalLong.of(30 * GIB), ge.usedMemoryBytes());
            assertTrue(d.of(FindingKind.GPU_GHOST).stream().noneMatch(g -> g.pids().contains(self)),
                    "this JVM's parent is alive");

            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 80));
            Diagnosis busy = doctor.examine(opts);
            assertEquals(List.of(), busy.of(FindingKind.GPU_IDLE_HOLDING), "the verdict flips when the GPU works");
            NvmlDouble.ok(c.ndSetValue(1, "util.gpu", 0));
            NvmlDouble.ok(c.ndSetValue(1, "memory.used", GIB / 2));
            assertEquals(List.of(), doctor.examine(opts).of(FindingKind.GPU_IDLE_HOLDING), "and when it holds little");
        }
    }

    @Test
    void withoutADriverTheGpuChecksAreSkippedWithTheReason() {
        LinuxDoctor doctor = LinuxDoctor.builder(Procscope.system().processes())
                .gpus(() -> NvmlGpus.builder().library(java.nio.file.Path.of("/nonexistent/libnvidia-ml.so.1")).open())
                .build();
        Diagnosis d = doctor.examine(DoctorOptions.defaults().withSampleWindow(Duration.ZERO));
        assertTrue(d.skipped().stream().anyMatch(s -> s.startsWith("GPUs: ")), d.skipped().toString());
        assertEquals(List.of(), d.of(FindingKind.GPU_IDLE_HOLDING));
    }
}
