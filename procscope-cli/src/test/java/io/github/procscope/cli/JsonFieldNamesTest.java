package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.SlurmJob;
import io.github.procscope.api.core.ProcessKey;
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
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.api.process.UnreadableProcess;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalMasks;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.api.system.SystemResources;
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

    /*
     * Every component of a record a JSON object is made from is one of its fields, but those a shape lists with
     * omits(...), each with the reason the view leaves it out: a component the API gains fails this test until
     * the view writes it or says why not.
     */
    private static final String OWNER_WHY = "the pod's uid and QoS class are written in container (a pod is a "
            + "container's); the systemd slice is not written: the unit names the workload";
    private static final String CONTAINER_WHY = "container carries the container and its pod; the process's other "
            + "owners are the process's own fields";
    private static final String LISTING_WHY = "a process row carries ps's columns and the owner: the raw kernel "
            + "records (stat, statm, status, io), the command line, the terminal and open fds are per-process "
            + "detail (threads, fds, the library)";
    private static final String[] LISTING_LEAVES = {"stat", "statm", "status", "io", "cmdline", "tty", "openFds"};
    private static final String[] ROW_LEAVES = {"stat", "statm", "status", "io", "cmdline", "tty", "openFds",
            "cgroup", "elapsed", "startTime", "uid", "user"};
    private static final String GROUP_WHY = "a group sums processes: only what names the group comes from them";
    private static final String FLAT_WHY = "its fields are written flat in this object";
    private static final String KEY_WHY = "a process is named by its pid; the start time that makes the key "
            + "unique is checked by the tool, not printed";

    private static final JsonNames CONTAINER = JsonNames.of(Container.class).omits(Owner.class, CONTAINER_WHY,
            "container", "slurm", "systemdSlice", "systemdUnit");
    private static final JsonNames SLURM = JsonNames.of(SlurmJob.class);

    private static JsonNames owned(Class<?>... sources) {
        return JsonNames.of(sources).omits(Owner.class, OWNER_WHY, "podUid", "qosClass", "systemdSlice")
                .field("container", CONTAINER).field("slurm", SLURM);
    }

    private static JsonNames process() {
        return owned(ProcessInfo.class, Owner.class).omits(ProcessInfo.class, LISTING_WHY, LISTING_LEAVES)
                .field("cgroup", JsonNames.of(CgroupMembership.class).map("controllerPaths")
                        .omits(CgroupMembership.class, "the owner is written flat in the process (container, slurm, "
                                + "systemdUnit)", "owner"));
    }

    private static JsonNames tree() {
        return process().with(ProcessTree.class).tool("adopted").omits(ProcessInfo.class, "a tree node carries what "
                        + "the tree shows (pid, ppid, state, RSS, threads, comm, owner); elapsed time, start and user are ps's",
                        "elapsed", "startTime", "uid", "user")
                .field("children", JsonFieldNamesTest::tree).field("adopted", JsonFieldNamesTest::tree);
    }

    private static final String[] GPU_COUNTERS = {"takenAt", "deviceIndex", "deviceUuid", "memory", "fanSpeedPercent",
            "memoryTemperatureCelsius", "powerDrawMilliwatts", "powerManagementLimitMilliwatts",
            "enforcedPowerLimitMilliwatts", "energyMillijoules", "graphicsClockMhz", "memoryClockMhz", "maxSmClockMhz",
            "maxMemoryClockMhz", "clockEventReasonsMask", "encoderUtilizationPercent", "decoderUtilizationPercent",
            "eccErrors", "nvlinkDataRxBytes", "nvlinkDataTxBytes", "vgpuLicensed"};

    private static JsonNames gpus(String... moreLeftOut) {
        List<String> leftOut = new java.util.ArrayList<>(List.of(GPU_COUNTERS));
        leftOut.addAll(List.of(moreLeftOut));
        return JsonNames.of(Gpus.class, GpuUnavailableException.class).tool("available")
                .field("devices", JsonNames.of(GpuDevice.class, GpuSample.class)
                        .omits(GpuSample.class, "a device carries nvidia-smi's table (memory flat, utilisation, "
                                + "temperature, power state, SM clock); the other counters are gpu --query's and the "
                                + "library's GpuSample; the device's index and uuid are its own", leftOut.toArray(String[]::new))
                        .field("processes", owned(GpuProcess.class, GpuUser.class, ProcessInfo.class, Owner.class)
                                .omits(GpuProcess.class, "a process is listed under its device; MIG instance ids and "
                                        + "process types are the library's", "deviceIndex", "deviceUuid", "types",
                                        "gpuInstanceId", "computeInstanceId")
                                .omits(GpuUser.class, "a row is one of the user's GPU processes, its process's fields "
                                        + "flat; device minors, the run root and parentGone serve the doctor's ghost check",
                                        "gpuProcesses", "openDeviceMinors", "process", "runRoot", "parentGone")
                                .omits(ProcessInfo.class, "a GPU process row carries nvidia-smi's process columns and "
                                        + "the owner", ROW_LEAVES)))
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
        assertNames("ps-by-user", groups(JsonNames.of(ProcessInfo.class).tool("processes")
                .omits(ProcessInfo.class, GROUP_WHY, "stat", "statm", "status", "io", "cmdline", "tty", "openFds",
                        "cgroup", "elapsed", "startTime")));
        assertNames("ps-by-pod", groups(JsonNames.of(ProcessInfo.class, Owner.class).tool("processes")
                .omits(ProcessInfo.class, GROUP_WHY, ROW_LEAVES)
                .omits(Owner.class, GROUP_WHY, "container", "slurm", "systemdSlice", "systemdUnit")));
        assertNames("ps-by-container", groups(JsonNames.of(ProcessInfo.class, Owner.class).tool("processes")
                .omits(ProcessInfo.class, GROUP_WHY, ROW_LEAVES)
                .omits(Owner.class, GROUP_WHY, "podUid", "qosClass", "slurm", "systemdSlice", "systemdUnit")
                .field("container", CONTAINER)));
        assertNames("tree-900", tree().with(ProcessSnapshot.class).tool("leftOut").field("unreadable", JsonNames.of(UnreadableProcess.class)));
        assertNames("threads-4100", JsonNames.of(ThreadInfo.class, ProcessStat.class)
                .omits(ThreadInfo.class, "a thread row carries ps -L's columns; the raw records are the library's",
                        "tgid", "startTime", "stat", "status", "io", "wchan")
                .omits(ProcessStat.class, "a thread row carries ps -L's columns; the rest of /proc/PID/task/TID/stat "
                        + "is the library's ProcessStat", statLeftOut()));
        assertNames("signals-4100", JsonNames.of(Dispositions.class, SignalMasks.class, ProcessInfo.class)
                .omits(Dispositions.class, FLAT_WHY, "process")
                .omits(SignalMasks.class, "pending is the process's and its threads' shared pending set together",
                        "sharedPending")
                .omits(ProcessInfo.class, "the process is named by pid and comm", ROW_LEAVES)
                .field("threads", JsonNames.of(Dispositions.ThreadMasks.class, SignalMasks.class)
                        .omits(Dispositions.ThreadMasks.class, FLAT_WHY, "masks")
                        .omits(SignalMasks.class, "dispositions (ignored, caught) and the shared pending set are the "
                                + "process's, written once", "ignored", "caught", "sharedPending")));
        assertNames("watch-4100", owned(JobSample.class, ProcessKey.class).tool("processes").map("gpuMemoryBytes")
                .omits(JobSample.class, "a row names its root by pid; how the tree is found is said on the live line; "
                        + "uptime is only the CPU figure's clock", "root", "uptime", "discovery", "fallbackReason")
                .omits(ProcessKey.class, KEY_WHY, "startTimeTicks", "pidfsInode")
                .field("members", JsonNames.of(JobMember.class, ProcessInfo.class).map("gpuMemoryBytes")
                        .omits(JobMember.class, FLAT_WHY + "; watch samples neither PSS nor open fds", "process",
                                "pssBytes", "openFds")
                        .omits(ProcessInfo.class, "a member carries what the row sums (RSS, threads) and names it",
                                ROW_LEAVES))
                .field("joined", JsonNames.of(ProcessKey.class)).field("left", JsonNames.of(ProcessKey.class)));
    }

    @Test
    void memoryFilesAndDisks() throws IOException {
        String pmap = "a region carries pmap -x's columns; the other smaps counters are the library's SmapsCounters";
        assertNames("maps-4100", JsonNames.of(MemoryMaps.class, ProcessMemory.class)
                .omits(MemoryMaps.class, "the pid is the command line's", "pid")
                .field("regions", JsonNames.of(MemoryRegion.class, SmapsCounters.class)
                        .omits(MemoryRegion.class, FLAT_WHY, "usage")
                        .omits(SmapsCounters.class, pmap, "anonymousBytes", "anonHugePagesBytes", "filePmdMappedBytes",
                                "ksmBytes", "lazyFreeBytes", "lockedBytes", "privateCleanBytes", "privateDirtyBytes",
                                "privateHugetlbBytes", "pssAnonBytes", "pssDirtyBytes", "pssFileBytes", "pssShmemBytes",
                                "referencedBytes", "sharedCleanBytes", "sharedDirtyBytes", "sharedHugetlbBytes",
                                "shmemPmdMappedBytes", "swapPssBytes"))
                .field("totals", JsonNames.of(MemoryTotals.class).omits(MemoryTotals.class, pmap
                        + "; the pid and where the totals were read are the document's", "counters", "pid", "source")));
        assertNames("fds-4100", JsonNames.of(OpenFd.class).omits(OpenFd.class, "a row carries lsof's columns; "
                + "device, inode, link count, mount and size are the library's OpenFd", "pid", "device", "inode",
                "linkCount", "mountId", "openedDevice", "allocatedBytes"));
        assertNames("deleted", JsonNames.of(DeletedFilesScan.class)
                .omits(DeletedFilesScan.class, "a scan is printed as it is made", "takenAt")
                .field("files", JsonNames.of(DeletedFile.class).omits(DeletedFile.class, "a row carries lsof +L1's "
                        + "columns, its holder flat", "holder", "device", "inode"))
                .field("fileSystems", JsonNames.of(DeletedSpace.class).omits(DeletedSpace.class,
                        "a file system is named by its mount point", "device")));
        String free = "free's figures; the kernel's other meminfo fields are the library's SystemMemory";
        assertNames("free", JsonNames.of(SystemMemory.class, SystemResources.class)
                .omits(SystemMemory.class, free, "cachedBytes", "reclaimableSlabBytes", "fieldsBytes", "counts")
                .field("cgroupMemory", JsonNames.of(CgroupMemory.class)));
        // IoStat carries no instant: the time the tool read the counters is its own field.
        String[] iostatLeftOut = {"device", "readMergesPerSecond", "writeMergesPerSecond", "readMergePercent",
                "writeMergePercent", "averageReadRequestKilobytes", "averageWriteRequestKilobytes",
                "discardsPerSecond", "discardKilobytesPerSecond", "discardMergesPerSecond", "discardMergePercent",
                "discardAwaitMillis", "averageDiscardRequestKilobytes", "flushesPerSecond", "flushAwaitMillis"};
        assertNames("iostat", JsonNames.of(IoStat.class).tool("time").omits(IoStat.class, "iostat -x's main columns,"
                + " the device by name; merges, discards and flushes are the library's IoStat", iostatLeftOut));
        String df = "df's columns, the mount flat; the mount's ids, options and root are the library's MountInfo";
        String[] mountLeftOut = {"mountId", "parentId", "device", "root", "mountOptions", "optionalFields",
                "superOptions"};
        assertNames("df", JsonNames.of(FileSystemUsage.class, MountInfo.class)
                .omits(FileSystemUsage.class, df, "mount", "blockSizeBytes", "freeBytes")
                .omits(MountInfo.class, df, mountLeftOut));
        assertNames("df-all", JsonNames.of(FileSystemUsage.class, MountInfo.class)
                .omits(FileSystemUsage.class, df, "mount", "blockSizeBytes", "freeBytes")
                .omits(MountInfo.class, df, mountLeftOut));
        assertNames("du", JsonNames.of(DirectoryUsage.class).field("total", JsonNames.of(DirectoryTotal.class))
                .field("largest", JsonNames.of(DirectoryTotal.class)));
    }

    @Test
    void gpusAndTheOverview() throws IOException {
        assertNames("gpu", gpus());
        // The overview's own summary: host name, process counts, the top five by RSS, the doctor's problems.
        assertNames("overview", JsonNames.of(ProcessSnapshot.class, ProcessTable.class, SystemResources.class)
                .tool("host", "processes", "running", "zombies", "topByRss", "problems", "gpus", "leftOut")
                .field("loadAverage", JsonNames.of(io.github.procscope.api.system.LoadAverage.class)
                        .omits(io.github.procscope.api.system.LoadAverage.class, "uptime's three averages", "lastPid"))
                .field("memory", JsonNames.of(SystemMemory.class).omits(SystemMemory.class, "the overview's memory "
                        + "line: total, used, available, swap", "freeBytes", "buffersBytes", "cachedBytes", "sharedBytes",
                        "reclaimableSlabBytes", "availableSource", "fieldsBytes", "counts"))
                .field("unreadable", JsonNames.of(UnreadableProcess.class))
                .field("topByRss", process())
                .field("gpus", gpus("memoryUtilizationPercent", "performanceState", "smClockMhz",
                        "temperatureCelsius"))
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
        assertEquals(List.of(), JsonNames.of(StopReport.class)
                .omits(StopReport.class, "the target is the command line's", "target")
                .field("processes", JsonNames.of(StopReport.StoppedProcess.class, ProcessKey.class)
                        .omits(StopReport.StoppedProcess.class, FLAT_WHY, "key")
                        .omits(ProcessKey.class, KEY_WHY, "startTimeTicks", "pidfsInode")
                        .field("exitStatus", JsonNames.of(ExitStatus.class, ExitStatus.Exited.class,
                                ExitStatus.Killed.class))).check("stop", stop));

        ProcessEvent e = new ProcessEvent(EventType.FORK, 43, OptionalLong.of(42), Optional.of(new ProcessKey(43, 101)),
                Optional.of("worker"), Instant.EPOCH, OptionalInt.empty(), OptionalInt.empty(), false, Optional.empty(),
                Optional.empty(), EventSource.NETLINK, false);
        assertEquals(List.of(), JsonNames.of(ProcessEvent.class, ProcessKey.class)
                .omits(ProcessEvent.class, FLAT_WHY + "; whether an exit status was read is the status being null",
                        "key", "exitStatusKnown")
                .omits(ProcessKey.class, "the pidfd inode is an identity the tool checks, not an event's fact",
                        "pidfsInode")
                .check("events", EventsCommand.json(e)));
        JsonNode fork = EventsCommand.json(e);
        assertEquals("FORK", fork.get("type").asText());
        assertEquals(42, fork.get("ppid").asLong());
        assertEquals(101, fork.get("startTimeTicks").asLong());
        assertEquals("1970-01-01T00:00:00Z", fork.get("time").asText());
        assertTrue(fork.get("coreDumped").isNull() && fork.get("exitCode").isNull() && fork.get("cause").isNull(),
                fork.toString());

        Diagnosis d = new Diagnosis(Instant.EPOCH, List.of(new Finding(Severity.WARNING, List.of(5L), "a zombie",
                new Evidence.Zombies(1, "init", List.of(5L), List.of("defunct")), "reap it")), List.of("GPUs: none"));
        assertEquals(List.of(), JsonNames.of(Diagnosis.class).tool("leftOut").field("findings", JsonNames.of(Finding.class)
                .written("evidence")).field("unreadable", JsonNames.of(UnreadableProcess.class))
                .check("doctor", DoctorCommand.json(d)));
    }

    /** @return a run report with every part filled: an OOM kill, a straggler, a forwarded signal, an event, a ghost */
    private static io.github.procscope.api.job.JobReport report() {
        Signal term = Signal.parse("TERM");
        Signal kill = Signal.parse("KILL");
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        io.github.procscope.api.diagnose.OomKill oom = new io.github.procscope.api.diagnose.OomKill(42, "python3",
                Optional.of(t0), OptionalLong.of(1 << 30), OptionalLong.of(1 << 29), OptionalLong.of(0),
                OptionalLong.of(0), OptionalLong.of(0), true, Optional.of("/job"), Optional.of("CONSTRAINT_MEMCG"));
        return new io.github.procscope.api.job.JobReport(List.of("python3", "t.py"),
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
    }

    private static final String WAIT_STATUS = "a job's statuses are all the kernel's wait status";

    /** @return the shape of a job's ending: its status flat, the cause, the explanation, the OOM kill */
    private static JsonNames ending() {
        return JsonNames.of(io.github.procscope.api.job.JobEnding.class).with(ExitStatus.class,
                        ExitStatus.Exited.class, ExitStatus.Killed.class)
                .omits(io.github.procscope.api.job.JobEnding.class, FLAT_WHY, "status")
                .omits(ExitStatus.Exited.class, WAIT_STATUS, "source")
                .omits(ExitStatus.Killed.class, WAIT_STATUS, "source")
                .field("oomKill", JsonNames.of(io.github.procscope.api.diagnose.OomKill.class));
    }

    /** @return the shape of the run report ({@code run --report}, and a job's {@code report} in {@code jobs}) */
    private static JsonNames reportShape() {
        JsonNames status = JsonNames.of(ExitStatus.class, ExitStatus.Exited.class, ExitStatus.Killed.class)
                .omits(ExitStatus.Exited.class, WAIT_STATUS, "source").omits(ExitStatus.Killed.class, WAIT_STATUS, "source");
        return JsonNames.of(io.github.procscope.api.job.JobReport.class)
                .field("exit", ending())
                .field("stragglers", JsonNames.of(io.github.procscope.api.job.Straggler.class, ProcessKey.class)
                        .omits(io.github.procscope.api.job.Straggler.class, FLAT_WHY, "process")
                        .omits(ProcessKey.class, KEY_WHY, "startTimeTicks", "pidfsInode"))
                .field("forwardedSignals", JsonNames.of(io.github.procscope.api.job.ForwardedSignal.class))
                .field("events", JsonNames.of(io.github.procscope.api.job.JobEvent.class, ProcessKey.class)
                        .omits(io.github.procscope.api.job.JobEvent.class, FLAT_WHY, "process")
                        .omits(ProcessKey.class, KEY_WHY, "startTimeTicks", "pidfsInode")
                        .field("status", status))
                .field("ghosts", JsonNames.of(io.github.procscope.api.job.GpuGhost.class))
                .field("lostOutput", JsonNames.of(io.github.procscope.api.job.LostOutput.class))
                .map("peakGpuMemoryBytes");
    }

    @Test
    void theRunReport() {
        JsonNode json = RunCommand.json(report());
        assertEquals(List.of(), reportShape().check("run --report", json));
        assertEquals(42, json.get("leaderPid").asLong());
        assertEquals(3.0, json.get("cpuSeconds").asDouble());
        assertEquals("OOM_KILLED", json.get("exit").get("cause").asText());
        assertEquals("SIGKILL", json.get("exit").get("signal").asText());
        assertTrue(json.get("exit").get("code").isNull(), json.toString());
        assertEquals(43, json.get("stragglers").get(0).get("pid").asLong());
        assertEquals("SIGTERM", json.get("forwardedSignals").get(0).get("signal").asText());
        assertEquals(1L << 30, json.get("peakGpuMemoryBytes").get("0").asLong());
    }

    /**
     * {@code jobs --json}: a job's row names what its record says as the run report does (its command, start and
     * end, its report whole, the report's exit), and {@code run --detach --json} names the job as the row does.
     */
    @Test
    void jobsAndTheDetachedStart(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        java.nio.file.Path state = tmp.resolve("state");
        JobStore store = JobStore.open(state, true);
        String id = "20261204-223111";
        java.nio.file.Path log = tmp.resolve("logs").resolve(id + ".log");
        io.github.procscope.api.job.JobReport r = report();
        com.fasterxml.jackson.databind.node.ObjectNode rec = Json.object();
        rec.put("id", id);
        rec.put("state", "ended");
        Json.putStrings(rec, "command", r.command());
        Json.put(rec, "startTime", r.startTime());
        Json.put(rec, "endTime", r.endTime());
        rec.put("log", log.toString());
        rec.putNull("reportFile");
        rec.putObject("supervisor").put("pid", 4_000_000).put("startTimeTicks", 1);
        rec.putObject("job").put("pid", 4_000_001).put("startTimeTicks", 2);
        rec.set("report", RunCommand.json(r));
        assertTrue(store.create(id, rec));

        CliRun jobs = CliRun.of("--json", "jobs", "--state-dir", state.toString());
        assertEquals(0, jobs.status(), jobs.err());
        JsonNode rows;
        JsonNode written;
        try {
            rows = MAPPER.readTree(jobs.out());
            written = MAPPER.readTree(RunCommand.json(r).toString());
        } catch (IOException e) {
            throw new AssertionError(jobs.out(), e);
        }
        assertEquals(1, rows.size(), jobs.out());
        JsonNode row = rows.get(0);
        String own = "a job's row names the job and what the tool finds now; the rest is its report's";
        assertEquals(List.of(), JsonNames.of(io.github.procscope.api.job.JobReport.class)
                .tool("id", "status", "state", "pid", "supervisorPid", "supervisorAlive", "log", "reportFile", "report")
                .omits(io.github.procscope.api.job.JobReport.class, own, "leaderPid", "peakRssBytes",
                        "peakProcessRssBytes", "peakGpuMemoryBytes", "cpu", "processesStarted", "stragglers",
                        "forwardedSignals", "peakPssBytes", "peakThreads", "events", "eventsOmitted", "ghosts",
                        "lostOutput")
                .field("exit", ending()).field("report", reportShape())
                .check("jobs", row));
        assertEquals(written, row.get("report"), "the report as run wrote it");
        assertEquals(4_000_001, row.get("pid").asLong());
        assertEquals(4_000_000, row.get("supervisorPid").asLong());
        assertEquals("OOM-killed; log lost 4096 bytes", row.get("status").asText());

        // run --detach --json: the fields name the job as jobs --json does, with the same value types
        JsonNode started = Json.of(new Detacher.Started(id, 4_000_001, 4_000_000, log));
        for (java.util.Iterator<String> it = started.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            assertTrue(row.has(name), "run --detach names " + name + " as jobs does not: " + row);
            assertEquals(row.get(name).getNodeType(), started.get(name).getNodeType(), name);
            assertEquals(row.get(name).isIntegralNumber(), started.get(name).isIntegralNumber(), name);
        }
        assertEquals(row.get("log"), started.get("log"));
    }

    /** {@code gpu --watch --json}: each row is a sample's main counters, named as {@link GpuSample}'s accessors. */
    @Test
    void gpuWatchRows() throws Exception {
        NvmlDouble.trainingNode();
        MachineFixture m = MachineFixture.create();
        try {
            NvmlDouble.with(NvmlDouble.library(), () -> {
                CliRun r = CliRun.of("--procfs-root", m.proc().toString(), "--sysfs-root", m.sys().toString(), "--json",
                        "gpu", "--watch", "10ms", "--count", "2");
                assertEquals(0, r.status(), r.err());
                List<String> lines = r.out().lines().toList();
                assertEquals(4, lines.size(), "two rounds of two GPUs: " + r.out());
                for (String line : lines) {
                    assertEquals(List.of(), JsonNames.of(GpuSample.class).omits(GpuSample.class, "dmon's columns; "
                                    + "the other counters are gpu --query's and the library's GpuSample", "memory",
                            "powerDrawMilliwatts", "enforcedPowerLimitMilliwatts", "powerManagementLimitMilliwatts",
                            "energyMillijoules", "graphicsClockMhz", "maxSmClockMhz", "maxMemoryClockMhz",
                            "performanceState", "fanSpeedPercent", "clockEventReasonsMask", "eccErrors",
                            "memoryTemperatureCelsius", "encoderUtilizationPercent", "decoderUtilizationPercent",
                            "nvlinkDataTxBytes", "nvlinkDataRxBytes", "vgpuLicensed").check("gpu --watch", MAPPER.readTree(line)));
                }
                assertEquals(10737418240L, MAPPER.readTree(lines.get(0)).get("memoryUsedBytes").asLong());
            });
        } finally {
            m.close();
        }
        NvmlDouble.assertClosed();
    }

    /**
     * The classes that may build JSON as a tree: {@code Json} (its helpers for the job record) and the job record's
     * writers; {@code jobs} and {@code logs} read that record. Every command's output is a record ({@code Json.of}).
     */
    private static final java.util.Set<String> TREE_BUILDERS = java.util.Set.of("Json.java", "Detacher.java",
            "JobStore.java");
    private static final java.util.Set<String> RECORD_READERS = java.util.Set.of("JobsCommand.java",
            "LogsCommand.java");
    private static final java.util.regex.Pattern BUILDS_A_TREE = java.util.regex.Pattern.compile(
            "\\bArrayNode\\b|Json\\.object\\(|Json\\.array\\(|create(Object|Array)Node\\(|\\.put(Object|Array|Null)\\("
                    + "|\\.add(Object|Array)\\(|\\.putPOJO\\(");
    private static final java.util.regex.Pattern NAMES_A_TREE = java.util.regex.Pattern.compile("\\bObjectNode\\b");

    /** @return the lines of a source file that build JSON by hand (name its tree types, or build one) */
    private static List<String> handBuilt(String file, List<String> lines) {
        List<String> out = new java.util.ArrayList<>();
        if (TREE_BUILDERS.contains(file)) {
            return out;
        }
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (BUILDS_A_TREE.matcher(l).find() || (!RECORD_READERS.contains(file) && NAMES_A_TREE.matcher(l).find())) {
                out.add(file + ":" + (i + 1) + ": " + l.trim());
            }
        }
        return out;
    }

    @Test
    void noCommandBuildsItsJsonByHand() throws IOException {
        java.nio.file.Path cli = java.nio.file.Path.of("src/main/java/io/github/procscope/cli");
        assertTrue(java.nio.file.Files.isDirectory(cli), "run from the module directory: " + cli.toAbsolutePath());
        List<String> offenders = new java.util.ArrayList<>();
        int files = 0;
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.walk(cli)) {
            for (java.nio.file.Path f : (Iterable<java.nio.file.Path>) s.filter(x -> x.toString().endsWith(".java"))::iterator) {
                files++;
                offenders.addAll(handBuilt(f.getFileName().toString(), java.nio.file.Files.readAllLines(f)));
            }
        }
        assertTrue(files > 20, "found the CLI's sources: " + files);
        assertEquals(List.of(), offenders, "a command's JSON is a record written by Json.of, not a tree built by hand");
        // The check finds what it is for: a tree built in a command, or one named outside the job record's readers.
        assertEquals(2, handBuilt("PsCommand.java", List.of("ObjectNode o = Json.object();", "o.putArray(\"x\");",
                "ctx.printJson(Json.of(view));")).size());
        assertEquals(1, handBuilt("DfCommand.java", List.of("static ObjectNode json(FileSystemUsage f) {")).size());
        assertEquals(0, handBuilt("JobsCommand.java", List.of("static String status(Context ctx, ObjectNode r) {"))
                .size());
    }

    /** @return the mismatches of field names (not the components a partial object lacks) */
    private static List<String> misnamed(JsonNames shape, String where, JsonNode n) {
        return shape.check(where, n).stream().filter(m -> !m.contains(": carries no ")).toList();
    }

    @Test
    void aRecordComponentTheJsonLacksIsCaught() throws IOException {
        JsonNode ps;
        try (InputStream in = JsonFieldNamesTest.class.getResourceAsStream("/golden/ps.json")) {
            ps = MAPPER.readTree(in);
        }
        assertEquals(List.of(), listing().check("ps", ps));
        // A component the view stops writing (or one the API gains) is named, with what to do.
        ((com.fasterxml.jackson.databind.node.ObjectNode) ps.get("processes").get(0)).remove("startTime");
        assertEquals(List.of("ps.processes[0]: carries no ProcessInfo.startTime(): write it, or say why not (omits)"),
                listing().check("ps", ps));
        // A reason given for a component the record does not have is caught too.
        JsonNode one = MAPPER.readTree("{\"jobId\": 1, \"step\": \"0\"}");
        assertEquals(List.of(), JsonNames.of(SlurmJob.class).check("slurm", one));
        assertEquals(List.of("slurm: SlurmJob has no component nodes"),
                JsonNames.of(SlurmJob.class).omits(SlurmJob.class, "a test", "nodes").check("slurm", one));
    }

    @Test
    void aFieldNamedOtherwiseThanItsAccessorIsCaught() throws IOException {
        JsonNode renamed = MAPPER.readTree("[{\"pid\": 1, \"cpuPercent\": 82.1}]");
        assertEquals(1, misnamed(process(), "ps", renamed).size(), "ProcessInfo's accessor is lifetimeCpuPercent");
        JsonNode letter = MAPPER.readTree("[{\"pid\": 1, \"state\": \"S\"}]");
        assertEquals(1, misnamed(process(), "ps", letter).size(), "state holds a ProcessState constant's name");
        JsonNode seconds = MAPPER.readTree("[{\"elapsedSeconds\": 1.0, \"commSeconds\": 2.0}]");
        assertEquals(1, misnamed(process(), "ps", seconds).size(), "only a Duration accessor gives a ...Seconds field");
        JsonNode unshaped = MAPPER.readTree("{\"total\": {\"allocatedBytes\": 1}}");
        assertEquals(1, misnamed(JsonNames.of(DirectoryUsage.class), "du", unshaped).size(), "a nested object needs its types");
    }

    private static void assertNames(String golden, JsonNames shape) throws IOException {
        try (InputStream in = JsonFieldNamesTest.class.getResourceAsStream("/golden/" + golden + ".json")) {
            assertNotNull(in, "golden/" + golden + ".json");
            JsonNode n = MAPPER.readTree(in);
            assertTrue(n.isObject() || n.size() > 0, golden + " has something to check");
            assertEquals(List.of(), shape.check(golden, n), golden + ": fields not named as the API's accessors");
        }
    }

    /** @return the components of ProcessStat a thread row leaves out */
    private static String[] statLeftOut() {
        return new String[] {"argEnd", "argStart", "blockIoDelay", "childGuestTime", "childMajorFaults", "childMinorFaults", "childSwappedPages", "childSystemTime", "childUserTime", "comm", "endCode", "endData", "envEnd", "envStart", "exitCode", "exitSignal", "flags", "guestTime", "itRealValue", "kstkEip", "kstkEsp", "majorFaults", "minorFaults", "nice", "pgrp", "pid", "policyNumber", "ppid", "priority", "processor", "rssBytes", "rssLimitBytes", "rtPriority", "session", "signalBlocked", "signalCaught", "signalIgnored", "signalPending", "startBrk", "startCode", "startData", "startStack", "startTimeTicks", "swappedPages", "systemTime", "terminalProcessGroup", "threads", "ttyNr", "userTime", "vszBytes", "wchan"};
    }
}
