package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.job.Discovery;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ProcFiles;
import io.github.procscope.linux.sys.ReadFailures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link JobTree} over a procfs: breadth-first through {@code /proc/PID/task/TID/children} from the root and
 * from every member still alive, or through a snapshot where the kernel has no children files.
 */
public final class LinuxJobTree implements JobTree {

    /** The reads a refresh makes, each about one process (or, for {@link #snapshot()}, all of them). */
    interface Reads {
        /** @return the process's {@code stat} and {@code statm}; {@code null} when it is gone or hidden */
        ProcessInfo process(long pid);

        /** @return the children of all the process's threads; {@code null} when it is gone */
        long[] children(long pid);

        /** @return the process's PSS in bytes */
        OptionalLong pss(long pid);

        /** @return the number of the process's open file descriptors */
        OptionalInt openFds(long pid);

        /** @return every process */
        ProcessSnapshot snapshot();

        /** @return the system's uptime */
        Duration uptime();
    }

    private final ProcessKey root;
    private final JobTreeOptions options;
    private final Reads reads;
    private final Discovery discovery;
    private final Optional<String> fallbackReason;
    /** Members of the previous refresh (and those found by a scan), with their CPU time in nanoseconds. */
    private Map<ProcessKey, Long> previous = new LinkedHashMap<>();
    private final Set<ProcessKey> scanned = new LinkedHashSet<>();
    private Duration previousUptime;
    /** Who belongs to the tree, adopted orphans included (it keeps the group and session ids members lead). */
    private final TreeMembers adopted;

    LinuxJobTree(ProcessKey root, JobTreeOptions options, Reads reads, Discovery discovery,
                 Optional<String> fallbackReason) {
        this.root = Objects.requireNonNull(root, "root");
        this.options = Objects.requireNonNull(options, "options");
        this.reads = reads;
        this.discovery = discovery;
        this.fallbackReason = fallbackReason;
        this.adopted = new TreeMembers(this.root);
    }

