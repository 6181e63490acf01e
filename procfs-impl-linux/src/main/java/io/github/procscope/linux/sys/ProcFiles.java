package io.github.procscope.linux.sys;

import io.github.procscope.api.core.ProcfsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How a process table reads the per-process files of its procfs root, for one snapshot or one call: the
 * few files a snapshot reads for every process, and the owner of each process directory. Two ways, with
 * the same outcomes: natively over this JVM's {@link NativeWall} ({@link WallProcFiles}: {@code openat},
 * {@code read}, {@code close} and {@code statx} relative to a descriptor of the root, no path string built per
 * file), and through the JDK ({@link Jdk}), which is used until the wall has loaded (in the background), when
 * it cannot be loaded, or when the system property {@code procscope.native} is {@code false}. Not thread-safe:
 * one per snapshot or call.
 */
public abstract class ProcFiles implements AutoCloseable, ByteCursor.Source {
    /** The system property that turns the native reader off when set to {@code false}. */
    public static final String NATIVE_PROPERTY = "procscope.native";

    /** The per-process files read through this class. */
    public enum Leaf {
        STAT("stat", true), STATM("statm", true), STATUS("status", true), CMDLINE("cmdline", false),
        CGROUP("cgroup", true), IO("io", true), LIMITS("limits", true), WCHAN("wchan", true);

        public final String fileName;
        final byte[] pathBytes;
        /**
         * Whether the kernel makes the whole file in one go ({@code single_open} seq files): a read that returns
         * fewer bytes than asked for has then returned all of it, and no second read is needed to see the end.
         */
        final boolean wholeInOneRead;
        /** The most bytes the kernel writes to this file ({@link ProcBuffer#limitFor}). */
        final int limit;

        Leaf(String fileName, boolean wholeInOneRead) {
            this.limit = ProcBuffer.limitFor("/1/" + fileName);
            this.fileName = fileName;
            this.pathBytes = ("/" + fileName).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            this.wholeInOneRead = wholeInOneRead;
        }
    }

    final String prefix;
    private long sourcePid;
    private long sourceTid;
    private Leaf sourceLeaf;

    ProcFiles(String prefix) {
        this.prefix = prefix;
    }

    /**
     * Names {@code ROOT/PID/LEAF} (or {@code ROOT/PID} when {@code leaf} is {@code null}) for a parser's
     * messages without building its path: the path is made only if a message needs it, before the next call.
     *
     * @return this, naming that file until the next call
     */
    public ByteCursor.Source source(long pid, Leaf leaf) {
        return source(pid, 0, leaf);
    }

    /**
     * Names {@code ROOT/PID/task/TID/LEAF} as {@link #source(long, Leaf)} names a process's file.
     *
     * @param tid the thread, or 0 for the process's own file
     * @return this, naming that file until the next call
     */
    public ByteCursor.Source source(long pid, long tid, Leaf leaf) {
        this.sourcePid = pid;
        this.sourceTid = tid;
        this.sourceLeaf = leaf;
        return this;
    }

    @Override
    public Path path() {
        String dir = sourceTid > 0 ? prefix + sourcePid + "/task/" + sourceTid : prefix + sourcePid;
        return sourceLeaf == null ? Path.of(dir) : Path.of(dir, sourceLeaf.fileName);
    }

    /** Whether a reader was opened before in this JVM: the first one starts no native loading. */
    private static final AtomicBoolean OPENED_BEFORE = new AtomicBoolean();

    /**
     * @param root   the procfs root
     * @param prefix the root as a string ending in {@code /}
     * @param allowNative whether the native reader may be used
     * @param wall   the back end to read through, or {@code null} for the one this JVM chose
     * @return the native reader when it is allowed and loaded (its loading starts in the background on the
     *         second call in this JVM), else the JDK one
     */
    public static ProcFiles open(Path root, String prefix, boolean allowNative, NativeWall wall) {
        if (!allowNative) {
            return new Jdk(prefix);
        }
        NativeWall w = wall;
        if (w == null) {
            // The first reader of a JVM starts no loading: a one-shot tool (one snapshot) never pays for binding
            // the native calls, which costs more than a small machine's whole snapshot; from the second on the
            // wall loads in the background, and readers use it once it is there.
            boolean startLoading = OPENED_BEFORE.getAndSet(true);
            w = NativeWalls.ifLoaded();
            if (w == null) {
                if (startLoading) {
                    NativeWalls.startLoading();
                }
                return new Jdk(prefix);
            }
        }
        ProcFiles f = WallProcFiles.open(w, root, prefix);
        return f != null ? f : new Jdk(prefix);
    }

