package io.github.procscope.api.diagnose;

import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.memory.AvailableSource;
import io.github.procscope.api.memory.CgroupVersion;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The facts a {@link Finding} rests on: one record per shape of finding, each belonging to exactly one
 * {@link FindingKind}. Components are named as the rest of the API names them: sizes end in {@code Bytes},
 * durations in {@code Millis}, shares in {@code Percent}; a fact that was not read or logged is an empty
 * {@code Optional}. The command-line tool writes each record as JSON with one field per component, named
 * as the accessor.
 *
 * <pre>{@code
 * for (Finding f : diagnosis.findings()) {
 *     if (f.evidence() instanceof Evidence.Zombies z) {
 *         System.out.println(z.zombiePids() + " wait for pid " + z.parentPid());
 *     }
 * }
 * }</pre>
 */
public sealed interface Evidence {

    /** {@return the kind of finding this evidence belongs to} */
    FindingKind kind();

    /**
     * Zombies of one parent that lasted through the examination window.
     *
     * @param parentPid   the parent that does not reap them
     * @param parentComm  the parent's command name, {@code "?"} when it vanished meanwhile
     * @param zombiePids  the zombies, ascending, not empty
     * @param zombieComms their distinct command names
     */
    record Zombies(long parentPid, String parentComm, List<Long> zombiePids, List<String> zombieComms)
            implements Evidence {
        /** Checks components and copies the lists. */
        public Zombies {
            Objects.requireNonNull(parentComm, "parentComm");
            zombiePids = zombiePids.stream().sorted().toList();
            zombieComms = List.copyOf(zombieComms);
            if (zombiePids.isEmpty()) {
                throw new IllegalArgumentException("zombie evidence names at least one zombie");
            }
        }

        @Override
        public FindingKind kind() {
            return FindingKind.ZOMBIE;
        }
    }

    /**
     * A process adopted by PID 1 or a subreaper after its parent ended.
     *
     * @param pid        the orphan
     * @param comm       its command name
     * @param cmdline    its command line joined by spaces (its {@code comm} when the command line is empty)
     * @param adopterPid the process that adopted it
     * @param ageMillis  how long it has run, milliseconds
     * @param cpuPercent its CPU use over the examination window, percent of one CPU, one decimal
     * @param rssBytes   its resident set size
     * @param sid        its session id
     */
    record Orphan(long pid, String comm, String cmdline, long adopterPid, long ageMillis, double cpuPercent,
                  long rssBytes, long sid) implements Evidence {
        /** Checks components. */
        public Orphan {
            Objects.requireNonNull(comm, "comm");
            Objects.requireNonNull(cmdline, "cmdline");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.ORPHAN;
        }
    }

    /**
     * PID 1 is not an init.
     *
     * @param pid1Comm          PID 1's command name
     * @param pid1Cmdline       its command line joined by spaces
     * @param adoptedZombiePids the zombies it adopted and does not reap, ascending
     */
    record Pid1NotInit(String pid1Comm, String pid1Cmdline, List<Long> adoptedZombiePids) implements Evidence {
        /** Checks components and copies the list. */
        public Pid1NotInit {
            Objects.requireNonNull(pid1Comm, "pid1Comm");
            Objects.requireNonNull(pid1Cmdline, "pid1Cmdline");
            adoptedZombiePids = adoptedZombiePids.stream().sorted().toList();
        }

        @Override
        public FindingKind kind() {
            return FindingKind.PID1_NOT_INIT;
        }
    }

    /**
     * Deleted files on one file system still held open.
     *
     * @param mountPoint where the file system is mounted (its device number when no mount was found)
     * @param fsType     its type, when the mount was found
     * @param files      how many distinct deleted files (device and inode) are held
     * @param heldBytes  the space they occupy, counted once per file
     * @param holders    every descriptor holding one of them
     */
    record DeletedOpenFiles(String mountPoint, Optional<String> fsType, int files, long heldBytes,
                            List<DeletedFile> holders) implements Evidence {
        /** Checks components and copies the list. */
        public DeletedOpenFiles {
            Objects.requireNonNull(mountPoint, "mountPoint");
            Objects.requireNonNull(fsType, "fsType");
            holders = List.copyOf(holders);
        }

        @Override
        public FindingKind kind() {
            return FindingKind.DELETED_OPEN_FILE;
        }
    }

    /**
     * A file system over its space threshold, as {@code df} shows it.
     *
     * @param mountPoint      where it is mounted
     * @param fsType          its type
     * @param source          what is mounted (a device, a remote share)
     * @param sizeBytes       its size
     * @param usedBytes       space in use
     * @param availableBytes  space available to unprivileged users
     * @param usePercent      {@code df}'s Use%
     * @param inodes          total inodes
     * @param inodesFree      free inodes
     * @param inodeUsePercent {@code df -i}'s IUse%
     */
    record DiskFull(String mountPoint, String fsType, String source, long sizeBytes, long usedBytes,
                    long availableBytes, OptionalInt usePercent, long inodes, long inodesFree,
                    OptionalInt inodeUsePercent) implements Evidence {
        /** Checks components. */
        public DiskFull {
            Objects.requireNonNull(mountPoint, "mountPoint");
            Objects.requireNonNull(fsType, "fsType");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(usePercent, "usePercent");
            Objects.requireNonNull(inodeUsePercent, "inodeUsePercent");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.DISK_FULL;
        }
    }

