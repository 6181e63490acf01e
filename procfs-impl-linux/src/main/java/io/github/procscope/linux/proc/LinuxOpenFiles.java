package io.github.procscope.linux.proc;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.files.FdKind;
import io.github.procscope.api.files.HeldFile;
import io.github.procscope.api.files.HeldFilesScan;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.parse.AuxvParser;
import io.github.procscope.linux.parse.FdinfoParser;
import io.github.procscope.linux.parse.MountinfoParser;
import io.github.procscope.linux.parse.OpenFlagBits;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.sys.FileStatus;
import io.github.procscope.linux.sys.FsCalls;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ReadFailures;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.function.Supplier;

/**
 * Open files from a Linux procfs, rooted at a directory: {@code /proc} for the live system, or a fixture
 * tree in tests. A descriptor's facts come from the link {@code /proc/PID/fd/FD}, a {@code stat(2)} through
 * that link (which reaches the open file itself, even when it has been deleted), and
 * {@code /proc/PID/fdinfo/FD}. Thread-safe; it holds no process data between calls.
 *
 * <p>The system-wide scan for deleted files reads only what it needs: it lists each process's descriptors
 * and {@code stat}s each one; only a regular file with no links left has its link and the process's
 * {@code stat} read. Processes are scanned in parallel.
 */
public final class LinuxOpenFiles implements OpenFiles {
    private static final Path DEFAULT_ROOT = Path.of("/proc");
    private static final String DELETED = " (deleted)";
    /** Processes per task of the parallel scan. */
    private static final int SCAN_CHUNK = 64;

    private final Path root;
    private final KernelConstants constants;
    private final ProcessKeys keys;
    private final OpenFlagBits flagBits;

    private LinuxOpenFiles(Path root, Supplier<? extends ProcessTable> liveTable, KernelConstants constants,
                           OpenFlagBits flagBits) {
        this.root = root;
        this.keys = new ProcessKeys(root, constants, liveTable);
        this.constants = constants;
        this.flagBits = flagBits;
    }

    /**
     * @param root      a procfs mount, or a fixture tree with the same layout
     * @param liveTable the process table of the live {@code /proc}, asked only when the root is the live one: a
     *                  key's exact form there is the one {@code ProcessTable.key(long)} reads
     * @return the reader under that root; open flags are decoded with this machine's values of {@code O_*}
     * @throws ProcfsUnavailableException if the root is not a directory
     */
    public static LinuxOpenFiles at(Path root, Supplier<? extends ProcessTable> liveTable) {
        ProcRoot.requireDirectory(root, "root");
        return new LinuxOpenFiles(root, Objects.requireNonNull(liveTable, "liveTable"), AuxvParser.detect(),
                OpenFlagBits.forThisMachine());
    }

    /** @return the procfs root this reader reads */
    Path root() {
        return root;
    }

    @Override
    public ProcessKey key(long pid) {
        return keys.key(pid); // the exact form on the live /proc, as ProcessTable.key(long) reads it
    }

    @Override
    public List<OpenFd> fds(long pid) {
        Pids.requireValid(pid);
        Path dir = root.resolve(Long.toString(pid));
        Path fdDir = FdDirectory.of(dir);
        int[] numbers = FdDirectory.list(pid, dir);
        FsCalls.StatBuf st = FsCalls.get().newStat();
        ProcBuffer buf = new ProcBuffer(512);
        List<OpenFd> out = new ArrayList<>(numbers.length);
        for (int fd : numbers) {
            OpenFd o = readFd(pid, dir, fdDir, fd, st, buf);
            if (o != null) {
                out.add(o);
            }
        }
        if (out.isEmpty()) {
            ReadFailures.requirePresent(pid, dir);
        } else {
            ProcessLiveness.requireRunning(pid, dir, buf, constants);
        }
        return List.copyOf(out);
    }

