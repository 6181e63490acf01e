package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.linux.proc.LinuxOpenFiles;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MIG devices: empty slots, their own memory and processes, their ids. */
class NvmlMigTest {
    private static final String MIG_A = "MIG-11111111-2222-3333-4444-555555555555";
    private static final String MIG_B = "MIG-66666666-7777-8888-9999-000000000000";

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    /** GPU 0 in MIG mode with slots 0 and 3 used, 1, 2 and 4..6 empty. */
    private static NvmlDouble.Control migSetup() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        int a = c.ndAddMigDevice(0, 0, MIG_A, 1, 0, 20 * GIB, 6 * GIB);
        int b = c.ndAddMigDevice(0, 3, MIG_B, 2, 0, 40 * GIB, 0);
        assertTrue(a > 0 && b > 0);
        NvmlDouble.ok(c.ndSetValue(0, "mig.max", 7));
        NvmlDouble.ok(c.ndAddProcess(a, COMPUTE, 700, 5 * GIB, 1, 0));
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 700, 5 * GIB, 1, 0));
        return c;
    }

    @Test
    void migDevicesSkipEmptySlotsAndKeepTheirSlotIndex() {
        migSetup();
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice gpu = gpus.device(0);
            assertEquals(Optional.of(true), gpu.modes().migEnabled());
            List<GpuDevice> migs = gpu.migDevices();
            assertEquals(List.of(0, 3), migs.stream().map(GpuDevice::index).toList());
            GpuDevice a = migs.get(0);
            assertTrue(a.isMigDevice());
            assertEquals(MIG_A, a.uuid());
            assertEquals(OptionalInt.of(0), a.parentIndex());
            assertEquals(OptionalInt.of(1), a.gpuInstanceId());
            assertEquals(OptionalInt.of(0), a.computeInstanceId());
            assertEquals(OptionalInt.empty(), a.minorNumber(), "MIG devices have no /dev/nvidiaN");
            assertEquals(Optional.empty(), a.deviceFile());
            assertEquals(Optional.empty(), a.pciBusId());
            assertEquals(List.of(), a.migDevices());
            assertEquals(OptionalInt.of(2), migs.get(1).gpuInstanceId());
            assertEquals(List.of(), gpus.device(1).migDevices(), "MIG off");
            assertEquals(Optional.of(MIG_B), gpus.deviceByUuid(MIG_B).map(GpuDevice::uuid));
        }
    }

    @Test
    void aMigDeviceHasItsOwnMemoryAndProcessesButNoUtilization() {
        migSetup();
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice a = gpus.device(0).migDevices().get(0);
            GpuSample s = a.sample();
            assertEquals(MIG_A, s.deviceUuid());
            assertEquals(OptionalLong.of(20 * GIB), s.memoryTotalBytes());
            assertEquals(OptionalLong.of(6 * GIB), s.memoryUsedBytes());
            assertEquals(OptionalInt.empty(), s.gpuUtilizationPercent());
            assertEquals(OptionalLong.empty(), s.powerDrawMilliwatts());
            GpuProcesses p = a.processes();
            assertEquals(1, p.processes().size());
            GpuProcess proc = p.processes().get(0);
            assertEquals(700, proc.pid());
            assertEquals(MIG_A, proc.deviceUuid());
            assertEquals(OptionalInt.of(1), proc.gpuInstanceId());
            assertEquals(OptionalInt.of(0), proc.computeInstanceId());
            assertEquals(List.of(), gpus.device(0).migDevices().get(1).processes().processes());
        }
    }

    @Test
    void usersReadTheMigListsWhenTheParentsListIsWithheld(@TempDir Path emptyProc) throws Exception {
        NvmlDouble.Control c = migSetup();
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetComputeRunningProcesses_v3", NvmlReturn.NO_PERMISSION.code()));
        Files.createDirectories(emptyProc);
        try (NvmlGpus gpus = NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)).openFiles(LinuxOpenFiles.at(emptyProc, () -> LinuxProcfs.at(emptyProc))).open()) {
            assertFalse(gpus.device(0).processes().isComplete());
            List<GpuUser> users = gpus.users(Procscope.system().processes());
            GpuUser u = users.stream().filter(x -> x.pid() == 700).findFirst().orElseThrow();
            assertEquals(List.of(MIG_A), u.gpuProcesses().stream().map(GpuProcess::deviceUuid).toList());
            assertEquals(OptionalLong.of(5 * GIB), u.usedMemoryBytes());
        }
    }

    @Test
    void theParentsAggregateListIsUsedWhenReadable(@TempDir Path emptyProc) {
        migSetup();
        try (NvmlGpus gpus = NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)).openFiles(LinuxOpenFiles.at(emptyProc, () -> LinuxProcfs.at(emptyProc))).open()) {
            GpuUser u = gpus.users(Procscope.system().processes()).stream().filter(x -> x.pid() == 700).findFirst().orElseThrow();
            assertEquals(1, u.gpuProcesses().size(), "not counted twice through the MIG device");
            assertEquals(gpus.device(0).uuid(), u.gpuProcesses().get(0).deviceUuid());
        }
    }
}