    /**
     * A file system over its inode threshold, as {@code df -i} shows it.
     *
     * @param mountPoint      where it is mounted
     * @param fsType          its type
     * @param source          what is mounted
     * @param sizeBytes       its size
     * @param usedBytes       space in use
     * @param availableBytes  space available to unprivileged users
     * @param usePercent      {@code df}'s Use%
     * @param inodes          total inodes
     * @param inodesFree      free inodes
     * @param inodeUsePercent {@code df -i}'s IUse%
     */
    record InodesExhausted(String mountPoint, String fsType, String source, long sizeBytes, long usedBytes,
                           long availableBytes, OptionalInt usePercent, long inodes, long inodesFree,
                           OptionalInt inodeUsePercent) implements Evidence {
        /** Checks components. */
        public InodesExhausted {
            Objects.requireNonNull(mountPoint, "mountPoint");
            Objects.requireNonNull(fsType, "fsType");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(usePercent, "usePercent");
            Objects.requireNonNull(inodeUsePercent, "inodeUsePercent");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.INODES_EXHAUSTED;
        }
    }

    /**
     * Little memory available on the machine ({@code free}'s "available").
     *
     * @param totalBytes       {@code MemTotal}
     * @param availableBytes   {@code MemAvailable} (or the kernel's estimate of it)
     * @param availablePercent available as a share of total, one decimal
     * @param freeBytes        {@code MemFree}
     * @param swapTotalBytes   {@code SwapTotal}
     * @param swapFreeBytes    {@code SwapFree}
     * @param availableSource  where the available figure came from
     */
    record LowMemory(long totalBytes, long availableBytes, double availablePercent, long freeBytes,
                     long swapTotalBytes, long swapFreeBytes, AvailableSource availableSource) implements Evidence {
        /** Checks components. */
        public LowMemory {
            Objects.requireNonNull(availableSource, "availableSource");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.MEMORY_PRESSURE;
        }
    }

    /**
     * A memory cgroup near its limit.
     *
     * @param cgroup            the cgroup's path
     * @param version           its hierarchy's version
     * @param limitBytes        its memory limit
     * @param usageBytes        its memory usage
     * @param inactiveFileBytes its reclaimable page cache ({@code inactive_file})
     * @param workingSetBytes   usage minus inactive file cache: what the OOM killer weighs
     * @param usePercent        working set as a share of the limit, one decimal
     */
    record CgroupMemoryPressure(String cgroup, CgroupVersion version, long limitBytes, long usageBytes,
                                long inactiveFileBytes, long workingSetBytes, double usePercent) implements Evidence {
        /** Checks components. */
        public CgroupMemoryPressure {
            Objects.requireNonNull(cgroup, "cgroup");
            Objects.requireNonNull(version, "version");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.MEMORY_PRESSURE;
        }
    }

    /**
     * An OOM kill the kernel logged.
     *
     * @param kill           the kernel log's report
     * @param cgroupOomKills how many OOM kills the killed task's cgroup counts, when it was read
     */
    record OomKilled(OomKill kill, OptionalLong cgroupOomKills) implements Evidence {
        /** Checks components. */
        public OomKilled {
            Objects.requireNonNull(kill, "kill");
            Objects.requireNonNull(cgroupOomKills, "cgroupOomKills");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.OOM_KILL;
        }
    }

    /**
     * OOM kills a cgroup counts, more than the kernel log shows for it (the log was rotated or unreadable).
     *
     * @param cgroup      the cgroup's path
     * @param version     its hierarchy's version, 1 or 2
     * @param oomKills    its {@code oom_kill} counter
     * @param ooms        its {@code oom} counter (v2 only)
     * @param inKernelLog how many of its kills the kernel log shows
     */
    record CgroupOomKills(String cgroup, int version, long oomKills, OptionalLong ooms, long inKernelLog)
            implements Evidence {
        /** Checks components. */
        public CgroupOomKills {
            Objects.requireNonNull(cgroup, "cgroup");
            Objects.requireNonNull(ooms, "ooms");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.OOM_KILL;
        }
    }

