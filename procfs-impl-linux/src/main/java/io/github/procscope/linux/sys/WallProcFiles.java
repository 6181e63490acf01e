package io.github.procscope.linux.sys;

import io.github.procscope.api.core.ProcfsException;

import java.nio.file.Path;

/**
 * The native way of {@link ProcFiles}, over a {@link NativeWall}, with the outcomes of the JDK way. One descriptor of the procfs root per snapshot (or a kept one borrowed: {@link ProcFiles#openForCall}); for each file
 * {@code openat(root, "PID/LEAF")}, {@code read} into the {@link ProcBuffer}, {@code close}; the owner of
 * {@code PID} by {@code statx}. Paths are written as bytes into one reused array, so reading a file
 * allocates nothing. Not thread-safe: one reader per snapshot or call.
 */
final class WallProcFiles extends ProcFiles {
    private static final int CHUNK = 16 * 1024;

    private final NativeWall wall;
    private final int rootFd;
    /** Whether {@link #rootFd} is this reader's own, closed with it, rather than borrowed. */
    private final boolean ownsRoot;
    private final byte[] path = new byte[64];
    private final FileStatus status = new FileStatus();
    private final byte[] one = new byte[1];
    private boolean closed;
    /** Whether this reader is kept by its thread for call after call ({@link #kept}), closing only ends a call. */
    private final boolean keptByThread;
    /** For a reader kept by its thread: whether a call has it now. */
    private boolean inCall;

    private WallProcFiles(String prefix, NativeWall wall, int rootFd, boolean ownsRoot, boolean keptByThread) {
        super(prefix);
        this.wall = wall;
        this.rootFd = rootFd;
        this.ownsRoot = ownsRoot;
        this.keptByThread = keptByThread;
    }

    /** @return a reader of the root open as {@code rootFd}, which it does not close */
    static WallProcFiles borrowing(NativeWall wall, int rootFd, String prefix) {
        return new WallProcFiles(prefix, wall, rootFd, false, false);
    }

    /**
     * @return a reader of the root open as {@code rootFd} (which it does not close) for one thread to use call
     *         after call: {@link #startCall} before each, {@link #close} after
     */
    static WallProcFiles kept(NativeWall wall, int rootFd, String prefix) {
        return new WallProcFiles(prefix, wall, rootFd, false, true);
    }

    /** @return whether this kept reader reads {@code rootFd} over {@code wall} */
    boolean reads(NativeWall wall, int rootFd) {
        return this.wall == wall && this.rootFd == rootFd;
    }

    /** @return whether this kept reader was free and now serves a call (false while an outer call has it) */
    boolean startCall() {
        if (!keptByThread || inCall) {
            return false;
        }
        inCall = true;
        return true;
    }

    /** @return a reader of {@code root} over {@code wall}, or {@code null} if the root cannot be opened */
    static WallProcFiles open(NativeWall wall, Path root, String prefix) {
        int fd = wall.openat(NativeWall.AT_FDCWD, NativeWall.path(root.toAbsolutePath().toString()),
                NativeWall.O_RDONLY | NativeWall.O_DIRECTORY | NativeWall.O_CLOEXEC);
        if (fd < 0) {
            return null; // the JDK way reports the failure per file, with its usual outcomes
        }
        return new WallProcFiles(prefix, wall, fd, true, false);
    }

