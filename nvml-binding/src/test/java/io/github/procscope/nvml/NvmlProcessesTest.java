package io.github.procscope.nvml;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcessType;
import io.github.procscope.api.gpu.GpuProcessUtilization;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.GRAPHICS;
import static io.github.procscope.nvml.NvmlDouble.MIB;
import static io.github.procscope.nvml.NvmlDouble.MPS;
import static io.github.procscope.nvml.NvmlDouble.NOT_AVAILABLE;
import static io.github.procscope.nvml.NvmlDouble.NO_INSTANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/** The process lists: merging, sentinels, entry sizes by driver generation, the size loop, utilization. */
class NvmlProcessesTest {

    @AfterEach
    void nothingLeftInitialized() {
        for (String v : List.of(NvmlDouble.FULL, NvmlDouble.LEGACY, NvmlDouble.ANCIENT)) {
            assertEquals(0, NvmlDouble.control(v).ndInitCount(), "NVML left initialized in " + v);
        }
    }

    private static GpuProcesses processes(String variant, int device) {
        try (NvmlGpus gpus = NvmlDouble.open(variant)) {
            return gpus.device(device).processes();
        }
    }

    @Test
    void listsAreMergedByPidWithEveryType() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 4242, 30 * GIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndAddProcess(0, GRAPHICS, 4242, 30 * GIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 77, 512 * MIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndAddProcess(0, MPS, 9001, 3 * GIB, NO_INSTANCE, NO_INSTANCE));
        GpuProcesses p = processes(NvmlDouble.FULL, 0);
        assertTrue(p.isComplete());
        assertEquals(List.of(77L, 4242L, 9001L), p.processes().stream().map(GpuProcess::pid).toList());
        GpuProcess both = p.processes().get(1);
        assertEquals(Set.of(GpuProcessType.COMPUTE, GpuProcessType.GRAPHICS), both.types());
        assertEquals("C+G", both.typeLetters());
        assertEquals(OptionalLong.of(30 * GIB), both.usedMemoryBytes());
        assertEquals(OptionalInt.empty(), both.gpuInstanceId(), "0xFFFFFFFF: MIG is off");
        assertEquals(OptionalInt.empty(), both.computeInstanceId());
        assertEquals(0, both.deviceIndex());
        assertEquals("M", p.processes().get(2).typeLetters());
        assertEquals(30 * GIB + 512 * MIB + 3 * GIB, p.knownUsedMemoryBytes());
    }

    @Test
    void memoryNvmlCannotReportIsEmptyNeverMinusOne() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, 5000, NOT_AVAILABLE, NO_INSTANCE, NO_INSTANCE));
        GpuProcess p = processes(NvmlDouble.FULL, 1).processes().get(0);
        assertEquals(5000, p.pid());
        assertEquals(OptionalLong.empty(), p.usedMemoryBytes());
    }

    @Test
    void aPidOfAnotherNamespaceIsKeptAsReported() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 4_194_304, GIB, NO_INSTANCE, NO_INSTANCE));
        assertEquals(4_194_304L, processes(NvmlDouble.FULL, 0).processes().get(0).pid(), "the largest Linux pid");
    }

    @Test
    void aListWhosePidsNoLinuxCanHaveIsRefused() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 0xFFFF_FFF0, GIB, NO_INSTANCE, NO_INSTANCE));
        ProcscopeException e = assertThrows(ProcscopeException.class, () -> processes(NvmlDouble.FULL, 0));
        assertTrue(e.getMessage().contains("does not recognize"), e.getMessage());
    }

    @Test
    void thirtyTwoByteEntriesOfDriver535AreReadRight() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndSetString(-1, "driver", "535.54.03"));
        c.ndSetProcessEntrySize(32);
        for (int i = 0; i < 5; i++) {
            NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 1000 + i, (i + 1) * GIB, NO_INSTANCE, NO_INSTANCE));
        }
        List<GpuProcess> p = processes(NvmlDouble.FULL, 0).processes();
        assertEquals(List.of(1000L, 1001L, 1002L, 1003L, 1004L), p.stream().map(GpuProcess::pid).toList());
        for (int i = 0; i < 5; i++) {
            assertEquals(OptionalLong.of((i + 1) * GIB), p.get(i).usedMemoryBytes());
        }
    }

    @Test
    void theWrittenStrideOverridesAWrongGuessEitherWay() {
        // 32-byte entries from a driver outside 535.43-535.86, and 24-byte ones from a driver inside it.
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        c.ndSetProcessEntrySize(32);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 11, GIB, 1, 0));
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 12, 2 * GIB, 2, 0));
        assertEquals(List.of(11L, 12L), processes(NvmlDouble.FULL, 0).processes().stream().map(GpuProcess::pid).toList());
        NvmlDouble.ok(c.ndSetString(-1, "driver", "535.86.05"));
        c.ndSetProcessEntrySize(24);
        List<GpuProcess> p = processes(NvmlDouble.FULL, 0).processes();
        assertEquals(List.of(11L, 12L), p.stream().map(GpuProcess::pid).toList());
        assertEquals(OptionalInt.of(2), p.get(1).gpuInstanceId());
        assertEquals(OptionalLong.of(2 * GIB), p.get(1).usedMemoryBytes());
    }

    @Test
    void anyListRoundTripsWhateverTheEntrySizeAndDriver() {
        NvmlDouble.Control c = NvmlDouble.control(NvmlDouble.FULL);
        Gen<List<long[]>> lists = lists().of(longs().between(1, 4_194_304L)
                .zip(integers().between(0, 40), integers().between(-1, 6), (pid, gib, mig) ->
                        new long[] {pid, gib == 40 ? NOT_AVAILABLE : gib * GIB - 4096L * gib, mig}))
                .ofSizeBetween(0, 40);
        Gen<String> drivers = integers().between(0, 3).map(i -> List.of("535.43.02", "535.54.03", "535.104.05", "550.54.15").get(i));
        qt().withExamples(60).forAll(lists, drivers, integers().between(0, 1)).checkAssert((entries, driver, wide) -> {
            c.ndReset();
            c.ndSetString(-1, "driver", driver);
            c.ndSetProcessEntrySize(wide == 1 ? 32 : 24);
            Set<Long> pids = new HashSet<>();
            List<long[]> expected = new ArrayList<>();
            for (long[] e : entries) {
                if (pids.add(e[0])) {
                    int mig = (int) e[2];
                    NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) e[0], e[1], mig < 0 ? NO_INSTANCE : mig, mig < 0 ? NO_INSTANCE : 0));
                    expected.add(e);
                }
            }
            expected.sort((a, b) -> Long.compare(a[0], b[0]));
            List<GpuProcess> got = processes(NvmlDouble.FULL, 1).processes();
            assertEquals(expected.size(), got.size());
            for (int i = 0; i < got.size(); i++) {
                long[] e = expected.get(i);
                GpuProcess p = got.get(i);
                assertEquals(e[0], p.pid());
                assertEquals(e[1] == NOT_AVAILABLE ? OptionalLong.empty() : OptionalLong.of(e[1]), p.usedMemoryBytes());
                assertEquals(e[2] < 0 ? OptionalInt.empty() : OptionalInt.of((int) e[2]), p.gpuInstanceId());
            }
        });
        c.ndReset();
    }

    @Test
    void aListThatGrowsBetweenCallsIsReadWhole() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        for (int i = 0; i < 40; i++) {
            NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 2000 + i, GIB, NO_INSTANCE, NO_INSTANCE));
        }
        NvmlDouble.ok(c.ndSetProcessGrowth(0, COMPUTE, 25));
        List<GpuProcess> p = processes(NvmlDouble.FULL, 0).processes();
        long calls = c.ndCallCount("nvmlDeviceGetComputeRunningProcesses_v3");
        assertTrue(calls >= 2, "INSUFFICIENT_SIZE was answered at least once: " + calls);
        assertEquals(40 + 25 * (calls - 1), p.size(), "every process the driver listed, once each");
        assertEquals(p.size(), p.stream().map(GpuProcess::pid).distinct().count());
        assertTrue(p.stream().anyMatch(x -> x.pid() >= 900000), "grown entries are included");
    }

    @Test
    void aListThatNeverStopsGrowingEndsWithAClearError() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, COMPUTE, 1, GIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetComputeRunningProcesses_v3", NvmlReturn.INSUFFICIENT_SIZE.code()));
        ProcscopeException e = assertThrows(ProcscopeException.class, () -> processes(NvmlDouble.FULL, 0));
        assertTrue(e.getMessage().contains("kept answering NVML_ERROR_INSUFFICIENT_SIZE"), e.getMessage());
    }

    @Test
    void aWithheldListIsSaidSo() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(0, GRAPHICS, 300, GIB, NO_INSTANCE, NO_INSTANCE));
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetComputeRunningProcesses_v3", NvmlReturn.NO_PERMISSION.code()));
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetMPSComputeRunningProcesses_v3", NvmlReturn.NOT_SUPPORTED.code()));
        GpuProcesses p = processes(NvmlDouble.FULL, 0);
        assertFalse(p.isComplete());
        assertEquals(Map.of(GpuProcessType.COMPUTE, NvmlReturn.NO_PERMISSION,
                GpuProcessType.MPS_COMPUTE, NvmlReturn.NOT_SUPPORTED), p.withheld());
        assertEquals(List.of(300L), p.processes().stream().map(GpuProcess::pid).toList());
    }

    @Test
    void aFailingListThrows() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetGraphicsRunningProcesses_v3", 999));
        NvmlException e = assertThrows(NvmlException.class, () -> processes(NvmlDouble.FULL, 1));
        assertEquals("nvmlDeviceGetGraphicsRunningProcesses_v3", e.function());
    }

    @Test
    void olderDriversAreReadThroughV2AndV1() {
        NvmlDouble.Control legacy = NvmlDouble.reset(NvmlDouble.LEGACY);
        NvmlDouble.ok(legacy.ndAddProcess(0, COMPUTE, 321, 5 * GIB, 3, 1));
        GpuProcess p = processes(NvmlDouble.LEGACY, 0).processes().get(0);
        assertEquals(321, p.pid());
        assertEquals(OptionalInt.of(3), p.gpuInstanceId());
        assertEquals(OptionalInt.of(1), p.computeInstanceId());
        assertTrue(legacy.ndCallCount("nvmlDeviceGetComputeRunningProcesses_v2") >= 1);

        NvmlDouble.Control ancient = NvmlDouble.reset(NvmlDouble.ANCIENT);
        NvmlDouble.ok(ancient.ndAddProcess(0, COMPUTE, 654, 6 * GIB, 3, 1));
        NvmlDouble.ok(ancient.ndAddProcess(0, COMPUTE, 655, NOT_AVAILABLE, 3, 1));
        List<GpuProcess> v1 = processes(NvmlDouble.ANCIENT, 0).processes();
        assertEquals(654, v1.get(0).pid());
        assertEquals(OptionalLong.of(6 * GIB), v1.get(0).usedMemoryBytes());
        assertEquals(OptionalInt.empty(), v1.get(0).gpuInstanceId(), "v1 entries have no MIG ids");
        assertEquals(OptionalLong.empty(), v1.get(1).usedMemoryBytes());
        assertTrue(ancient.ndCallCount("nvmlDeviceGetComputeRunningProcesses") >= 1);
    }

    @Test
    void perProcessUtilizationSince() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        long t1 = 1_700_000_000_000_000L;
        long t2 = t1 + 1_500_000L;
        NvmlDouble.ok(c.ndAddUtilizationSample(0, 4242, t1, 90, 40, 0, 0));
        NvmlDouble.ok(c.ndAddUtilizationSample(0, 77, t2, 10, 5, 1, 2));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            List<GpuProcessUtilization> all = gpus.device(0).processUtilization(Instant.EPOCH).orElseThrow();
            assertEquals(List.of(77L, 4242L), all.stream().map(GpuProcessUtilization::pid).toList());
            GpuProcessUtilization u = all.get(1);
            assertEquals(90, u.smPercent());
            assertEquals(40, u.memoryPercent());
            assertEquals(Instant.ofEpochSecond(1_700_000_000L), u.timestamp());
            assertEquals(OptionalInt.of(0), u.jpegPercent());
            List<GpuProcessUtilization> since = gpus.device(0).processUtilization(u.timestamp()).orElseThrow();
            assertEquals(List.of(77L), since.stream().map(GpuProcessUtilization::pid).toList());
            assertEquals(Instant.ofEpochSecond(1_700_000_001L, 500_000_000), since.get(0).timestamp());
            assertEquals(Optional.of(List.of()), gpus.device(0).processUtilization(since.get(0).timestamp()),
                    "nothing newer: an empty list");
            assertEquals(Optional.of(List.of()), gpus.device(1).processUtilization(Instant.EPOCH));
        }
        NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetProcessesUtilizationInfo", NvmlReturn.NOT_SUPPORTED.code()));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(Optional.empty(), gpus.device(1).processUtilization(Instant.EPOCH), "not supported");
        }
    }

    @Test
    void perProcessUtilizationThroughTheOlderQuery() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.LEGACY);
        NvmlDouble.ok(c.ndAddUtilizationSample(1, 31, 5_000_000L, 55, 20, 0, 0));
        NvmlDouble.ok(c.ndAddUtilizationSample(1, 32, 6_000_000L, 15, 2, 0, 0));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.LEGACY)) {
            List<GpuProcessUtilization> all = gpus.device(1).processUtilization(Instant.EPOCH).orElseThrow();
            assertEquals(2, all.size());
            assertEquals(55, all.get(0).smPercent());
            assertEquals(OptionalInt.empty(), all.get(0).jpegPercent(), "the older query has no JPEG figure");
            assertEquals(List.of(32L), gpus.device(1).processUtilization(Instant.ofEpochSecond(5)).orElseThrow()
                    .stream().map(GpuProcessUtilization::pid).toList());
        }
    }
}
