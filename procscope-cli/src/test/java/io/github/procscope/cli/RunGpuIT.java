package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code procscope run} samples the GPU memory of the job's processes, per GPU, through the NVML test double. */
class RunGpuIT {
    @Test
    void peakGpuMemoryIsKeptPerGpuForTheJobsProcessesOnly(@TempDir Path tmp) throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset();
        Path report = tmp.resolve("r.json");
        Path pidFile = tmp.resolve("pid");
        long other = ProcessHandle.current().pid(); // not a process of the job: its 5 GiB must not count
        NvmlDouble.ok(c.ndAddProcess(0, NvmlDouble.COMPUTE, (int) other, 5 * NvmlDouble.GIB,
                NvmlDouble.NO_INSTANCE, NvmlDouble.NO_INSTANCE));
        Thread feeder = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.sleep(10);
                }
                int pid = Integer.parseInt(Files.readString(pidFile).trim());
                c.ndAddProcess(0, NvmlDouble.COMPUTE, pid, 3 * NvmlDouble.GIB, NvmlDouble.NO_INSTANCE,
                        NvmlDouble.NO_INSTANCE);
                c.ndAddProcess(1, NvmlDouble.COMPUTE, pid, NvmlDouble.GIB, NvmlDouble.NO_INSTANCE,
                        NvmlDouble.NO_INSTANCE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        NvmlDouble.with(NvmlDouble.library(), () -> {
            feeder.start();
            CliRun r = CliRun.of("run", "--report", report.toString(), "--interval", "50ms", "--forward", "none",
                    "--", "sh", "-c", "echo $$ > " + pidFile + "; exec sleep 1.5");
            feeder.join();
            assertEquals(0, r.status(), r.err());
        });
        NvmlDouble.assertClosed();
        // The double stays loaded in this JVM under NVML's own soname, so later lookups of the real library find
        // it: leave it as a machine without a usable driver, as the tests that expect no GPU assume.
        NvmlDouble.reset().ndSetInitResult(9); // NVML_ERROR_DRIVER_NOT_LOADED
        JsonNode gpu = Context.mapper().readTree(Files.readString(report)).path("peakGpuMemoryBytes");
        assertEquals(3 * NvmlDouble.GIB, gpu.path("0").asLong(), gpu.toString());
        assertEquals(NvmlDouble.GIB, gpu.path("1").asLong(), gpu.toString());
        assertFalse(gpu.has("2"));
        assertTrue(gpu.size() == 2, gpu.toString());
    }

    /**
     * GPU memory NVML still lists at the end for a process that was a member (the double keeps listing the job's
     * pid after it has ended, as a driver does for a context not torn down yet) is reported as a ghost; memory of
     * a process that never was a member is not.
     */
    @Test
    void gpuMemoryStillHeldByAFormerMemberAtTheEndIsAGhost(@TempDir Path tmp) throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset();
        Path report = tmp.resolve("r.json");
        Path pidFile = tmp.resolve("pid");
        long other = ProcessHandle.current().pid();
        NvmlDouble.ok(c.ndAddProcess(1, NvmlDouble.COMPUTE, (int) other, 5 * NvmlDouble.GIB,
                NvmlDouble.NO_INSTANCE, NvmlDouble.NO_INSTANCE));
        Thread feeder = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.sleep(10);
                }
                int pid = Integer.parseInt(Files.readString(pidFile).trim());
                c.ndAddProcess(0, NvmlDouble.COMPUTE, pid, 2 * NvmlDouble.GIB, NvmlDouble.NO_INSTANCE,
                        NvmlDouble.NO_INSTANCE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String[] worker = new String[1];
        NvmlDouble.with(NvmlDouble.library(), () -> {
            feeder.start();
            // The GPU user is a child of the job's first process, which waits for it.
            CliRun r = CliRun.of("run", "--report", report.toString(), "--interval", "50ms", "--forward", "none",
                    "--", "sh", "-c", "sh -c 'echo $$ > " + pidFile + "; exec sleep 1' ; exit 0");
            feeder.join();
            assertEquals(0, r.status(), r.err());
            worker[0] = Files.readString(pidFile).trim();
        });
        NvmlDouble.assertClosed();
        NvmlDouble.reset().ndSetInitResult(9); // NVML_ERROR_DRIVER_NOT_LOADED, as the tests that expect no GPU assume
        JsonNode ghosts = Context.mapper().readTree(Files.readString(report)).path("ghosts");
        assertEquals(1, ghosts.size(), ghosts.toString());
        JsonNode g = ghosts.get(0);
        assertEquals(Long.parseLong(worker[0]), g.path("pid").asLong(), g.toString());
        assertEquals("sleep", g.path("comm").asText(), g.toString());
        assertEquals(0, g.path("gpu").asInt());
        assertEquals(2 * NvmlDouble.GIB, g.path("usedMemoryBytes").asLong());
        assertFalse(g.path("alive").asBoolean(), "the member has ended: the memory is held for a process gone");
    }
}