    @Override
    public ProcBuffer.Result read(long pid, long tid, Leaf leaf, ProcBuffer buf) {
        writePath(pid, tid, leaf, path);
        buf.clear();
        // O_NONBLOCK: a FIFO where a kernel file should be cannot block the open or a read.
        int fd = wall.openat(rootFd, path, NativeWall.O_RDONLY | NativeWall.O_CLOEXEC | NativeWall.O_NONBLOCK);
        if (fd < 0) {
            return outcome(-fd, prefix, pid, tid, leaf);
        }
        try {
            while (true) {
                // At most one chunk per read (the wall's back ends copy through a 16 KiB native buffer), so
                // that a short read means the end of a single-record file, not the end of the chunk.
                int room = Math.min(CHUNK, buf.room(leaf.limit));
                if (room == 0) {
                    // At the most the kernel writes there: one byte more is a file that is not the kernel's.
                    long more = wall.read(fd, one, 0, 1);
                    if (more == 0) {
                        return ProcBuffer.Result.OK;
                    }
                    requireRegularFile(fd, pid, tid, leaf);
                    if (more > 0) {
                        throw ProcBuffer.tooLarge(file(prefix, pid, tid, leaf), leaf.limit);
                    }
                    return outcome((int) -more, prefix, pid, tid, leaf);
                }
                long r = wall.read(fd, buf.bytes(), buf.length(), room);
                if (r < 0) {
                    if (-r == Errno.EINTR) {
                        continue;
                    }
                    if (-r == Errno.EAGAIN) {
                        requireRegularFile(fd, pid, tid, leaf);
                    }
                    return outcome((int) -r, prefix, pid, tid, leaf);
                }
                if (r == 0) {
                    if (buf.length() == 0) {
                        requireRegularFile(fd, pid, tid, leaf); // a FIFO without a writer reads as empty
                    }
                    return ProcBuffer.Result.OK;
                }
                buf.advance((int) r);
                if (r < room && leaf.wholeInOneRead) {
                    return ProcBuffer.Result.OK; // a short read of a single-record file: that was all of it
                }
            }
        } finally {
            wall.close(fd);
        }
    }

    /**
     * Refuses a descriptor that is not of a regular file. Called only when a read looks unlike a kernel file's
     * (empty, would block, or past the limit), so the common read makes no extra call: the descriptor is opened
     * with {@code O_NONBLOCK}, which keeps a FIFO from blocking before this check.
     *
     * @throws ProcfsException if it is a FIFO, device, socket or directory
     */
    private void requireRegularFile(int fd, long pid, long tid, Leaf leaf) {
        if (wall.fstat(fd, status) != 0 || (status.mask & NativeWall.STATX_TYPE) == 0) {
            return; // its type unknown, the read's own outcome stands
        }
        int type = status.mode & FileStatus.S_IFMT;
        if (type != FileStatus.S_IFREG) {
            throw ProcBuffer.notRegular(file(prefix, pid, tid, leaf), FileStatus.kind(type));
        }
    }

    @Override
    public long ownerUid(long pid) {
        int n = writePid(pid, path);
        path[n] = 0;
        int r = wall.statx(rootFd, path, NativeWall.AT_SYMLINK_NOFOLLOW, NativeWall.STATX_UID, status);
        if (r != 0) {
            int errno = -r;
            if (ReadFailures.classify(errno) == ProcBuffer.Result.NOT_FOUND) {
                return -1;
            }
            Path dir = Path.of(prefix + pid);
            throw new ProcfsException(dir, "cannot read the owner of " + dir + ": " + Errno.describe(errno));
        }
        if ((status.mask & NativeWall.STATX_UID) == 0) {
            Path dir = Path.of(prefix + pid);
            throw new ProcfsException(dir, "the kernel gave no owner for " + dir);
        }
        return status.uid;
    }

    @Override
    public int openFdsBySize(long pid, FdCountRule counter) {
        writeFdPath(pid, path);
        int need = NativeWall.STATX_TYPE | NativeWall.STATX_MODE | NativeWall.STATX_UID | NativeWall.STATX_SIZE;
        if (wall.statx(rootFd, path, NativeWall.AT_SYMLINK_NOFOLLOW, need, status) != 0
                || (status.mask & need) != need) {
            return -1; // the listing tells what became of it
        }
        return counter.count(status.size, status.uid, status.mode);
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public void close() {
        if (keptByThread) {
            inCall = false; // the call is over; the thread keeps the reader
            return;
        }
        if (!closed) {
            closed = true;
            if (ownsRoot) {
                wall.close(rootFd);
            }
        }
    }
}
