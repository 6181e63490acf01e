package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessStat;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.SystemResources;
import io.github.procscope.api.ThreadInfo;
import io.github.procscope.api.UnreadableProcess;
import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.SlurmJob;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.disk.DirectoryTotal;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.disk.IoStat;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.InaccessibleGpu;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.api.memory.SystemMemory;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalMasks;
import io.github.procscope.api.signals.StopReport;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every subcommand's JSON names its fields as the API's accessors ({@link JsonNames}): the golden files (the
 * commands' output on the fixture machine) and, for commands without one, the JSON built from API values.
 */
class JsonFieldNamesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final JsonNames CONTAINER = JsonNames.of(Owner.class, Container.class);
    private static final JsonNames SLURM = JsonNames.of(SlurmJob.class);

    private static JsonNames owned(Class<?>... sources) {
        return JsonNames.of(sources).with(Owner.class).field("container", CONTAINER).field("slurm", SLURM);
    }

    private static JsonNames process() {
        return owned(ProcessInfo.class, Owner.class)
                .field("cgroup", JsonNames.of(CgroupMembership.class).map("controllerPaths"));
    }

    private static JsonNames tree() {
        return process().with(ProcessTree.class).tool("adopted").field("children", JsonFieldNamesTest::tree)
                .field("adopted", JsonFieldNamesTest::tree);
    }

    private static JsonNames gpus() {
        return JsonNames.of(Gpus.class, GpuUnavailableException.class).tool("available")
                .field("devices", JsonNames.of(GpuDevice.class, GpuSample.class)
                        .field("processes", owned(GpuProcess.class, GpuUser.class, ProcessInfo.class, Owner.class)))
                .field("inaccessibleDevices", JsonNames.of(InaccessibleGpu.class));
    }

    /** ps --by-…: the groups, and the processes the snapshot left out. */
    private static JsonNames groups(JsonNames group) {
        return JsonNames.of(ProcessSnapshot.class).tool("groups", "leftOut").field("groups", group)
                .field("unreadable", JsonNames.of(UnreadableProcess.class));
    }

    /** ps: the snapshot's processes and the ones it left out ({@code leftOut} counts them). */
    private static JsonNames listing() {
        return JsonNames.of(ProcessSnapshot.class).tool("leftOut").field("processes", process())
                .field("unreadable", JsonNames.of(UnreadableProcess.class));
    }

    @Test
    void processViews() throws IOException {
        assertNames("ps", listing());
        assertNames("ps-zombies", listing());
        assertNames("ps-by-user", groups(JsonNames.of(ProcessInfo.class).tool("processes")));
        assertNames("ps-by-pod", groups(JsonNames.of(ProcessInfo.class, Owner.class).tool("processes")));
        assertNames("ps-by-container", groups(JsonNames.of(ProcessInfo.class, Owner.class).tool("processes")
                .field("container", CONTAINER)));
        assertNames("tree-900", tree().with(ProcessSnapshot.class).tool("leftOut").field("unreadable", JsonNames.of(UnreadableProcess.class)));
        assertNames("threads-4100", JsonNames.of(ThreadInfo.class, ProcessStat.class));
        assertNames("signals-4100", JsonNames.of(Dispositions.class, SignalMasks.class, ProcessInfo.class)
                .field("threads", JsonNames.of(Dispositions.ThreadMasks.class, SignalMasks.class)));
        assertNames("watch-4100", owned(JobSample.class, ProcessKey.class).tool("processes").map("gpuMemoryBytes")
                .field("members", JsonNames.of(JobMember.class, ProcessInfo.class).map("gpuMemoryBytes"))
                .field("joined", JsonNames.of(ProcessKey.class)).field("left", JsonNames.of(ProcessKey.class)));
    }

    @Test
    void memoryFilesAndDisks() throws IOException {
        assertNames("maps-4100", JsonNames.of(MemoryMaps.class, ProcessMemory.class)
                .field("regions", JsonNames.of(MemoryRegion.class, SmapsCounters.class))
                .field("totals", JsonNames.of(MemoryTotals.class)));
        assertNames("fds-4100", JsonNames.of(OpenFd.class));
        assertNames("deleted", JsonNames.of(DeletedFilesScan.class).field("files", JsonNames.of(DeletedFile.class))
                .field("fileSystems", JsonNames.of(DeletedSpace.class)));
        assertNames("free", JsonNames.of(SystemMemory.class, SystemResources.class)
                .field("cgroupMemory", JsonNames.of(CgroupMemory.class)));
        // IoStat carries no instant: the time the tool read the counters is its own field.
        assertNames("iostat", JsonNames.of(IoStat.class).tool("time"));
        assertNames("df", JsonNames.of(FileSystemUsage.class, MountInfo.class));
        assertNames("df-all", JsonNames.of(FileSystemUsage.class, MountInfo.class));
        assertNames("du", JsonNames.of(DirectoryUsage.class).field("total", JsonNames.of(DirectoryTotal.class))
                .field("largest", JsonNames.of(DirectoryTotal.class)));
    }

    @Test
    void gpusAndTheOverview() throws IOException {
        assertNames("gpu", gpus());
        // The overview's own summary: host name, process counts, the top five by RSS, the doctor's problems.
        assertNames("overview", JsonNames.of(ProcessSnapshot.class, ProcessTable.class, SystemResources.class)
                .tool("host", "processes", "running", "zombies", "topByRss", "problems", "gpus", "leftOut")
                .field("loadAverage", JsonNames.of(io.github.procscope.api.LoadAverage.class))
                .field("memory", JsonNames.of(SystemMemory.class))
                .field("unreadable", JsonNames.of(UnreadableProcess.class))
                .field("topByRss", process())
                .field("gpus", gpus())
                .field("problems", JsonNames.of().tool("count", "kinds")));
    }

    @Test
    void aGpuThatCannotBeOpenedIsNamedAsTheException() {
        JsonNode n = GpuCommand.unavailableJson(new GpuUnavailableException(GpuUnavailableException.Reason.LIBRARY_NOT_FOUND,
                "no libnvidia-ml.so.1"));
        assertEquals("LIBRARY_NOT_FOUND", n.get("reason").asText());
        assertTrue(n.get("message").asText().endsWith("no libnvidia-ml.so.1"), n.toString());
        assertEquals(List.of(), gpus().check("gpu (unavailable)", n));
    }

    @Test
    void stopEventsAndDoctor() {
        Signal term = Signal.parse("TERM");
        StopReport r = new StopReport("tree of 42", term, Duration.ofSeconds(5), List.of(
                new StopReport.StoppedProcess(new ProcessKey(42, 100), "python3", StopReport.Ending.TERM,
                        Duration.ofMillis(300), Optional.of(new ExitStatus.Killed(term, false, ExitStatus.Source.WAIT_STATUS))),
                new StopReport.StoppedProcess(new ProcessKey(43, 101), "worker", StopReport.Ending.TERM,
                        Duration.ofMillis(310), Optional.of(new ExitStatus.Exited(0, ExitStatus.Source.WAIT_STATUS)))),
                Duration.ofMillis(320));
        JsonNode stop = StopCommand.json(r);
        assertEquals("TERM", stop.get("processes").get(0).get("exitStatus").get("signal").asText());
        assertEquals(143, stop.get("processes").get(0).get("exitStatus").get("shellStatus").asInt());
        assertEquals(List.of(), JsonNames.of(StopReport.class).field("processes", JsonNames.of(StopReport.StoppedProcess.class,
                ProcessKey.class).field("exitStatus", JsonNames.of(ExitStatus.class, ExitStatus.Exited.class,
                ExitStatus.Killed.class))).check("stop", stop));

        ProcessEvent e = new ProcessEvent(EventType.FORK, 43, OptionalLong.of(42), Optional.of(new ProcessKey(43, 101)),
                Optional.of("worker"), Instant.EPOCH, OptionalInt.empty(), OptionalInt.empty(), false, Optional.empty(),
                Optional.empty(), EventSource.NETLINK, false);
        assertEquals(List.of(), JsonNames.of(ProcessEvent.class, ProcessKey.class).check("events", EventsCommand.json(e)));

        Diagnosis d = new Diagnosis(Instant.EPOCH, List.of(new Finding(Severity.WARNING, List.of(5L), "a zombie",
                new Evidence.Zombies(1, "init", List.of(5L), List.of("defunct")), "reap it")), List.of("GPUs: none"));
        assertEquals(List.of(), JsonNames.of(Diagnosis.class).tool("leftOut").field("findings", JsonNames.of(Finding.class)
                .written("evidence")).field("unreadable", JsonNames.of(UnreadableProcess.class))
                .check("doctor", DoctorCommand.json(d)));
    }

    @Test
    void theRunReport() {
        Signal term = Signal.parse("TERM");
        Signal kill = Signal.parse("KILL");
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        io.github.procscope.api.diagnose.OomKill oom = new io.github.procscope.api.diagnose.OomKill(42, "python3",
                Optional.of(t0), OptionalLong.of(1 << 30), OptionalLong.of(1 << 29), OptionalLong.of(0),
                OptionalLong.of(0), OptionalLong.of(0), true, Optional.of("/job"), Optional.of("CONSTRAINT_MEMCG"));
        io.github.procscope.api.job.JobReport r = new io.github.procscope.api.job.JobReport(List.of("python3", "t.py"),
                42, t0, t0.plusSeconds(5), new io.github.procscope.api.job.JobEnding(
                        new ExitStatus.Killed(kill, false, ExitStatus.Source.WAIT_STATUS),
                        io.github.procscope.api.job.JobEnding.Cause.OOM_KILLED, "OOM-killed", Optional.of(oom)),
                1 << 20, 1 << 19, java.util.Map.of(0, 1L << 30), Duration.ofSeconds(3), 2,
                List.of(new io.github.procscope.api.job.Straggler(new ProcessKey(43, 101), "worker", List.of("w"), kill)),
                List.of(new io.github.procscope.api.job.ForwardedSignal(term, t0.plusSeconds(1), 2)),
                OptionalLong.of(1 << 19), 7,
                List.of(new io.github.procscope.api.job.JobEvent(io.github.procscope.api.job.JobEvent.Kind.EXITED,
                        new ProcessKey(42, 100), 1, "python3", t0.plusSeconds(5),
                        Optional.of(new ExitStatus.Killed(kill, false, ExitStatus.Source.WAIT_STATUS)))),
                0, List.of(new io.github.procscope.api.job.GpuGhost(43, "worker", 0, OptionalLong.of(1 << 20), false)),
                Optional.of(new io.github.procscope.api.job.LostOutput(4096, t0.plusSeconds(2), "No space left on device")));
        JsonNode json = RunCommand.json(r);
        JsonNames status = JsonNames.of(ExitStatus.class, ExitStatus.Exited.class, ExitStatus.Killed.class);
        assertEquals(List.of(), JsonNames.of(io.github.procscope.api.job.JobReport.class)
                .field("exit", JsonNames.of(io.github.procscope.api.job.JobEnding.class).with(ExitStatus.class,
                        ExitStatus.Exited.class, ExitStatus.Killed.class)
                        .field("oomKill", JsonNames.of(io.github.procscope.api.diagnose.OomKill.class)))
                .field("stragglers", JsonNames.of(io.github.procscope.api.job.Straggler.class, ProcessKey.class))
                .field("forwardedSignals", JsonNames.of(io.github.procscope.api.job.ForwardedSignal.class))
                .field("events", JsonNames.of(io.github.procscope.api.job.JobEvent.class, ProcessKey.class)
                        .field("status", status))
                .field("ghosts", JsonNames.of(io.github.procscope.api.job.GpuGhost.class))
                .field("lostOutput", JsonNames.of(io.github.procscope.api.job.LostOutput.class))
                .map("peakGpuMemoryBytes")
                .check("run --report", json));
        assertEquals(42, json.get("leaderPid").asLong());
        assertEquals(3.0, json.get("cpuSeconds").asDouble());
        assertEquals("OOM_KILLED", json.get("exit").get("cause").asText());
    }

    @Test
    void aFieldNamedOtherwiseThanItsAccessorIsCaught() throws IOException {
        JsonNode renamed = MAPPER.readTree("[{\"pid\": 1, \"cpuPercent\": 82.1}]");
        assertEquals(1, process().check("ps", renamed).size(), "ProcessInfo's accessor is lifetimeCpuPercent");
        JsonNode letter = MAPPER.readTree("[{\"pid\": 1, \"state\": \"S\"}]");
        assertEquals(1, process().check("ps", letter).size(), "state holds a ProcessState constant's name");
        JsonNode seconds = MAPPER.readTree("[{\"elapsedSeconds\": 1.0, \"commSeconds\": 2.0}]");
        assertEquals(1, process().check("ps", seconds).size(), "only a Duration accessor gives a ...Seconds field");
        JsonNode unshaped = MAPPER.readTree("{\"total\": {\"allocatedBytes\": 1}}");
        assertEquals(1, JsonNames.of(DirectoryUsage.class).check("du", unshaped).size(), "a nested object needs its types");
    }

    private static void assertNames(String golden, JsonNames shape) throws IOException {
        try (InputStream in = JsonFieldNamesTest.class.getResourceAsStream("/golden/" + golden + ".json")) {
            assertNotNull(in, "golden/" + golden + ".json");
            JsonNode n = MAPPER.readTree(in);
            assertTrue(n.isObject() || n.size() > 0, golden + " has something to check");
            assertEquals(List.of(), shape.check(golden, n), golden + ": fields not named as the API's accessors");
        }
    }
}