    /** The root whose descriptor {@link #openForCall} keeps: this JVM's own procfs. */
    private static final String SHARED_PREFIX = "/proc/";
    /** The descriptor of {@code /proc} that {@link #openForCall} keeps open, or -1 until one is opened. */
    private static volatile int sharedRootFd = -1;
    /** Each thread's reader of the kept descriptor, for one call at a time. */
    private static final ThreadLocal<WallProcFiles> CALL_READERS = new ThreadLocal<>();

    /**
     * As {@link #open}, for a call that reads a file or two of one process (a metrics scrape makes two such calls
     * per process): under this JVM's {@code /proc}, read through this JVM's wall, the reader borrows a descriptor of
     * {@code /proc} that is opened once and kept open for the JVM's life (closing the reader leaves it open), so
     * that the call opens and closes no root of its own; each thread keeps its reader of that descriptor for call
     * after call (closing it ends the call; a call made within another on the same thread gets one of its own).
     * Any other root, and a test's wall, open one per reader.
     *
     * @return the reader, as {@link #open} returns it
     */
    public static ProcFiles openForCall(Path root, String prefix, boolean allowNative, NativeWall wall) {
        if (allowNative && wall == null && SHARED_PREFIX.equals(prefix)) {
            NativeWall w = NativeWalls.ifLoaded();
            if (w != null) {
                int fd = sharedRoot(w);
                if (fd >= 0) {
                    WallProcFiles kept = CALL_READERS.get();
                    if (kept == null || !kept.reads(w, fd)) {
                        kept = WallProcFiles.kept(w, fd, prefix);
                        CALL_READERS.set(kept);
                    }
                    // a call within a call on this thread gets a reader of its own
                    return kept.startCall() ? kept : WallProcFiles.borrowing(w, fd, prefix);
                }
            }
        }
        return open(root, prefix, allowNative, wall);
    }

    /** @return the kept descriptor of {@code /proc}, opened by the first caller; -1 if it cannot be opened */
    private static int sharedRoot(NativeWall w) {
        int fd = sharedRootFd;
        return fd >= 0 ? fd : openSharedRoot(w);
    }

    private static synchronized int openSharedRoot(NativeWall w) {
        if (sharedRootFd < 0) {
            int fd = w.openat(NativeWall.AT_FDCWD, NativeWall.path("/proc"),
                    NativeWall.O_RDONLY | NativeWall.O_DIRECTORY | NativeWall.O_CLOEXEC);
            if (fd < 0) {
                return -1; // tried again next time; this call opens its own
            }
            sharedRootFd = fd;
        }
        return sharedRootFd;
    }

    /**
     * Reads {@code ROOT/PID/LEAF} whole into {@code buf}.
     *
     * @return {@link ProcBuffer.Result#OK} with the bytes in {@code buf}, or why not
     * @throws ProcfsException for an I/O error other than the normal outcomes
     */
    public final ProcBuffer.Result read(long pid, Leaf leaf, ProcBuffer buf) {
        return read(pid, 0, leaf, buf);
    }

    /**
     * Reads {@code ROOT/PID/task/TID/LEAF} (a thread's file) whole into {@code buf}, or with a {@code tid} of 0
     * the process's own {@code ROOT/PID/LEAF}.
     *
     * @return {@link ProcBuffer.Result#OK} with the bytes in {@code buf}, or why not
     * @throws ProcfsException for an I/O error other than the normal outcomes
     */
    public abstract ProcBuffer.Result read(long pid, long tid, Leaf leaf, ProcBuffer buf);

    /**
     * @return the uid owning {@code ROOT/PID} (the directory itself, not followed), or -1 if it is gone
     * @throws ProcfsException if it exists but its owner cannot be read
     */
    public abstract long ownerUid(long pid);

    /**
     * When the size {@code stat} gives {@code ROOT/PID/fd} may stand for the number of open descriptors: the
     * rule is the reader's (it knows the caller's credentials); this floor only reads the size, owner and mode.
     */
    public interface FdCountRule {
        /**
         * @param size  the size {@code stat} gave {@code /proc/PID/fd}
         * @param owner its owner
         * @param mode  its mode
         * @return the number of open descriptors, or -1 where the directory must be listed
         */
        int count(long size, long owner, int mode);
    }

