package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.api.memory.TotalsSource;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.parse.AuxvParser;
import io.github.procscope.linux.parse.MapsParser;
import io.github.procscope.linux.parse.SmapsParser;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ReadFailures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The memory of processes from a Linux procfs, rooted at a directory: {@code /proc} for the live system,
 * or a fixture tree in tests. Reads {@code /proc/PID/maps}, {@code /proc/PID/smaps},
 * {@code /proc/PID/smaps_rollup} and {@code /proc/PID/stat}, each once per call. Thread-safe; it holds no
 * process data between calls. {@code maps} and {@code smaps} are parsed as they are read, in windows of
 * {@link ProcBuffer#MAX_LINE} bytes, never held whole: reading them costs the regions' records and no more
 * (the {@code smaps} of a process with 100,000 mappings is about 100 MB of text).
 *
 * <p>A process that exits while its maps are read is reported as {@link NoSuchProcessException}, never as a
 * shortened list: after each read the process's {@code stat} is read again, and a process found gone,
 * zombie or exiting voids what was read. A kernel thread or a zombie has no address space: its maps are
 * empty and its totals zero.
 */
public final class LinuxProcessMemory implements ProcessMemory {
    private static final Path DEFAULT_ROOT = Path.of("/proc");

    private final Path root;
    private final KernelConstants constants;
    private final ProcessKeys keys;

    private LinuxProcessMemory(Path root, Supplier<? extends ProcessTable> liveTable, KernelConstants constants) {
        this.root = root;
        this.keys = new ProcessKeys(root, constants, liveTable);
        this.constants = constants;
    }

    /**
     * @param root      a procfs mount, or a fixture tree with the same layout
     * @param liveTable the process table of the live {@code /proc}, asked only when the root is the live one: a
     *                  key's exact form there is the one {@code ProcessTable.key(long)} reads
     * @return the reader under that root
     * @throws ProcfsUnavailableException if the root is not a directory
     */
    public static LinuxProcessMemory at(Path root, Supplier<? extends ProcessTable> liveTable) {
        ProcRoot.requireDirectory(root, "root");
        return new LinuxProcessMemory(root, Objects.requireNonNull(liveTable, "liveTable"), AuxvParser.detect());
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
    public MemoryMaps maps(long pid) {
        return regions(pid, "maps");
    }

    @Override
    public MemoryMaps smaps(long pid) {
        return regions(pid, "smaps");
    }

    @Override
    public void forEachRegion(long pid, Consumer<? super MemoryRegion> action) {
        Objects.requireNonNull(action, "action");
        Pids.requireValid(pid);
        Path dir = root.resolve(Long.toString(pid));
        Path file = dir.resolve("smaps");
        ProcBuffer buf = new ProcBuffer(ProcBuffer.MAX_LINE);
        // A live file may itself be named "... (deleted)": each deleted mark is checked as it goes, as smaps() does.
        SmapsParser.Regions parser = new SmapsParser.Regions(() -> file,
                r -> action.accept(r.deleted() ? liveNamesOf(dir, List.of(r)).get(0) : r));
        buf.streamProcessFile(pid, dir, file, parser);
        parser.finish();
        if (parser.count() > 0) {
            ProcessLiveness.requireRunning(pid, dir, buf, constants);
        } else {
            ReadFailures.requirePresent(pid, dir);
        }
    }

    private MemoryMaps regions(long pid, String name) {
        Pids.requireValid(pid);
        Path dir = root.resolve(Long.toString(pid));
        Path file = dir.resolve(name);
        ProcBuffer buf = new ProcBuffer(ProcBuffer.MAX_LINE);
        List<MemoryRegion> regions;
        if (name.equals("maps")) {
            MapsParser.Regions parser = new MapsParser.Regions(() -> file);
            buf.streamProcessFile(pid, dir, file, parser);
            regions = parser.finish();
        } else {
            SmapsParser.Regions parser = new SmapsParser.Regions(() -> file);
            buf.streamProcessFile(pid, dir, file, parser);
            regions = parser.finish();
        }
        if (!regions.isEmpty()) {
            ProcessLiveness.requireRunning(pid, dir, buf, constants);
        } else {
            ReadFailures.requirePresent(pid, dir);
        }
        return new MemoryMaps(pid, liveNamesOf(dir, regions));
    }

    /**
     * The kernel appends {@code " (deleted)"} to the path of an unlinked mapped file, and the parser takes that
     * mark off; but a live file may itself be named so. A region whose whole name (mark included), seen from
     * the process's root, is a file with the region's inode is that live file, not a deleted one.
     */
    private static List<MemoryRegion> liveNamesOf(Path dir, List<MemoryRegion> regions) {
        List<MemoryRegion> out = null;
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            if (!r.deleted() || r.pathname().isEmpty()) {
                continue;
            }
            String whole = r.pathname().get() + " (deleted)";
            if (!sameInode(dir, whole, r.inode())) {
                continue;
            }
            if (out == null) {
                out = new java.util.ArrayList<>(regions);
            }
            out.set(i, new MemoryRegion(r.startAddress(), r.endAddress(), r.permissions(), r.offsetBytes(),
                    r.device(), r.inode(), java.util.Optional.of(whole),
                    MapsParser.kind(java.util.Optional.of(whole), false), false, r.usage()));
        }
        return out == null ? regions : out;
    }

    private static boolean sameInode(Path pidDir, String path, long inode) {
        try {
            return Files.getAttribute(Path.of(pidDir + "/root" + path), "unix:ino") instanceof Long i && i == inode;
        } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    @Override
    public MemoryTotals totals(long pid) {
        return totals(pid, true);
    }

    /**
     * @param useRollup false to skip {@code smaps_rollup} and sum {@code smaps}, as on kernels without it
     *                  (for tests of the fallback on a kernel that has both)
     */
    MemoryTotals totals(long pid, boolean useRollup) {
        Pids.requireValid(pid);
        Path dir = root.resolve(Long.toString(pid));
        ProcBuffer buf = new ProcBuffer(4096);
        SmapsCounters counters;
        TotalsSource source = TotalsSource.ROLLUP;
        ProcBuffer.Result r = useRollup ? buf.read(dir.resolve("smaps_rollup")) : ProcBuffer.Result.NOT_FOUND;
        switch (r) {
            case OK:
                counters = buf.length() == 0 ? SmapsCounters.ZERO
                        : SmapsParser.parseRollup(dir.resolve("smaps_rollup"), buf.bytes(), buf.length());
                break;
            case DENIED:
                throw ReadFailures.translate(pid, dir, dir.resolve("smaps_rollup"), r);
            case GONE:
                // ESRCH: the process has no address space (a kernel thread or zombie), or it is gone.
                ReadFailures.requirePresent(pid, dir);
                counters = SmapsCounters.ZERO;
                break;
            case NOT_FOUND:
            default:
                ReadFailures.requirePresent(pid, dir); // else this kernel has no smaps_rollup: sum smaps
                Path smaps = dir.resolve("smaps");
                SmapsParser.Regions parser = new SmapsParser.Regions(() -> smaps);
                buf.streamProcessFile(pid, dir, smaps, parser);
                counters = new MemoryMaps(pid, parser.finish()).usageTotals().orElseThrow();
                source = TotalsSource.SUMMED_SMAPS;
                break;
        }
        ProcessStat stat = ProcessLiveness.read(pid, dir, buf, constants);
        if (ProcessLiveness.exited(stat) && !counters.equals(SmapsCounters.ZERO)) {
            throw ProcessLiveness.exitedWhileRead(pid);
        }
        long vsz = ProcessLiveness.exited(stat) ? 0 : stat.vszBytes();
        return new MemoryTotals(pid, vsz, counters, source);
    }

    @Override
    public String toString() {
        return "LinuxProcessMemory[" + root + "]";
    }
}