    static LinuxJobTree open(LinuxProcfs procfs, ProcessMemory memory, ProcessKey root, JobTreeOptions options) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(options, "options");
        Path children = Path.of(procfs.prefix() + root.pid(), "task", Long.toString(root.pid()), "children");
        Discovery d = Discovery.CHILDREN_FILES;
        Optional<String> why = Optional.empty();
        if (!Files.isReadable(children)) {
            ReadFailures.requirePresent(root.pid(), Path.of(procfs.prefix() + root.pid()));
            d = Discovery.FULL_SNAPSHOT;
            why = Optional.of(children + (Files.exists(children) ? " cannot be read"
                    : " does not exist: the kernel was built without CONFIG_PROC_CHILDREN")
                    + "; each refresh reads every process");
        }
        LinuxJobTree t = new LinuxJobTree(root, options, new ProcfsReads(procfs, memory), d, why);
        t.scanForAdopted();
        return t;
    }

    @Override
    public ProcessKey root() {
        return root;
    }

    @Override
    public Discovery discovery() {
        return discovery;
    }

    @Override
    public Optional<String> fallbackReason() {
        return fallbackReason;
    }

    @Override
    public JobSample rescan() {
        scanForAdopted();
        return refresh();
    }

    /**
     * Adds to the members-to-follow every process, started no earlier than the root, in a group or session that
     * a member leads. Throws when the root is gone before the tree's first scan.
     */
    private void scanForAdopted() {
        ProcessSnapshot snap = reads.snapshot();
        boolean first = previous.isEmpty() && scanned.isEmpty();
        Optional<ProcessInfo> r = snap.find(root);
        if (first && r.isEmpty()) {
            throw new NoSuchProcessException(root.pid());
        }
        List<ProcessKey> known = new ArrayList<>(previous.keySet());
        known.addAll(scanned);
        List<ProcessInfo> members = adopted.members(snap, known);
        scanned.clear();
        for (ProcessInfo p : members) {
            scanned.add(p.key());
        }
    }

    @Override
    public JobSample refresh() {
        Instant takenAt = Instant.now();
        Reads r = discovery == Discovery.CHILDREN_FILES ? reads : new SnapshotReads(reads.snapshot(), reads);
        Duration uptime = r.uptime();
        Map<Long, Found> found = new LinkedHashMap<>();
        ArrayDeque<Found> queue = new ArrayDeque<>();
        ProcessInfo rootNow = r.process(root.pid());
        if (rootNow != null && root.matches(rootNow.key())) {
            add(new Found(rootNow, false), found, queue);
            walk(r, found, queue);
        }
        List<ProcessKey> follow = new ArrayList<>(previous.keySet());
        follow.addAll(scanned);
        for (ProcessKey k : follow) {
            if (found.containsKey(k.pid())) {
                continue;
            }
            ProcessInfo p = r.process(k.pid());
            if (p != null && p.key().equals(k)) {
                add(new Found(p, true), found, queue);
                walk(r, found, queue);
            }
        }
        Map<Long, Map<Integer, Long>> gpu = options.gpus().map(LinuxJobTree::gpuMemoryByPid).orElse(Map.of());
        long wallNanos = previousUptime == null ? 0 : uptime.minus(previousUptime).toNanos();
        List<JobMember> members = new ArrayList<>(found.size());
        Map<ProcessKey, Long> now = new LinkedHashMap<>();
        List<ProcessKey> joined = new ArrayList<>();
        for (Found f : found.values()) {
            ProcessInfo p = f.process;
            long cpu = p.cpuTime().toNanos();
            now.put(p.key(), cpu);
            OptionalDouble pct = OptionalDouble.empty();
            Long before = previous.get(p.key());
            if (wallNanos > 0) {
                if (before != null) {
                    pct = OptionalDouble.of(100.0 * Math.max(0, cpu - before) / wallNanos);
                } else if (p.elapsed().toNanos() <= wallNanos) {
                    pct = OptionalDouble.of(100.0 * cpu / wallNanos); // started during the interval
                }
            }
            if (before == null) {
                joined.add(p.key());
            }
            members.add(new JobMember(p, f.adopted, pct, options.pss() ? r.pss(p.pid()) : OptionalLong.empty(),
                    options.openFds() ? r.openFds(p.pid()) : OptionalInt.empty(),
                    gpu.getOrDefault(p.pid(), Map.of())));
        }
        List<ProcessKey> left = new ArrayList<>();
        for (ProcessKey k : previous.keySet()) {
            if (!now.containsKey(k)) {
                left.add(k);
            }
        }
        previous = now;
        scanned.removeIf(k -> !now.containsKey(k));
        previousUptime = uptime;
        return new JobSample(root, takenAt, uptime, members, joined, left, discovery, fallbackReason);
    }

    private record Found(ProcessInfo process, boolean adopted) {
    }

    private static void add(Found f, Map<Long, Found> found, ArrayDeque<Found> queue) {
        found.put(f.process.pid(), f);
        queue.add(f);
    }

    /** Breadth-first through the children lists; a child inherits whether its parent was adopted. */
    private static void walk(Reads r, Map<Long, Found> found, ArrayDeque<Found> queue) {
        while (!queue.isEmpty()) {
            Found f = queue.poll();
            long[] kids = r.children(f.process.pid());
            if (kids == null) {
                continue;
            }
            for (long c : kids) {
                if (found.containsKey(c)) {
                    continue;
                }
                ProcessInfo p = r.process(c);
                if (p != null && p.ppid() == f.process.pid()) {
                    add(new Found(p, f.adopted), found, queue);
                }
            }
        }
    }

    /** @return NVML's memory per pid and GPU index, over every device (and MIG device) that is not lost */
    static Map<Long, Map<Integer, Long>> gpuMemoryByPid(Gpus gpus) {
        Map<Long, Map<Integer, Long>> out = new HashMap<>();
        for (GpuDevice d : gpus.devices()) {
            try {
                if (d.isLost()) {
                    continue;
                }
                GpuProcesses listed = d.processes();
                List<GpuProcess> all = new ArrayList<>(listed.processes());
                if (!listed.isComplete()) {
                    for (GpuDevice mig : d.migDevices()) {
                        all.addAll(mig.processes().processes());
                    }
                }
                for (GpuProcess p : all) {
                    if (p.usedMemoryBytes().isPresent()) {
                        out.computeIfAbsent(p.pid(), k -> new HashMap<>()).merge(d.index(),
                                p.usedMemoryBytes().getAsLong(), Long::sum);
                    }
                }
            } catch (NvmlException e) {
                if (e.nvmlReturn() != NvmlReturn.GPU_IS_LOST) {
                    throw e;
                }
            }
        }
        return out;
    }

    /** The reads of a live (or fixture) procfs, one process at a time. */
    public static final class ProcfsReads implements Reads {
        private final LinuxProcfs procfs;
        private final ProcBuffer buf = new ProcBuffer();
        /** Where PSS is read; null: not by these reads. */
        private final ProcessMemory memory;
        /** The uptime read at the start of the refresh: each process's elapsed time is measured against it. */
        private Duration uptime;

        /** @param procfs the table whose processes are read; PSS is not read (always empty) */
        public ProcfsReads(LinuxProcfs procfs) {
            this(procfs, null);
        }

        /**
         * @param procfs the table whose processes are read
         * @param memory the memory reader of the same root, for PSS
         */
        ProcfsReads(LinuxProcfs procfs, ProcessMemory memory) {
            this.procfs = procfs;
            this.memory = memory;
        }

        @Override
        public ProcessInfo process(long pid) {
            try (ProcFiles files = procfs.openFiles()) {
                return procfs.readOrNull(pid, Set.of(), files, buf, uptime != null ? uptime : uptime());
            }
        }

        @Override
        public long[] children(long pid) {
            String task = procfs.prefix() + pid + "/task";
            String[] tids = new java.io.File(task).list();
            if (tids == null) {
                return null;
            }
            long[] out = new long[16];
            int n = 0;
            for (String tid : tids) {
                ProcBuffer.Result res = buf.read(Path.of(task, tid, "children"));
                if (res != ProcBuffer.Result.OK) {
                    continue; // the thread ended
                }
                byte[] b = buf.bytes();
                long v = -1;
                for (int i = 0; i <= buf.length(); i++) {
                    byte c = i < buf.length() ? b[i] : (byte) ' ';
                    if (c >= '0' && c <= '9') {
                        v = (v < 0 ? 0 : v * 10) + (c - '0');
                    } else if (v >= 0) {
                        if (n == out.length) {
                            out = java.util.Arrays.copyOf(out, n * 2);
                        }
                        out[n++] = v;
                        v = -1;
                    }
                }
            }
            return java.util.Arrays.copyOf(out, n);
        }

        @Override
        public OptionalLong pss(long pid) {
            if (memory == null) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(memory.totals(pid).pssBytes());
            } catch (ProcscopeException e) {
                return OptionalLong.empty(); // gone, denied, or a zombie without maps
            }
        }

        @Override
        public OptionalInt openFds(long pid) {
            int n = FdDirectory.count(Path.of(procfs.prefix() + pid));
            return n >= 0 ? OptionalInt.of(n) : OptionalInt.empty();
        }

        @Override
        public ProcessSnapshot snapshot() {
            return procfs.snapshot(Set.of());
        }

        @Override
        public Duration uptime() {
            uptime = procfs.uptime(buf);
            return uptime;
        }
    }

    /** The reads of a refresh that took a snapshot: processes and children from it, the rest per process. */
    private static final class SnapshotReads implements Reads {
        private final ProcessSnapshot snap;
        private final Reads perProcess;
        private final Map<Long, List<Long>> kids = new HashMap<>();

        SnapshotReads(ProcessSnapshot snap, Reads perProcess) {
            this.snap = snap;
            this.perProcess = perProcess;
            for (ProcessInfo p : snap.processes()) {
                kids.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p.pid());
            }
        }

        @Override
        public ProcessInfo process(long pid) {
            return snap.find(pid).orElse(null);
        }

        @Override
        public long[] children(long pid) {
            return snap.find(pid).isEmpty() ? null
                    : kids.getOrDefault(pid, List.of()).stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public OptionalLong pss(long pid) {
            return perProcess.pss(pid);
        }

        @Override
        public OptionalInt openFds(long pid) {
            return perProcess.openFds(pid);
        }

        @Override
        public ProcessSnapshot snapshot() {
            return snap;
        }

        @Override
        public Duration uptime() {
            return snap.uptime();
        }
    }
}
