package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.DirectoryTotal;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.linux.sys.FsCalls;
import io.github.procscope.linux.sys.Errno;
import io.github.procscope.linux.sys.FileStatus;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

/**
 * Disk usage under a directory, as {@code du -x}: a parallel walk (one fork-join task per directory) that
 * {@code lstat}s every entry once, does not follow symbolic links, does not enter directories on another
 * device, and counts a file with several links once, by (device, inode).
 */
final class DirectoryWalker {
    private static final Comparator<DirectoryTotal> LARGEST_FIRST = Comparator
            .comparingLong(DirectoryTotal::allocatedBytes).reversed()
            .thenComparing(Comparator.comparingLong(DirectoryTotal::apparentBytes).reversed())
            .thenComparing(DirectoryTotal::path);

    private final int topN;
    private final long rootDevice;
    private final Set<Inode> linked = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Path> unreadable = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Path> otherFileSystems = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<FsCalls.StatBuf> stats;

    private record Inode(long dev, long ino) {
    }

    private DirectoryWalker(FsCalls fs, int topN, long rootDevice) {
        this.topN = topN;
        this.rootDevice = rootDevice;
        this.stats = ThreadLocal.withInitial(fs::newStat);
    }

    /**
     * @param fs          the native calls
     * @param directory   the directory to measure
     * @param topN        how many of the largest directories below it to report
     * @param parallelism how many threads walk
     * @return the usage
     * @throws ProcscopeException if the directory cannot be examined or is not a directory
     */
    static DirectoryUsage walk(FsCalls fs, Path directory, int topN, int parallelism) {
        FsCalls.StatBuf st = fs.newStat();
        int err = st.lstat(directory.toString());
        if (err != 0) {
            throw new ProcscopeException("cannot measure " + directory + ": lstat failed with "
                    + Errno.describe(err));
        }
        if (st.type() != FileStatus.S_IFDIR) {
            throw new ProcscopeException("cannot measure " + directory + ": it is not a directory");
        }
        DirectoryWalker w = new DirectoryWalker(fs, topN, st.dev());
        ForkJoinPool pool = new ForkJoinPool(parallelism);
        Result r;
        try {
            r = pool.invoke(w.new DirTask(directory, st.size(), st.allocatedBytes()));
        } finally {
            pool.shutdown();
        }
        List<Path> bad = new ArrayList<>(w.unreadable);
        bad.sort(null);
        List<Path> others = new ArrayList<>(w.otherFileSystems);
        others.sort(null);
        return new DirectoryUsage(new DirectoryTotal(directory, r.apparent, r.allocated), r.files, r.directories,
                r.largest, bad, others);
    }

    /** The totals of one subtree. */
    private static final class Result {
        long apparent;
        long allocated;
        long files;
        long directories = 1;
        List<DirectoryTotal> largest = List.of();
    }

    /** Measures one directory: its own size plus its entries, forking a task per subdirectory. */
    private final class DirTask extends RecursiveTask<Result> {
        private static final long serialVersionUID = 1L;
        private final transient Path dir;
        private final long ownSize;
        private final long ownAllocated;

        DirTask(Path dir, long ownSize, long ownAllocated) {
            this.dir = dir;
            this.ownSize = ownSize;
            this.ownAllocated = ownAllocated;
        }

        @Override
        protected Result compute() {
            Result r = new Result();
            r.apparent = ownSize;
            r.allocated = ownAllocated;
            List<DirTask> children = new ArrayList<>();
            FsCalls.StatBuf st = stats.get();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path entry : ds) {
                    if (st.lstat(entry.toString()) != 0) {
                        unreadable.add(entry);
                        continue;
                    }
                    if (st.type() == FileStatus.S_IFDIR) {
                        if (st.dev() != rootDevice) {
                            otherFileSystems.add(entry);
                            continue;
                        }
                        DirTask t = new DirTask(entry, st.size(), st.allocatedBytes());
                        t.fork();
                        children.add(t);
                        continue;
                    }
                    if (st.nlink() > 1 && !linked.add(new Inode(st.dev(), st.ino()))) {
                        continue; // another link to a file already counted
                    }
                    r.files++;
                    r.apparent += Math.max(0, st.size());
                    r.allocated += st.allocatedBytes();
                }
            } catch (IOException | DirectoryIteratorException e) {
                unreadable.add(dir);
            }
            List<DirectoryTotal> candidates = new ArrayList<>();
            for (DirTask t : children) {
                Result c = t.join();
                r.apparent += c.apparent;
                r.allocated += c.allocated;
                r.files += c.files;
                r.directories += c.directories;
                if (topN > 0) {
                    candidates.addAll(c.largest);
                    candidates.add(new DirectoryTotal(t.dir, c.apparent, c.allocated));
                }
            }
            if (candidates.size() > topN) {
                candidates.sort(LARGEST_FIRST);
                candidates = new ArrayList<>(candidates.subList(0, topN));
            } else {
                candidates.sort(LARGEST_FIRST);
            }
            r.largest = candidates;
            return r;
        }
    }
}