    /**
     * @return whether {@code path}, seen from the root of the process of {@code pidDir}, is the file with
     *         device {@code dev} and inode {@code ino}
     */
    static boolean sameFile(Path pidDir, String path, long dev, long ino) {
        try {
            java.util.Map<String, Object> a = Files.readAttributes(Path.of(pidDir + "/root" + path), "unix:dev,ino");
            return a.get("ino") instanceof Long i && i == ino && a.get("dev") instanceof Long d && d == dev;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** @return the descriptor, or null if it was closed while being read */
    private OpenFd readFd(long pid, Path dir, Path fdDir, int fd, FsCalls.StatBuf st, ProcBuffer buf) {
        Path link = fdDir.resolve(Integer.toString(fd));
        String target;
        try {
            target = Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            ProcBuffer.Result r = ReadFailures.classify(e);
            if (r == ProcBuffer.Result.NOT_FOUND || r == ProcBuffer.Result.GONE) {
                ReadFailures.requirePresent(pid, dir);
                return null; // the descriptor closed while it was read
            }
            throw ReadFailures.translate(pid, dir, link, e);
        }
        int err = st.stat(link.toString());
        if (ReadFailures.classify(err) == ProcBuffer.Result.NOT_FOUND && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        boolean known = err == 0;

        Path info = dir.resolve("fdinfo").resolve(Integer.toString(fd));
        FdinfoParser.Fdinfo fdinfo;
        ProcBuffer.Result ir = buf.read(info);
        switch (ir) {
            case OK:
                fdinfo = FdinfoParser.parse(info, buf.bytes(), buf.length(), flagBits);
                break;
            case DENIED:
                throw ReadFailures.translate(pid, dir, info, ir);
            default:
                return null; // closed meanwhile
        }

        FdKind kind = kind(target, known, known ? st.type() : 0);
        boolean isPath = target.startsWith("/");
        // The kernel appends " (deleted)" to an unlinked file's path, but a live file may have that name too:
        // it is deleted only if no file of that whole name is the open one (seen from the process's root).
        boolean deleted = isPath && target.endsWith(DELETED)
                && !(known && st.nlink() > 0 && sameFile(dir, target, st.dev(), st.ino()));
        Optional<String> path = isPath
                ? Optional.of(deleted ? target.substring(0, target.length() - DELETED.length()) : target)
                : Optional.empty();
        boolean sized = known && (kind == FdKind.REGULAR_FILE || kind == FdKind.DIRECTORY);
        boolean device = known && (kind == FdKind.CHARACTER_DEVICE || kind == FdKind.BLOCK_DEVICE);
        OptionalLong inode = known ? OptionalLong.of(st.ino()) : fdinfo.inode();
        return new OpenFd(pid, fd, kind, target, path, deleted,
                sized ? OptionalLong.of(st.size()) : OptionalLong.empty(),
                sized ? OptionalLong.of(st.allocatedBytes()) : OptionalLong.empty(),
                known ? OptionalLong.of(st.nlink()) : OptionalLong.empty(),
                known ? Optional.of(DeviceNumber.fromEncoded(st.dev())) : Optional.empty(),
                inode,
                device ? Optional.of(DeviceNumber.fromEncoded(st.rdev())) : Optional.empty(),
                fdinfo.position(), fdinfo.flags(), fdinfo.mountId());
    }

    /**
     * @param target the link's text
     * @param known  whether {@code type} came from a successful {@code stat}
     * @param type   the {@code S_IFMT} bits of the target's mode
     * @return the descriptor's kind
     */
    static FdKind kind(String target, boolean known, int type) {
        if (target.startsWith("anon_inode:")) {
            return FdKind.ANON_INODE;
        }
        if (known) {
            switch (type) {
                case FileStatus.S_IFREG: return FdKind.REGULAR_FILE;
                case FileStatus.S_IFDIR: return FdKind.DIRECTORY;
                case FileStatus.S_IFCHR: return FdKind.CHARACTER_DEVICE;
                case FileStatus.S_IFBLK: return FdKind.BLOCK_DEVICE;
                case FileStatus.S_IFIFO: return FdKind.PIPE;
                case FileStatus.S_IFSOCK: return FdKind.SOCKET;
                case FileStatus.S_IFLNK: return FdKind.SYMLINK;
                default: return FdKind.UNKNOWN;
            }
        }
        if (target.startsWith("socket:[")) {
            return FdKind.SOCKET;
        }
        if (target.startsWith("pipe:[")) {
            return FdKind.PIPE;
        }
        return FdKind.UNKNOWN;
    }

    /** @return the descriptor number a directory entry names, or -1 if it names none */
    static int parseFd(String name) {
        return FdDirectory.parseFd(name);
    }

    @Override
    public DeletedFilesScan deletedFiles() {
        Instant takenAt = Instant.now();
        List<Long> pids = LinuxProcfs.listNumeric(root);
        FsCalls fs = FsCalls.get();
        int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
        ForkJoinPool pool = new ForkJoinPool(parallelism);
        ScanPart all;
        try {
            all = pool.invoke(new ScanTask(fs, pids, 0, pids.size()));
        } finally {
            pool.shutdown();
        }
        all.files.sort(Comparator.comparingLong(DeletedFile::allocatedBytes).reversed()
                .thenComparingLong(DeletedFile::pid).thenComparingInt(DeletedFile::fd));
        all.unreadable.sort(null);
        return new DeletedFilesScan(takenAt, all.files, spaces(all.files), all.scanned, all.unreadable);
    }

    /** Totals per device, each (device, inode) once. */
    private List<DeletedSpace> spaces(List<DeletedFile> files) {
        if (files.isEmpty()) {
            return List.of();
        }
        Map<DeviceNumber, MountInfo> mounts = mountsByDevice();
        Map<DeviceNumber, long[]> sums = new LinkedHashMap<>();
        Map<DeviceNumber, Set<Long>> seen = new HashMap<>();
        for (DeletedFile f : files) {
            if (!seen.computeIfAbsent(f.device(), d -> new HashSet<>()).add(f.inode())) {
                continue;
            }
            long[] s = sums.computeIfAbsent(f.device(), d -> new long[3]);
            s[0]++;
            s[1] += f.sizeBytes();
            s[2] += f.allocatedBytes();
        }
        List<DeletedSpace> out = new ArrayList<>(sums.size());
        sums.forEach((dev, s) -> {
            MountInfo m = mounts.get(dev);
            out.add(new DeletedSpace(dev, Optional.ofNullable(m).map(MountInfo::mountPoint),
                    Optional.ofNullable(m).map(MountInfo::fsType), (int) s[0], s[1], s[2]));
        });
        out.sort(Comparator.comparingLong(DeletedSpace::allocatedBytes).reversed());
        return out;
    }

    /** @return for each device, its mount (the one showing the file system's root, else the first) */
    private Map<DeviceNumber, MountInfo> mountsByDevice() {
        Path file = root.resolve("self").resolve("mountinfo");
        ProcBuffer buf = new ProcBuffer(16 * 1024);
        Map<DeviceNumber, MountInfo> out = new HashMap<>();
        if (buf.read(file) != ProcBuffer.Result.OK) {
            return out;
        }
        for (MountInfo m : MountinfoParser.parse(file, buf.bytes(), buf.length())) {
            MountInfo prior = out.get(m.device());
            if (prior == null || (!prior.root().equals("/") && m.root().equals("/"))) {
                out.put(m.device(), m);
            }
        }
        return out;
    }

    /** What one part of the scan found. */
    private static final class ScanPart {
        final List<DeletedFile> files = new ArrayList<>();
        final List<Long> unreadable = new ArrayList<>();
        int scanned;

        ScanPart add(ScanPart other) {
            files.addAll(other.files);
            unreadable.addAll(other.unreadable);
            scanned += other.scanned;
            return this;
        }
    }

    /** Scans a range of the pid list, splitting it until it is small. */
    private final class ScanTask extends RecursiveTask<ScanPart> {
        private static final long serialVersionUID = 1L;
        private final transient FsCalls fs;
        private final transient List<Long> pids;
        private final int from;
        private final int to;

        ScanTask(FsCalls fs, List<Long> pids, int from, int to) {
            this.fs = fs;
            this.pids = pids;
            this.from = from;
            this.to = to;
        }

        @Override
        protected ScanPart compute() {
            if (to - from > SCAN_CHUNK) {
                int mid = (from + to) >>> 1;
                ScanTask left = new ScanTask(fs, pids, from, mid);
                left.fork();
                ScanPart right = new ScanTask(fs, pids, mid, to).compute();
                return left.join().add(right);
            }
            ScanPart part = new ScanPart();
            FsCalls.StatBuf st = fs.newStat();
            ProcBuffer buf = new ProcBuffer(1024);
            for (int i = from; i < to; i++) {
                scanProcess(pids.get(i), st, buf, part);
            }
            return part;
        }
    }

    private void scanProcess(long pid, FsCalls.StatBuf st, ProcBuffer buf, ScanPart part) {
        Path dir = root.resolve(Long.toString(pid));
        String fdPrefix = FdDirectory.of(dir) + "/";
        ProcessStat stat = null;
        List<DeletedFile> found = null;
        FdDirectory.Listing listing = FdDirectory.scan(dir);
        if (listing.status() != FdDirectory.Status.READ) {
            if (listing.status() == FdDirectory.Status.DENIED && !ReadFailures.processGone(dir)) {
                part.unreadable.add(pid);
            }
            return; // else the process exited while its descriptors were listed
        }
        for (int fd : listing.fds()) {
            String link = fdPrefix + fd;
            int err = st.stat(link);
            if (ReadFailures.classify(err) == ProcBuffer.Result.DENIED) {
                // The list is there but its descriptors are refused (another user's, or pid 1 under a
                // restricting security module even for root): held deleted files would go unseen.
                if (!ReadFailures.processGone(dir)) {
                    part.unreadable.add(pid);
                }
                return;
            }
            if (err != 0 || st.type() != FileStatus.S_IFREG || st.nlink() != 0) {
                continue;
            }
            String target;
            try {
                target = Files.readSymbolicLink(Path.of(link)).toString();
            } catch (IOException e) {
                continue; // closed meanwhile
            }
            if (stat == null) {
                stat = statOrNull(dir, buf);
                if (stat == null) {
                    return; // the process is gone
                }
            }
            String path = target.endsWith(DELETED) ? target.substring(0, target.length() - DELETED.length())
                    : target;
            if (found == null) {
                found = new ArrayList<>(4);
            }
            found.add(new DeletedFile(new ProcessKey(pid, stat.startTimeTicks()), stat.comm(), fd, path,
                    Math.max(0, st.size()), Math.max(0, st.allocatedBytes()), DeviceNumber.fromEncoded(st.dev()),
                    st.ino()));
        }
        part.scanned++;
        if (found != null) {
            part.files.addAll(found);
        }
    }

    @Override
    public HeldFilesScan heldFiles(String targetPrefix) {
        if (Objects.requireNonNull(targetPrefix, "targetPrefix").isEmpty()) {
            throw new IllegalArgumentException("the target prefix must not be empty");
        }
        List<HeldFile> files = new ArrayList<>();
        List<Long> unreadable = new ArrayList<>();
        int scanned = 0;
        for (long pid : LinuxProcfs.listNumeric(root)) {
            Path dir = root.resolve(Long.toString(pid));
            int before = files.size();
            switch (scanHeld(pid, dir, targetPrefix, files)) {
                case READ -> scanned++;
                case DENIED -> {
                    // Drop what was found before the refusal: the process counts as unreadable, not as read.
                    files.subList(before, files.size()).clear();
                    if (!ReadFailures.processGone(dir)) {
                        unreadable.add(pid);
                    }
                }
                case GONE -> files.subList(before, files.size()).clear();
            }
        }
        files.sort(Comparator.comparingLong(HeldFile::pid).thenComparingInt(HeldFile::fd));
        unreadable.sort(null);
        return new HeldFilesScan(files, scanned, unreadable);
    }

    private static FdDirectory.Status scanHeld(long pid, Path dir, String prefix, List<HeldFile> into) {
        FdDirectory.Listing listing = FdDirectory.scan(dir);
        if (listing.status() != FdDirectory.Status.READ) {
            return listing.status();
        }
        Path fdDir = FdDirectory.of(dir);
        for (int fd : listing.fds()) {
            String target;
            try {
                target = Files.readSymbolicLink(fdDir.resolve(Integer.toString(fd))).toString();
            } catch (IOException e) {
                if (ReadFailures.classify(e) == ProcBuffer.Result.DENIED) {
                    return FdDirectory.Status.DENIED; // listing allowed, links refused (a non-dumpable process)
                }
                continue; // closed meanwhile
            } catch (UnsupportedOperationException e) {
                continue; // not a link
            }
            if (target.startsWith(prefix)) {
                into.add(new HeldFile(pid, fd, target));
            }
        }
        return FdDirectory.Status.READ;
    }

    private ProcessStat statOrNull(Path dir, ProcBuffer buf) {
        Path file = dir.resolve("stat");
        if (buf.read(file) != ProcBuffer.Result.OK) {
            return null;
        }
        return StatParser.parse(file, buf.bytes(), buf.length(), constants);
    }

    @Override
    public String toString() {
        return "LinuxOpenFiles[" + root + "]";
    }
}