    /**
     * Processes of one terminal session that die when it hangs up.
     *
     * @param sid          the session id
     * @param tty          the controlling terminal's name ({@code pts/0}), or its device number when unnamed
     * @param pids         the processes at risk
     * @param comms        their command names, in the order of {@code pids}
     * @param oldestMillis how long the oldest of them has run, milliseconds
     */
    record HangupVulnerable(long sid, String tty, List<Long> pids, List<String> comms, long oldestMillis)
            implements Evidence {
        /** Checks components and copies the lists. */
        public HangupVulnerable {
            Objects.requireNonNull(tty, "tty");
            pids = List.copyOf(pids);
            comms = List.copyOf(comms);
        }

        @Override
        public FindingKind kind() {
            return FindingKind.HANGUP_VULNERABLE;
        }
    }

    /**
     * One process holding memory on an idle GPU.
     *
     * @param pid             the process
     * @param comm            its command name, when it could be read
     * @param usedMemoryBytes the GPU memory it holds, when the driver tells
     */
    record GpuHolder(long pid, Optional<String> comm, OptionalLong usedMemoryBytes) {
        /** Checks components. */
        public GpuHolder {
            Objects.requireNonNull(comm, "comm");
            Objects.requireNonNull(usedMemoryBytes, "usedMemoryBytes");
        }
    }

    /**
     * A GPU holding memory while its utilization stays near zero.
     *
     * @param deviceIndex               the GPU's index
     * @param deviceUuid                its UUID
     * @param samples                   how many samples were taken
     * @param spanMillis                the time the samples span, milliseconds
     * @param meanGpuUtilizationPercent its mean utilization, one decimal
     * @param minMemoryUsedBytes        the least memory it held
     * @param memoryTotalBytes          its memory
     * @param holders                   the processes holding memory on it
     */
    record GpuIdleHolding(int deviceIndex, String deviceUuid, int samples, long spanMillis,
                          OptionalDouble meanGpuUtilizationPercent, OptionalLong minMemoryUsedBytes,
                          OptionalLong memoryTotalBytes, List<GpuHolder> holders) implements Evidence {
        /** Checks components and copies the list. */
        public GpuIdleHolding {
            Objects.requireNonNull(deviceUuid, "deviceUuid");
            Objects.requireNonNull(meanGpuUtilizationPercent, "meanGpuUtilizationPercent");
            Objects.requireNonNull(minMemoryUsedBytes, "minMemoryUsedBytes");
            Objects.requireNonNull(memoryTotalBytes, "memoryTotalBytes");
            holders = List.copyOf(holders);
        }

        @Override
        public FindingKind kind() {
            return FindingKind.GPU_IDLE_HOLDING;
        }
    }

    /**
     * A process holding GPU memory whose training run's parent is gone.
     *
     * @param pid              the process
     * @param comm             its command name
     * @param ppid             its parent now (its adopter)
     * @param ageMillis        how long it has run, milliseconds
     * @param usedMemoryBytes  the GPU memory it holds, when the driver tells
     * @param deviceUuids      the GPUs it uses
     * @param openDeviceMinors the N of every {@code /dev/nvidiaN} it holds open, ascending
     * @param runRootPid       the root of its training run, when found
     * @param runRootComm      that root's command name, when found
     */
    record GpuGhost(long pid, String comm, long ppid, long ageMillis, OptionalLong usedMemoryBytes,
                    List<String> deviceUuids, List<Integer> openDeviceMinors, OptionalLong runRootPid,
                    Optional<String> runRootComm) implements Evidence {
        /** Checks components and copies the lists. */
        public GpuGhost {
            Objects.requireNonNull(comm, "comm");
            Objects.requireNonNull(usedMemoryBytes, "usedMemoryBytes");
            deviceUuids = List.copyOf(deviceUuids);
            openDeviceMinors = openDeviceMinors.stream().sorted().toList();
            Objects.requireNonNull(runRootPid, "runRootPid");
            Objects.requireNonNull(runRootComm, "runRootComm");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.GPU_GHOST;
        }
    }

    /**
     * A disk with high utilization and long waits, as {@code iostat -x} shows it (values to two decimals).
     *
     * @param device                  the disk's kernel name ({@code sda}, {@code nvme0n1})
     * @param intervalMillis          the measured interval, milliseconds
     * @param utilizationPercent      %util
     * @param readAwaitMillis         r_await
     * @param writeAwaitMillis        w_await
     * @param readsPerSecond          r/s
     * @param writesPerSecond         w/s
     * @param readKilobytesPerSecond  rkB/s
     * @param writeKilobytesPerSecond wkB/s
     * @param averageQueueSize        aqu-sz
     */
    record IoBottleneck(String device, long intervalMillis, double utilizationPercent, double readAwaitMillis,
                        double writeAwaitMillis, double readsPerSecond, double writesPerSecond,
                        double readKilobytesPerSecond, double writeKilobytesPerSecond, double averageQueueSize)
            implements Evidence {
        /** Checks components. */
        public IoBottleneck {
            Objects.requireNonNull(device, "device");
        }

        @Override
        public FindingKind kind() {
            return FindingKind.IO_BOTTLENECK;
        }
    }
}