    /**
     * The number of open descriptors of a process from the size the kernel gives {@code ROOT/PID/fd}
     * ({@link FdCountRule}); the JDK way cannot see it and always answers -1.
     *
     * @return the count, or -1 where the directory must be listed instead
     */
    public int openFdsBySize(long pid, FdCountRule counter) {
        return -1;
    }

    /** The path bytes of {@code PID/fd}, NUL-terminated, written into {@code path}. */
    static void writeFdPath(long pid, byte[] path) {
        int n = writePid(pid, path);
        path[n] = '/';
        path[n + 1] = 'f';
        path[n + 2] = 'd';
        path[n + 3] = 0;
    }

    /** @return whether {@code ROOT/PID/stat} still exists, the test of a process being gone */
    public boolean statExists(long pid) {
        return !ReadFailures.processGone(Path.of(prefix + pid));
    }

    /** @return whether the native reader is in use, for tests and benchmarks */
    public abstract boolean isNative();

    @Override
    public abstract void close();

    /** The JDK's way: a {@code FileInputStream} per file and the {@code unix:uid} attribute. */
    static final class Jdk extends ProcFiles {
        Jdk(String prefix) {
            super(prefix);
        }

        @Override
        public ProcBuffer.Result read(long pid, long tid, Leaf leaf, ProcBuffer buf) {
            return buf.read(tid > 0 ? prefix + pid + "/task/" + tid + "/" + leaf.fileName
                    : prefix + pid + "/" + leaf.fileName, leaf.limit);
        }

        @Override
        public long ownerUid(long pid) {
            Path dir = Path.of(prefix + pid);
            try {
                return Integer.toUnsignedLong((Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException | NotDirectoryException e) {
                return -1;
            } catch (IOException e) {
                throw new ProcfsException(dir, "cannot read the owner of " + dir + ": " + e.getMessage(), e);
            }
        }

        @Override
        public boolean isNative() {
            return false;
        }

        @Override
        public void close() {
        }
    }
    /**
     * Writes a pid's decimal digits at the start of {@code path}, the native readers' reused path buffer.
     *
     * @return how many digits
     */
    static int writePid(long pid, byte[] path) {
        int digits = 1;
        for (long v = pid; v >= 10; v /= 10) {
            digits++;
        }
        long v = pid;
        for (int i = digits - 1; i >= 0; i--) {
            path[i] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        return digits;
    }

    /** @return the path of a process's file, for messages */
    static Path file(String prefix, long pid, Leaf leaf) {
        return file(prefix, pid, 0, leaf);
    }

    /** @return the path of a thread's file ({@code tid} above 0) or a process's, for messages */
    static Path file(String prefix, long pid, long tid, Leaf leaf) {
        return tid > 0 ? Path.of(prefix + pid + "/task/" + tid, leaf.fileName) : Path.of(prefix + pid, leaf.fileName);
    }

    /**
     * Writes {@code PID/LEAF}, or {@code PID/task/TID/LEAF} for a {@code tid} above 0, NUL-terminated, into the
     * native readers' reused path buffer (64 bytes: two ids of at most 10 digits and the longest leaf fit).
     */
    static void writePath(long pid, long tid, Leaf leaf, byte[] path) {
        int n = writePid(pid, path);
        if (tid > 0) {
            for (byte b : TASK) {
                path[n++] = b;
            }
            n = writeDecimal(tid, path, n);
        }
        System.arraycopy(leaf.pathBytes, 0, path, n, leaf.pathBytes.length);
        path[n + leaf.pathBytes.length] = 0;
    }

    private static final byte[] TASK = {'/', 't', 'a', 's', 'k', '/'};

    /** Writes {@code v}'s decimal digits at {@code at}; @return where they end */
    private static int writeDecimal(long v, byte[] path, int at) {
        int digits = 1;
        for (long x = v; x >= 10; x /= 10) {
            digits++;
        }
        long x = v;
        for (int i = at + digits - 1; i >= at; i--) {
            path[i] = (byte) ('0' + (x % 10));
            x /= 10;
        }
        return at + digits;
    }

    /**
     * Turns the {@code errno} of a failed open or read of a process's file into a result
     * ({@link ReadFailures#classify(int)}: not found, gone, denied); anything else is a {@link ProcfsException}
     * naming the file.
     */
    static ProcBuffer.Result outcome(int errno, String prefix, long pid, long tid, Leaf leaf) {
        ProcBuffer.Result r = ReadFailures.classify(errno);
        if (r == null) {
            Path f = file(prefix, pid, tid, leaf);
            throw new ProcfsException(f, "cannot read " + f + ": " + Errno.describe(errno));
        }
        return r;
    }
}
