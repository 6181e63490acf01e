package io.github.procscope.linux.proc;

import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessIo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessStatm;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ResourceLimits;
import io.github.procscope.api.process.StatusCounters;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.api.process.UnreadableProcess;
import io.github.procscope.linux.parse.AuxvParser;
import io.github.procscope.linux.parse.CgroupOwnerParser;
import io.github.procscope.linux.parse.CmdlineParser;
import io.github.procscope.linux.parse.IoParser;
import io.github.procscope.linux.parse.KernelStatParser;
import io.github.procscope.linux.parse.LimitsParser;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.parse.StatmParser;
import io.github.procscope.linux.parse.StatusCountersParser;
import io.github.procscope.linux.parse.StatusParser;
import io.github.procscope.linux.parse.UptimeParser;
import io.github.procscope.linux.parse.WchanParser;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.NativeWall;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ProcFiles;
import io.github.procscope.linux.sys.ProcessCalls;
import io.github.procscope.linux.sys.ReadFailures;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The process table of a Linux procfs, rooted at a directory: {@code /proc} for the live system, or a
 * fixture tree in tests. Thread-safe; it holds no process data between calls.
 *
 * <pre>{@code
 * LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));      // /proc
 * LinuxProcfs fixture = LinuxProcfs.at(Path.of("src/test/resources/proc"));
 * }</pre>
 *
 * <p>What a plain {@link #snapshot()} reads per process: {@code /proc/PID/stat}, {@code /proc/PID/statm}
 * (the exact RSS; stat's own is approximate since Linux 6.2) and the owner of the {@code /proc/PID}
 * directory, nothing else. A process that exits while it is read is left out of a
 * snapshot; a single-process call reports it as {@link NoSuchProcessException}. A missing file means
 * "gone" only when {@code /proc/PID/stat} is gone too.
 *
 * <p>Files are read natively where the platform allows it: {@code openat}, {@code read} and {@code close}
 * relative to one descriptor of the root, and {@code statx} for the owner, with no path string built per
 * file. Loading that binding takes longer than a snapshot of a small machine, so it is loaded in the
 * background when a table first reads, and reads go through the JDK until it is there (a one-shot tool
 * never waits; a monitor reads natively from its next snapshots on). Where the binding cannot be loaded
 * (or with {@code -Dprocscope.native=false}) every read goes through the JDK, with the same results.
 *
 * <p>The boot time ({@code btime} of {@code /proc/stat}) is read once, when the table is built, as
 * {@code ps} does; the clock tick rate and page size come from the running kernel's auxiliary vector
 * unless the builder is given them.
 */
public final class LinuxProcfs implements ProcessTable {
    private static final Path DEFAULT_ROOT = Path.of("/proc");
    /** {@code ESRCH}: no such process. */
    private static final int ESRCH = 3;
    /** {@link #pidfdCalls} where no pidfd can be opened. */
    private static final Object NO_PIDFDS = new Object();
    /** The boot instant at sub-second precision, by procfs root and {@code btime} ({@link Builder#build()}). */
    private static final java.util.concurrent.ConcurrentHashMap<String, Instant> PRECISE_BOOT =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final Path root;
    private final String prefix;
    private final KernelConstants constants;
    private final Instant bootTime;
    private final UserNames users = new UserNames();
    private final boolean nativeReads;
    /** The wall native reads go through, when a test names one; {@code null}: the JVM's own. */
    private final NativeWall wall;
    /** How open descriptors are counted under this root, found at the first count ({@link FdCounter#of}). */
    private volatile FdCounter fdCounter;
    /** The process calls {@link #key(long)} opens pidfds with, once known; {@link #NO_PIDFDS} where there are none. */
    private volatile Object pidfdCalls;

    private LinuxProcfs(Path root, KernelConstants constants, Instant bootTime, boolean nativeReads, NativeWall wall) {
        this.root = root;
        this.nativeReads = nativeReads;
        this.wall = wall;
        this.prefix = root.toString().endsWith("/") ? root.toString() : root + "/";
        this.constants = constants;
        this.bootTime = bootTime;
    }

    /**
     * @param root a procfs mount, or a fixture tree with the same layout
     * @return the process table under that root, with the running kernel's clock tick rate and page size
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    public static LinuxProcfs at(Path root) {
        return builder(root).build();
    }

    /**
     * @param root a procfs mount, or a fixture tree with the same layout
     * @return a builder, for fixture trees that need fixed kernel constants
     */
    public static Builder builder(Path root) {
        return new Builder(root);
    }

    /** @return the procfs root this table reads */
    public Path root() {
        return root;
    }

    /** @return the clock tick rate and page size this table converts with */
    public KernelConstants kernelConstants() {
        return constants;
    }

    @Override
    public Instant bootTime() {
        return bootTime;
    }

    @Override
    public long clockTicksPerSecond() {
        return constants.clockTicksPerSecond();
    }

    @Override
    public long pageSizeBytes() {
        return constants.pageSizeBytes();
    }

    @Override
    public Duration uptime() {
        return readUptime(new ProcBuffer(256));
    }

    /** Each thread's snapshot buffer between its snapshots: a snapshot of 100 processes allocated 24 B per process for it. */
    private static final ThreadLocal<ProcBuffer> SNAPSHOT_BUFFER = new ThreadLocal<>();

    @Override
    public ProcessSnapshot snapshot(Set<Facet> facets) {
        return snapshot(facets, NO_VISITOR);
    }

    private static final Consumer<ProcessInfo> NO_VISITOR = p -> { };

    /** Hands each process on as soon as it is read, within the one pass over {@code /proc}. */
    @Override
    public ProcessSnapshot snapshot(Set<Facet> facets, Consumer<ProcessInfo> eachRead) {
        Objects.requireNonNull(facets, "facets");
        Objects.requireNonNull(eachRead, "eachRead");
        Instant takenAt = Instant.now();
        // The thread's buffer of its last snapshot, taken out while this one uses it (a snapshot within a
        // snapshot on one thread gets a new one), given back unless a file made it grow.
        ProcBuffer kept = SNAPSHOT_BUFFER.get();
        SNAPSHOT_BUFFER.set(null);
        ProcBuffer buf = kept != null ? kept : new ProcBuffer();
        try {
            return snapshot(facets, takenAt, buf, eachRead);
        } finally {
            if (buf.bytes().length <= ProcBuffer.DEFAULT_CAPACITY) {
                SNAPSHOT_BUFFER.set(buf);
            }
        }
    }

    private ProcessSnapshot snapshot(Set<Facet> facets, Instant takenAt, ProcBuffer buf,
                                     Consumer<ProcessInfo> eachRead) {
        Duration uptime = readUptime(buf);
        long[] pids = listPids(root);
        List<ProcessInfo> out = new ArrayList<>(pids.length);
        List<UnreadableProcess> unreadable = new ArrayList<>(0);
        try (ProcFiles files = ProcFiles.open(root, prefix, nativeReads, wall)) {
            for (long pid : pids) {
                ProcessInfo p;
                try {
                    p = read(pid, facets, files, buf, uptime, true);
                } catch (ProcfsException e) {
                    // One process's malformed files leave it out of the listing, named, not the listing failed.
                    unreadable.add(new UnreadableProcess(pid, e.file(), e.getMessage()));
                    continue;
                }
                if (p != null) {
                    out.add(p);
                    eachRead.accept(p);
                }
            }
        }
        return new ProcessSnapshot(takenAt, uptime, facets, out, unreadable);
    }

    @Override
    public ProcessInfo process(long pid, Set<Facet> facets) {
        Pids.requireValid(pid);
        Objects.requireNonNull(facets, "facets");
        ProcBuffer buf = new ProcBuffer();
        Duration uptime = readUptime(buf);
        ProcessInfo p;
        try (ProcFiles files = ProcFiles.openForCall(root, prefix, nativeReads, wall)) {
            p = read(pid, facets, files, buf, uptime, false);
        }
        if (p.status().isPresent()) {
            requireNotAThread(pid, p.status().get().tgid());
        } else {
            requireNotAThread(pid, buf);
        }
        return p;
    }

    /**
     * Refuses the id of a thread that leads no thread group. Its {@code /proc/TID} is there to open although
     * {@code /proc} does not list it, and it reads like a process's (its own stat, the thread group's memory), but
     * no process holds the pid: a key made from it would name the thread, and {@code kill(TID)} reaches its whole
     * process.
     *
     * @param pid  the pid asked for
     * @param tgid the thread group read from its {@code status}
     * @throws NoSuchProcessException if {@code tgid} is another pid
     */
    private static void requireNotAThread(long pid, long tgid) {
        if (tgid != pid) {
            throw new NoSuchProcessException(pid, "no such process: " + pid + " is a thread of process " + tgid);
        }
    }

    /**
     * As {@link #requireNotAThread(long, long)}, reading the {@code Tgid} line of {@code status}; a status that
     * cannot be read or has no such line (a fixture tree without it) is not evidence of a thread.
     */
    private void requireNotAThread(long pid, ProcBuffer buf) {
        if (buf.read(prefix + pid + "/status") != ProcBuffer.Result.OK) {
            return;
        }
        long tgid = tgidOf(buf.bytes(), buf.length());
        if (tgid >= 0) {
            requireNotAThread(pid, tgid);
        }
    }

    /** @return the decimal value of the {@code Tgid:} line of a status file's bytes, or -1 without one */
    static long tgidOf(byte[] b, int length) {
        byte[] key = {'T', 'g', 'i', 'd', ':'};
        for (int line = 0; line < length; ) {
            boolean match = line + key.length <= length;
            for (int k = 0; match && k < key.length; k++) {
                match = b[line + k] == key[k];
            }
            if (match) {
                int i = line + key.length;
                while (i < length && (b[i] == '\t' || b[i] == ' ')) {
                    i++;
                }
                long v = 0;
                int digits = 0;
                while (i < length && b[i] >= '0' && b[i] <= '9' && digits < 11) {
                    v = v * 10 + (b[i++] - '0');
                    digits++;
                }
                return digits == 0 || digits == 11 ? -1 : v;
            }
            while (line < length && b[line] != '\n') {
                line++;
            }
            line++;
        }
        return -1;
    }

    /** @return whether this table reads natively ({@code openat}/{@code statx}) rather than through the JDK */
    public boolean readsNatively() {
        try (ProcFiles files = ProcFiles.open(root, prefix, nativeReads, wall)) {
            return files.isNative();
        }
    }

    /**
     * The identity of the process that holds the pid, as exact as this kernel allows. Under the live
     * {@code /proc} (this JVM's own, in its PID namespace), a pidfd is opened on the pid, {@code /proc/PID/stat}
     * read, and the pidfd seen not to have exited afterwards, so that the start time read is its process's; the
     * key then carries the pidfd's pidfs inode (Linux 6.9 and later), which tells apart two processes that took
     * the pid within one clock tick. Under another root, for a process that has exited (a zombie), or where no
     * pidfd can be had (a kernel before 5.3, a seccomp filter, no descriptors left), it is (pid, start time), as
     * {@link #plainKey(long)} reads it.
     */
    @Override
    public ProcessKey key(long pid) {
        Pids.requireValid(pid);
        ProcessCalls calls = pidfdCalls();
        if (calls == null) {
            return plainKey(pid);
        }
        int fd = calls.pidfdOpen(pid);
        if (fd == -ESRCH) {
            throw new NoSuchProcessException(pid, "no such process: " + pid);
        }
        if (fd < 0) {
            return plainKey(pid);
        }
        try {
            // pidfd_open refuses a thread's id, so the pid is a process's: no need to read its status for the Tgid
            ProcessKey plain = plainKey(pid, false);
            if (calls.pidfdExited(fd)) {
                return plain; // exited: the stat read may even be of a process that took the pid since
            }
            java.util.OptionalLong ino = calls.pidfdInode(fd);
            return ino.isPresent() ? new ProcessKey(pid, plain.startTimeTicks(), ino) : plain;
        } finally {
            calls.close(fd);
        }
    }

    /**
     * Reads the identity from {@code /proc/PID/stat} alone: (pid, start time), exact to one clock tick, the form
     * a listing gives ({@link ProcessInfo#key()}); the check behind every read that takes a key without a pidfs
     * inode costs one file.
     *
     * @param pid a process id
     * @return its (pid, start time)
     * @throws NoSuchProcessException if no process holds the pid
     */
    public ProcessKey plainKey(long pid) {
        return plainKey(pid, true);
    }

    /** @param checkThread whether to refuse a thread's id (not needed where a pidfd was opened on the pid) */
    private ProcessKey plainKey(long pid, boolean checkThread) {
        Pids.requireValid(pid);
        Path dir = Path.of(prefix + pid);
        ProcBuffer buf = new ProcBuffer(4096);
        ProcessStat stat = ProcessLiveness.read(pid, dir, buf, constants);
        requireSameId(dir.resolve("stat"), stat, pid);
        if (checkThread) {
            requireNotAThread(pid, buf);
        }
        return new ProcessKey(pid, stat.startTimeTicks());
    }

    /** @return the process calls to open pidfds with, or null: not the live {@code /proc}, or no pidfds here */
    private ProcessCalls pidfdCalls() {
        Object c = pidfdCalls;
        if (c == null) {
            c = NO_PIDFDS;
            if (isThisSystemsProc()) {
                try {
                    ProcessCalls calls = ProcessCalls.get();
                    if (calls.pidfdPossible()) {
                        c = calls;
                    }
                } catch (RuntimeException e) {
                    // no native binding (SignalsUnavailableException): keys are (pid, start time)
                }
            }
            pidfdCalls = c;
        }
        return c == NO_PIDFDS ? null : (ProcessCalls) c;
    }

    /**
     * @return whether this root is the {@code /proc} of this JVM's PID namespace: the pids it shows are the ones
     *         {@code pidfd_open(2)} takes ({@code self} there is this JVM)
     */
    private boolean isThisSystemsProc() {
        try {
            return root.toRealPath().equals(DEFAULT_ROOT.toRealPath()) && Files.readSymbolicLink(root.resolve("self"))
                    .toString().equals(Long.toString(ProcessHandle.current().pid()));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    @Override
    public ProcessStatus status(ProcessKey key) {
        ProcessStatus s = status(key.pid());
        key.requireSameAs(checkKey(key));
        return s;
    }

    @Override
    public List<String> cmdline(ProcessKey key) {
        List<String> c = cmdline(key.pid());
        key.requireSameAs(checkKey(key));
        return c;
    }

    @Override
    public List<ThreadInfo> threads(ProcessKey key, Set<Facet> facets) {
        List<ThreadInfo> t = threads(key.pid(), facets);
        key.requireSameAs(checkKey(key));
        return t;
    }

    /** @return the key to check a reading against: exact for a key with a pidfs inode, else (pid, start time) */
    private ProcessKey checkKey(ProcessKey key) {
        return key.pidfsInode().isPresent() ? key(key.pid()) : plainKey(key.pid());
    }

    @Override
    public ProcessStatus status(long pid) {
        Pids.requireValid(pid);
        ProcBuffer buf = new ProcBuffer();
        String dir = prefix + pid;
        Path file = Path.of(dir, "status");
        buf.readProcessFile(pid, Path.of(dir), file);
        return StatusParser.parse(file, buf.bytes(), buf.length());
    }

    @Override
    public List<String> cmdline(long pid) {
        Pids.requireValid(pid);
        ProcBuffer buf = new ProcBuffer();
        String dir = prefix + pid;
        Path file = Path.of(dir, "cmdline");
        buf.readProcessFile(pid, Path.of(dir), file);
        return CmdlineParser.parse(buf.bytes(), buf.length());
    }

    @Override
    public List<ThreadInfo> threads(long pid, Set<Facet> facets) {
        Pids.requireValid(pid);
        Objects.requireNonNull(facets, "facets");
        String taskDir = prefix + pid + "/task";
        Path pidDir = Path.of(prefix + pid);
        List<Long> tids;
        try {
            tids = listNumeric(Path.of(taskDir));
        } catch (ProcfsException e) {
            ReadFailures.requirePresent(pid, pidDir);
            throw e;
        }
        if (tids.isEmpty()) {
            ReadFailures.requirePresent(pid, pidDir);
        }
        // Each thread's files read as a snapshot reads a process's (natively where it can, no path built per file).
        ProcBuffer buf = new ProcBuffer();
        List<ThreadInfo> out = new ArrayList<>(tids.size());
        try (ProcFiles files = ProcFiles.openForCall(root, prefix, nativeReads, wall)) {
            for (long tid : tids) {
                ProcBuffer.Result r = files.read(pid, tid, ProcFiles.Leaf.STAT, buf);
                if (r == ProcBuffer.Result.NOT_FOUND || r == ProcBuffer.Result.GONE) {
                    continue; // the thread exited
                }
                if (r == ProcBuffer.Result.DENIED) {
                    throw ReadFailures.translate(pid, pidDir, taskFile(pid, tid, ProcFiles.Leaf.STAT), r);
                }
                ProcessStat stat = StatParser.parse(files.source(pid, tid, ProcFiles.Leaf.STAT), buf.bytes(),
                        buf.length(), constants, buf.statFields(StatParser.ALL_FIELDS + 1));
                if (stat.pid() != tid) {
                    requireSameId(taskFile(pid, tid, ProcFiles.Leaf.STAT), stat, tid);
                }
                Optional<ProcessStatus> status = Optional.empty();
                if (facets.contains(Facet.STATUS)) {
                    ProcBuffer.Result sr = files.read(pid, tid, ProcFiles.Leaf.STATUS, buf);
                    if (isThreadGone(sr, pid, tid)) {
                        continue;
                    }
                    if (sr == ProcBuffer.Result.OK) {
                        status = Optional.of(StatusParser.parse(taskFile(pid, tid, ProcFiles.Leaf.STATUS), buf.bytes(),
                                buf.length()));
                    }
                }
                Optional<ProcessIo> io = Optional.empty();
                if (facets.contains(Facet.IO)) {
                    ProcBuffer.Result ir = files.read(pid, tid, ProcFiles.Leaf.IO, buf);
                    if (isThreadGone(ir, pid, tid)) {
                        continue;
                    }
                    if (ir == ProcBuffer.Result.OK) {
                        io = Optional.of(IoParser.parse(files.source(pid, tid, ProcFiles.Leaf.IO), buf.bytes(),
                                buf.length()));
                    }
                }
                Optional<String> wchan = Optional.empty();
                if (facets.contains(Facet.WCHAN)) {
                    ProcBuffer.Result wr = files.read(pid, tid, ProcFiles.Leaf.WCHAN, buf);
                    if (isThreadGone(wr, pid, tid)) {
                        continue;
                    }
                    if (wr == ProcBuffer.Result.OK) {
                        wchan = WchanParser.parse(buf.bytes(), buf.length());
                    }
                }
                out.add(new ThreadInfo(stat, pid, startTime(stat), status, io, wchan));
            }
        }
        if (out.isEmpty()) {
            ReadFailures.requirePresent(pid, pidDir);
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public ResourceLimits limits(long pid) {
        Pids.requireValid(pid);
        ProcBuffer buf = new ProcBuffer();
        try (ProcFiles files = ProcFiles.openForCall(root, prefix, nativeReads, wall)) {
            readLimits(pid, files, buf);
            return LimitsParser.parse(files.source(pid, ProcFiles.Leaf.LIMITS), buf.bytes(), buf.length());
        }
    }

    /** Each thread's buffer for {@link #openFilesLimit}, which a scrape calls for every process. */
    private static final ThreadLocal<ProcBuffer> LIMITS_BUFFER = ThreadLocal.withInitial(ProcBuffer::new);

    /**
     * Reads {@code /proc/PID/limits} as a snapshot reads its files (natively where it can, into a buffer kept
     * per thread) and parses the {@code Max open files} line alone: a scrape asks this for every process.
     */
    @Override
    public java.util.OptionalLong openFilesLimit(long pid) {
        Pids.requireValid(pid);
        ProcBuffer buf = LIMITS_BUFFER.get();
        try (ProcFiles files = ProcFiles.openForCall(root, prefix, nativeReads, wall)) {
            readLimits(pid, files, buf);
            return LimitsParser.openFilesSoft(files.source(pid, ProcFiles.Leaf.LIMITS), buf.bytes(), buf.length());
        }
    }

    /** Each thread's values for {@link #statusCounters}, which a scrape calls for every process. */
    private static final ThreadLocal<StatusCountersParser.Values> COUNTERS =
            ThreadLocal.withInitial(StatusCountersParser.Values::new);

    /**
     * Reads {@code /proc/PID/status} as a snapshot reads its files (natively where it can, into a buffer kept per
     * thread) and parses only the lines of the counters ({@link StatusCountersParser}); where the process has more
     * than one thread, each thread's status the same way for the sums. The id of a thread that leads no thread
     * group is refused, as {@link #process(long, Set)} refuses it.
     */
    @Override
    public StatusCounters statusCounters(long pid) {
        Pids.requireValid(pid);
        ProcBuffer buf = LIMITS_BUFFER.get();
        StatusCountersParser.Values v = COUNTERS.get();
        try (ProcFiles files = ProcFiles.openForCall(root, prefix, nativeReads, wall)) {
            ProcBuffer.Result r = files.read(pid, ProcFiles.Leaf.STATUS, buf);
            if (r != ProcBuffer.Result.OK) {
                throw ReadFailures.translate(pid, Path.of(prefix + pid), file(pid, ProcFiles.Leaf.STATUS), r);
            }
            StatusCountersParser.parse(files.source(pid, ProcFiles.Leaf.STATUS), buf.bytes(), buf.length(), v);
            requireNotAThread(pid, v.tgid);
            long swap = v.swapBytes;
            long voluntary = v.voluntary;
            long nonvoluntary = v.nonvoluntary;
            if (v.threads > 1) {
                Path pidDir = Path.of(prefix + pid);
                List<Long> tids;
                try {
                    tids = listNumeric(Path.of(prefix + pid + "/task"));
                } catch (ProcfsException e) {
                    ReadFailures.requirePresent(pid, pidDir);
                    throw e;
                }
                long sumVoluntary = 0;
                long sumNonvoluntary = 0;
                for (long tid : tids) {
                    ProcBuffer.Result tr = files.read(pid, tid, ProcFiles.Leaf.STATUS, buf);
                    if (tr != ProcBuffer.Result.OK) {
                        if (isThreadGone(tr, pid, tid)) {
                            continue; // the thread exited
                        }
                        throw ReadFailures.translate(pid, pidDir, taskFile(pid, tid, ProcFiles.Leaf.STATUS), tr);
                    }
                    StatusCountersParser.parse(files.source(pid, tid, ProcFiles.Leaf.STATUS), buf.bytes(),
                            buf.length(), v);
                    if (v.tgid != pid) {
                        continue; // the thread exited and its id went to a task of another process
                    }
                    sumVoluntary += Math.max(0, v.voluntary);
                    sumNonvoluntary += Math.max(0, v.nonvoluntary);
                }
                voluntary = voluntary < 0 ? -1 : sumVoluntary;
                nonvoluntary = nonvoluntary < 0 ? -1 : sumNonvoluntary;
            }
            return new StatusCounters(present(swap), present(voluntary), present(nonvoluntary));
        }
    }

    private static java.util.OptionalLong present(long v) {
        return v < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(v);
    }

    /** Reads {@code PID/limits} into {@code buf}, or throws what its absence or refusal means. */
    private void readLimits(long pid, ProcFiles files, ProcBuffer buf) {
        ProcBuffer.Result r = files.read(pid, ProcFiles.Leaf.LIMITS, buf);
        if (r != ProcBuffer.Result.OK) {
            throw ReadFailures.translate(pid, Path.of(prefix + pid), file(pid, ProcFiles.Leaf.LIMITS), r);
        }
    }

    /**
     * Reads one process. With {@code tolerant}, a process that is gone or hidden yields {@code null};
     * without, it raises the typed exception.
     */
    private ProcessInfo read(long pid, Set<Facet> facets, ProcFiles files, ProcBuffer buf, Duration uptime,
                             boolean tolerant) {
        ProcBuffer.Result r = files.read(pid, ProcFiles.Leaf.STAT, buf);
        if (r != ProcBuffer.Result.OK) {
            if (tolerant) {
                return null;
            }
            throw ReadFailures.translate(pid, Path.of(prefix + pid), file(pid, ProcFiles.Leaf.STAT), r);
        }
        ProcessStat stat = StatParser.parse(files.source(pid, ProcFiles.Leaf.STAT), buf.bytes(), buf.length(), constants,
                buf.statFields(StatParser.ALL_FIELDS + 1));
        if (stat.pid() != pid) {
            requireSameId(file(pid, ProcFiles.Leaf.STAT), stat, pid);
        }
        Optional<ProcessStatm> statm = Optional.empty();
        ProcBuffer.Result mr = files.read(pid, ProcFiles.Leaf.STATM, buf);
        if (isGone(mr, files, pid)) {
            return gone(pid, tolerant);
        }
        if (mr == ProcBuffer.Result.OK) {
            statm = Optional.of(StatmParser.parse(files.source(pid, ProcFiles.Leaf.STATM), buf.bytes(), buf.length(),
                    constants));
        }
        long uid = files.ownerUid(pid);
        if (uid < 0) {
            return gone(pid, tolerant);
        }

        Optional<List<String>> cmdline = Optional.empty();
        if (facets.contains(Facet.CMDLINE)) {
            ProcBuffer.Result cr = files.read(pid, ProcFiles.Leaf.CMDLINE, buf);
            if (isGone(cr, files, pid)) {
                return gone(pid, tolerant);
            }
            if (cr == ProcBuffer.Result.OK) {
                cmdline = Optional.of(CmdlineParser.parse(buf.bytes(), buf.length()));
            }
        }
        Optional<ProcessStatus> status = Optional.empty();
        if (facets.contains(Facet.STATUS)) {
            ProcBuffer.Result sr = files.read(pid, ProcFiles.Leaf.STATUS, buf);
            if (isGone(sr, files, pid)) {
                return gone(pid, tolerant);
            }
            if (sr == ProcBuffer.Result.OK) {
                status = Optional.of(StatusParser.parse(file(pid, ProcFiles.Leaf.STATUS), buf.bytes(),
                        buf.length()));
            }
        }
        Optional<CgroupMembership> cgroup = Optional.empty();
        if (facets.contains(Facet.CGROUP)) {
            ProcBuffer.Result gr = files.read(pid, ProcFiles.Leaf.CGROUP, buf);
            if (isGone(gr, files, pid)) {
                return gone(pid, tolerant);
            }
            if (gr == ProcBuffer.Result.OK) {
                cgroup = Optional.of(CgroupOwnerParser.membership(file(pid, ProcFiles.Leaf.CGROUP), buf.bytes(),
                        buf.length()));
            }
        }
        Optional<ProcessIo> io = Optional.empty();
        if (facets.contains(Facet.IO)) {
            ProcBuffer.Result ir = files.read(pid, ProcFiles.Leaf.IO, buf);
            if (isGone(ir, files, pid)) {
                return gone(pid, tolerant);
            }
            if (ir == ProcBuffer.Result.OK) { // DENIED (another user's process): absent, not a failure
                io = Optional.of(IoParser.parse(files.source(pid, ProcFiles.Leaf.IO), buf.bytes(), buf.length()));
            }
        }
        OptionalInt openFds = facets.contains(Facet.FDS) ? countFds(pid, files) : OptionalInt.empty();
        Duration sinceBoot = constants.ticks(stat.startTimeTicks());
        Duration elapsed = uptime.minus(sinceBoot);
        if (elapsed.isNegative()) {
            elapsed = Duration.ZERO;
        }
        return new ProcessInfo(stat, statm, uid, users.name(uid, files.source(pid, null)), TtyNames.name(stat.ttyNr()),
                startTime(stat, sinceBoot, uptime), elapsed, cmdline, status, cgroup, io, openFds);
    }

    /**
     * Counts the numeric entries of {@code /proc/PID/fd} without reading a link. Natively, from the size the kernel
     * gives the directory (Linux 6.2+, where the caller may list it: {@link FdCounter}); else one streamed
     * directory listing, so a process holding a million descriptors costs time, not memory. Empty when it cannot
     * be listed (another user's process, a process gone meanwhile).
     */
    private OptionalInt countFds(long pid, ProcFiles files) {
        if (files.isNative()) {
            FdCounter counter = fdCounter;
            if (counter == null) {
                counter = FdCounter.of(root);
                fdCounter = counter;
            }
            if (counter.bySize()) {
                int bySize = files.openFdsBySize(pid, counter);
                if (bySize >= 0) {
                    return OptionalInt.of(bySize);
                }
            }
        }
        int n = FdDirectory.count(Path.of(prefix + pid));
        return n >= 0 ? OptionalInt.of(n) : OptionalInt.empty();
    }

    /**
     * Opens a view of one job's process tree (see {@link io.github.procscope.api.Procscope#jobTree}).
     *
     * @param root    the job's root, checked by its start time
     * @param options what to read per process
     * @param memory  the memory reader of this table's root, for PSS
     * @return the tree
     */
    public JobTree jobTree(ProcessKey root, JobTreeOptions options, ProcessMemory memory) {
        return LinuxJobTree.open(this, memory, root, options);
    }

    /** @return a file reader for several processes in a row (closed by the caller) */
    ProcFiles openFiles() {
        return ProcFiles.open(root, prefix, nativeReads, wall);
    }

    /** @return the uptime, read into the caller's buffer */
    Duration uptime(ProcBuffer buf) {
        return readUptime(buf);
    }

    /** @return one process read with a shared reader and uptime; {@code null} when it is gone or hidden */
    ProcessInfo readOrNull(long pid, Set<Facet> facets, ProcFiles files, ProcBuffer buf, Duration uptime) {
        return read(pid, facets, files, buf, uptime, true);
    }

    /** @return {@code ROOT/PID/}, the prefix of a process's files */
    String prefix() {
        return prefix;
    }

    /** @return {@code ROOT/PID/LEAF}, built only for messages and lazily parsed sources */
    Path file(long pid, ProcFiles.Leaf leaf) {
        return Path.of(prefix + pid, leaf.fileName);
    }

    /** A stat file names its own task: anything else is a corrupt tree, never silently accepted. */
    private static void requireSameId(Path statFile, ProcessStat stat, long id) {
        if (stat.pid() != id) {
            throw new io.github.procscope.api.core.ProcfsParseException(statFile, stat.pid() + " (" + stat.comm() + ")",
                    "the file names task " + stat.pid() + ", not " + id);
        }
    }

    /** @return whether a failed read means the process is gone ({@link ReadFailures}: stat gone too) */
    private static boolean isGone(ProcBuffer.Result r, ProcFiles files, long pid) {
        return r == ProcBuffer.Result.GONE || (r == ProcBuffer.Result.NOT_FOUND && !files.statExists(pid));
    }

    /** @return whether a failed read of a thread's file means the thread is gone (its {@code stat} gone too) */
    private boolean isThreadGone(ProcBuffer.Result r, long pid, long tid) {
        return r == ProcBuffer.Result.GONE || (r == ProcBuffer.Result.NOT_FOUND
                && ReadFailures.processGone(Path.of(prefix + pid + "/task/" + tid)));
    }

    /** @return {@code ROOT/PID/task/TID/LEAF}, for messages */
    private Path taskFile(long pid, long tid, ProcFiles.Leaf leaf) {
        return Path.of(prefix + pid + "/task/" + tid, leaf.fileName);
    }

    private static boolean isGone(ProcBuffer.Result r, Path dir) {
        return r == ProcBuffer.Result.GONE || (r == ProcBuffer.Result.NOT_FOUND && ReadFailures.processGone(dir));
    }

    private static ProcessInfo gone(long pid, boolean tolerant) {
        if (tolerant) {
            return null;
        }
        throw new NoSuchProcessException(pid);
    }

    private Instant startTime(ProcessStat stat) {
        return startTime(stat, constants.ticks(stat.startTimeTicks()), null);
    }

    /**
     * @param sinceBoot the process's start time since boot
     * @param uptime    the snapshot's uptime, or {@code null}: a start within it (and a day) needs no clock read,
     *                  so that a snapshot allocates nothing per process for the check
     */
    private Instant startTime(ProcessStat stat, Duration sinceBoot, Duration uptime) {
        // A process cannot have started after now: a starttime past the time since boot (with a day to spare
        // for clock steps) is damage, not a date to compute.
        if ((uptime == null || sinceBoot.getSeconds() - uptime.getSeconds() > 86_400)
                && sinceBoot.compareTo(Duration.between(bootTime, Instant.now()).plusDays(1)) > 0) {
            throw new io.github.procscope.api.core.ProcfsParseException(Path.of(prefix + stat.pid(), "stat"),
                    Long.toString(stat.startTimeTicks()), "starttime (field 22) is later than now: "
                    + stat.startTimeTicks() + " ticks after boot");
        }
        return bootTime.plus(sinceBoot);
    }

    private Duration readUptime(ProcBuffer buf) {
        Path file = root.resolve("uptime");
        if (buf.read(file) != ProcBuffer.Result.OK) {
            throw new ProcfsException(file, "cannot read " + file);
        }
        return UptimeParser.parse(file, buf.bytes(), buf.length());
    }

    /**
     * Lists the pids under the root, ascending, as {@code long}s: {@link java.io.File#list()} gives names
     * without a {@link Path} per entry, which a snapshot of thousands of processes would pay for.
     */
    static long[] listPids(Path root) {
        String[] names = root.toFile().list();
        if (names == null) {
            return listNumeric(root).stream().mapToLong(Long::longValue).toArray(); // raises the typed error
        }
        long[] pids = new long[names.length];
        int n = 0;
        for (String name : names) {
            long id = parseId(name);
            if (id > 0) {
                pids[n++] = id;
            }
        }
        long[] out = Arrays.copyOf(pids, n);
        Arrays.sort(out);
        return out;
    }

    /** Lists the all-digit entries of a directory (pids or tids), ascending. */
    static List<Long> listNumeric(Path dir) {
        List<Long> out = new ArrayList<>(512);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                long id = parseId(name);
                if (id > 0) {
                    out.add(id);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            throw new ProcfsException(dir, dir + " does not exist or is not a directory", e);
        } catch (IOException e) {
            throw new ProcfsException(dir, "cannot list " + dir + ": " + e.getMessage(), e);
        }
        Collections.sort(out);
        return out;
    }

    /** @return the number a directory name spells, or -1 if it is not a positive pid */
    static long parseId(String name) {
        long v = parseDecimalName(name, Pids.PID_MAX_LIMIT);
        return v > 0 ? v : -1;
    }

    /**
     * @param name a directory entry's name
     * @param max  the largest value accepted
     * @return the non-negative decimal number the name spells, or -1 if it spells none or one above {@code max}
     */
    static long parseDecimalName(String name, long max) {
        int n = name.length();
        if (n == 0 || n > 10) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v <= max ? v : -1;
    }

    @Override
    public String toString() {
        return "LinuxProcfs[" + root + "]";
    }

    /** Builds a {@link LinuxProcfs} with explicit kernel constants, for fixture trees. */
    public static final class Builder {
        private final Path root;
        private long clockTicksPerSecond;
        private long pageSizeBytes;
        private Boolean nativeReads;
        private NativeWall wall;

        private Builder(Path root) {
            this.root = Objects.requireNonNull(root, "root");
        }

        /**
         * @param ticks clock ticks per second that the tree's numbers are in (100 on nearly every system)
         * @return this builder
         */
        public Builder clockTicksPerSecond(long ticks) {
            if (ticks <= 0) {
                throw new IllegalArgumentException("clock ticks per second must be positive: " + ticks);
            }
            this.clockTicksPerSecond = ticks;
            return this;
        }

        /**
         * @param bytes page size that the tree's page counts are in (4096 on x86-64)
         * @return this builder
         */
        public Builder pageSizeBytes(long bytes) {
            if (bytes <= 0 || Long.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("page size must be a positive power of two: " + bytes);
            }
            this.pageSizeBytes = bytes;
            return this;
        }

        /**
         * Chooses how files are read, for tests that hold both ways to the same results. By default the table
         * reads natively unless the system property {@code procscope.native} is {@code false}.
         *
         * @param allowed whether the native reader may be used (it still falls back to the JDK's when it
         *                cannot be loaded)
         * @return this builder
         */
        public Builder nativeReads(boolean allowed) {
            this.nativeReads = allowed;
            return this;
        }

        /** Native reads through this back end of the wall rather than the JVM's own (tests, benchmarks). */
        public Builder nativeWall(NativeWall backEnd) {
            this.wall = Objects.requireNonNull(backEnd, "backEnd");
            this.nativeReads = true;
            return this;
        }

        /**
         * {@code btime} is whole seconds, so a start time counted from it can be up to a second early. The boot
         * instant is taken instead as now minus {@code uptime} (10 ms resolution), averaged over a few reads,
         * when that agrees with {@code btime} to within two seconds (a live procfs); a fixture tree whose
         * uptime has nothing to do with now keeps its {@code btime}.
         */
        private Instant preciseBoot(Instant btime, ProcBuffer buf) {
            // Once per root and btime in a JVM, so that every table of one procfs gives the same start times.
            String key = root.toAbsolutePath() + "@" + btime;
            Instant known = PRECISE_BOOT.get(key);
            if (known != null) {
                return known;
            }
            Instant boot = estimateBoot(btime, buf);
            Instant raced = PRECISE_BOOT.putIfAbsent(key, boot);
            return raced != null ? raced : boot;
        }

        private Instant estimateBoot(Instant btime, ProcBuffer buf) {
            Path file = root.resolve("uptime");
            long sumNanos = 0;
            int samples = 3;
            Instant first = null;
            for (int i = 0; i < samples; i++) {
                Instant before = Instant.now();
                if (buf.read(file) != ProcBuffer.Result.OK) {
                    return btime;
                }
                // Malformed, it is refused as a FIFO or a huge file in its place is: every command reads it here.
                Duration up = UptimeParser.parse(file, buf.bytes(), buf.length());
                Instant after = Instant.now();
                // Not Duration.dividedBy: it goes through BigDecimal, whose first use costs a one-shot command
                // more than its whole snapshot.
                Instant mid = before.plusNanos(Duration.between(before, after).toNanos() / 2);
                // /proc/uptime is truncated to 10 ms: the boot instant lies up to 10 ms before now - uptime.
                Instant estimate = mid.minus(up).minusMillis(5);
                if (first == null) {
                    first = estimate;
                }
                sumNanos += Duration.between(first, estimate).toNanos();
            }
            Instant boot = first.plusNanos(sumNanos / samples);
            return Duration.between(btime, boot).abs().compareTo(Duration.ofSeconds(2)) <= 0 ? boot : btime;
        }

        /**
         * @return the table; constants not given are read from the running kernel
         * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
         * @throws io.github.procscope.api.core.ProcfsParseException if its {@code stat} or {@code uptime} is malformed
         * @throws io.github.procscope.api.core.ProcfsFileRefusedException if either is not a regular file (a FIFO, a
         *                                  device) or is larger than the kernel writes
         */
        public LinuxProcfs build() {
            ProcRoot.requireDirectory(root, "root");
            ProcBuffer buf = new ProcBuffer();
            Path statFile = root.resolve("stat");
            if (buf.read(statFile) != ProcBuffer.Result.OK) {
                throw new ProcfsUnavailableException(root, "it has no readable stat file (is procfs mounted there?)");
            }
            // No btime line: not a procfs (a directory with some other stat file). A btime line that does not
            // parse is a procfs whose stat is malformed: the parse error, which names the line, stands.
            if (!KernelStatParser.hasBootTime(buf.bytes(), buf.length())) {
                throw new ProcfsUnavailableException(root, "its stat file has no btime line");
            }
            Instant boot = KernelStatParser.parse(statFile, buf.bytes(), buf.length()).bootTime();
            if (!Files.isReadable(root.resolve("uptime"))) {
                throw new ProcfsUnavailableException(root, "it has no readable uptime file");
            }
            boot = preciseBoot(boot, buf);
            KernelConstants detected = clockTicksPerSecond > 0 && pageSizeBytes > 0 ? null : AuxvParser.detect();
            KernelConstants k = new KernelConstants(
                    clockTicksPerSecond > 0 ? clockTicksPerSecond : detected.clockTicksPerSecond(),
                    pageSizeBytes > 0 ? pageSizeBytes : detected.pageSizeBytes());
            boolean nativeOk = nativeReads != null ? nativeReads
                    : !"false".equalsIgnoreCase(System.getProperty(ProcFiles.NATIVE_PROPERTY));
            return new LinuxProcfs(root, k, boot, nativeOk, wall);
        }
    }
}
