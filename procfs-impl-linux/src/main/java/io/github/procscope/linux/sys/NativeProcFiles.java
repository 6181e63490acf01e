package io.github.procscope.linux.sys;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.linux.sys.internal.NativeLibc;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The native way of {@link ProcFiles}: one descriptor of the procfs root, opened per snapshot, and for each
 * file {@code openat(root, "PID/LEAF")}, {@code read} into native memory copied once into the
 * {@link ProcBuffer}, and {@code close}; the owner of {@code PID} by {@code statx} relative to the root.
 * Paths are written as bytes into one reused array and the native memory is kept per thread, so reading a
 * file allocates nothing. The outcomes (and their errno) are those of the JDK way. Not thread-safe: one
 * reader per snapshot or call, used by the thread that opened it.
 */
final class NativeProcFiles extends ProcFiles {
    private static final int AT_FDCWD = -100;
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_MODE = 0x2;
    private static final int STATX_UID = 0x8;
    /** The {@code stx_size} bit of a statx mask. */
    private static final int STATX_SIZE_BIT = 0x200;
    /** Offset of {@code stx_size} in {@code struct statx}. */
    private static final int STX_SIZE_OFFSET = 40;
    /** Offset of {@code stx_mode} in {@code struct statx}. */
    private static final int STX_MODE_OFFSET = 28;
    private static final int S_IFMT = 0xF000;
    private static final int S_IFREG = 0x8000;
    private static final byte[] EMPTY_PATH = {0};
    /** Offset of {@code stx_uid} in {@code struct statx}, the same on every architecture. */
    private static final int STX_UID_OFFSET = 20;
    private static final int STATX_SIZE = 256;
    private static final int CHUNK = 16 * 1024;

    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    private final NativeLibc.ProcLibC lib;
    private final jnr.ffi.Runtime runtime;
    private final int rootFd;
    private final int openFlags;
    private final Pointer chunk;
    private final Pointer statx;
    private final byte[] path = new byte[64];
    private boolean closed;

    /** Native memory for reads and statx, one pair per thread, reused by every reader that thread opens. */
    private static final ThreadLocal<Pointer[]> BUFFERS = ThreadLocal.withInitial(() -> {
        jnr.ffi.Runtime rt = NativeLibc.procRuntime();
        return new Pointer[] {Memory.allocateDirect(rt, CHUNK), Memory.allocateDirect(rt, STATX_SIZE)};
    });

    private NativeProcFiles(String prefix, NativeLibc.ProcLibC lib, int rootFd, int openFlags) {
        super(prefix);
        this.lib = lib;
        this.runtime = NativeLibc.procRuntime();
        this.rootFd = rootFd;
        this.openFlags = openFlags;
        Pointer[] buffers = BUFFERS.get();
        this.chunk = buffers[0];
        this.statx = buffers[1];
    }

    /**
     * @return a reader of {@code root}, or {@code null} if the native calls are not loaded (yet: this starts
     *         loading them in the background) or not available here
     */
    static NativeProcFiles open(Path root, String prefix) {
        return open(root, prefix, true);
    }

    /**
     * @param startLoading whether to start loading the native calls in the background if they are not loaded
     * @return a reader of {@code root}, or {@code null} if the native calls are not loaded (yet) or not
     *         available here
     */
    static NativeProcFiles open(Path root, String prefix, boolean startLoading) {
        NativeLibc.ProcLibC lib = NativeLibc.procLibCIfLoaded();
        if (lib == null) {
            if (startLoading) {
                NativeLibc.startLoadingProcLibC();
            }
            return null;
        }
        int cloexec = jnr.constants.platform.OpenFlags.O_CLOEXEC.intValue();
        int directory = jnr.constants.platform.OpenFlags.O_DIRECTORY.intValue();
        int rdonly = jnr.constants.platform.OpenFlags.O_RDONLY.intValue();
        byte[] rootPath = (root.toAbsolutePath() + "\0").getBytes(StandardCharsets.UTF_8);
        int fd = lib.openat(AT_FDCWD, rootPath, rdonly | directory | cloexec);
        if (fd < 0) {
            return null; // the JDK way reports the failure per file, with its usual outcomes
        }
        int nonblock = jnr.constants.platform.OpenFlags.O_NONBLOCK.intValue();
        return new NativeProcFiles(prefix, lib, fd, rdonly | cloexec | nonblock);
    }

    @Override
    public ProcBuffer.Result read(long pid, Leaf leaf, ProcBuffer buf) {
        int n = writePid(pid, path);
        System.arraycopy(leaf.pathBytes, 0, path, n, leaf.pathBytes.length);
        path[n + leaf.pathBytes.length] = 0;
        buf.clear();
        int fd = lib.openat(rootFd, path, openFlags);
        if (fd < 0) {
            return outcome(runtime.getLastError(), prefix, pid, leaf);
        }
        try {
            while (true) {
                int room = Math.min(CHUNK, buf.room(leaf.limit));
                if (room == 0) {
                    // At the most the kernel writes there: one byte more is a file that is not the kernel's.
                    long more = lib.read(fd, chunk, 1);
                    if (more == 0) {
                        return ProcBuffer.Result.OK;
                    }
                    requireRegularFile(fd, pid, leaf);
                    if (more > 0) {
                        throw ProcBuffer.tooLarge(file(prefix, pid, leaf), leaf.limit);
                    }
                    return outcome(runtime.getLastError(), prefix, pid, leaf);
                }
                long r = lib.read(fd, chunk, room);
                if (r < 0) {
                    int errno = runtime.getLastError();
                    if (errno == EINTR) {
                        continue;
                    }
                    if (errno == EAGAIN) {
                        requireRegularFile(fd, pid, leaf);
                    }
                    return outcome(errno, prefix, pid, leaf);
                }
                if (r == 0) {
                    if (buf.length() == 0) {
                        requireRegularFile(fd, pid, leaf); // a FIFO without a writer reads as empty
                    }
                    return ProcBuffer.Result.OK;
                }
                chunk.get(0, buf.bytes(), buf.length(), (int) r);
                buf.advance((int) r);
                if (r < room && leaf.wholeInOneRead) {
                    return ProcBuffer.Result.OK; // a short read of a single-record file: that was all of it
                }
            }
        } finally {
            lib.close(fd);
        }
    }

    /**
     * Refuses a descriptor that is not of a regular file. Called only when a read looks unlike a kernel file's
     * (empty, would block, or past the limit), so the common read makes no extra call: the descriptor is
     * opened with {@code O_NONBLOCK}, which keeps a FIFO from blocking before this check.
     *
     * @throws ProcfsException if it is a FIFO, device, socket or directory
     */
    private void requireRegularFile(int fd, long pid, Leaf leaf) {
        if (lib.statx(fd, EMPTY_PATH, AT_EMPTY_PATH, STATX_TYPE, statx) != 0) {
            return; // its type unknown, the read's own outcome stands
        }
        int type = statx.getShort(STX_MODE_OFFSET) & S_IFMT;
        if (type != S_IFREG) {
            throw ProcBuffer.notRegular(file(prefix, pid, leaf), kind(type));
        }
    }

    /** @return what a file of type {@code type} ({@code S_IFMT} bits) is, for a message */
    static String kind(int type) {
        switch (type) {
            case 0x1000:
                return "a FIFO";
            case 0x2000:
                return "a character device";
            case 0x4000:
                return "a directory";
            case 0x6000:
                return "a block device";
            case 0xC000:
                return "a socket";
            default:
                return "of type 0" + Integer.toOctalString(type);
        }
    }

    @Override
    public long ownerUid(long pid) {
        int n = writePid(pid, path);
        path[n] = 0;
        if (lib.statx(rootFd, path, AT_SYMLINK_NOFOLLOW, STATX_UID, statx) != 0) {
            int errno = runtime.getLastError();
            if (ReadFailures.classify(errno) == ProcBuffer.Result.NOT_FOUND) {
                return -1;
            }
            Path dir = Path.of(prefix + pid);
            throw new ProcfsException(dir, "cannot read the owner of " + dir + ": " + NativeFs.describe(errno));
        }
        if ((statx.getInt(0) & STATX_UID) == 0) {
            Path dir = Path.of(prefix + pid);
            throw new ProcfsException(dir, "the kernel gave no owner for " + dir);
        }
        return Integer.toUnsignedLong(statx.getInt(STX_UID_OFFSET));
    }

    @Override
    public int openFdsBySize(long pid, FdCountRule counter) {
        writeFdPath(pid, path);
        int need = STATX_TYPE | STATX_MODE | STATX_UID | STATX_SIZE_BIT;
        if (lib.statx(rootFd, path, AT_SYMLINK_NOFOLLOW, need, statx) != 0 || (statx.getInt(0) & need) != need) {
            return -1; // the listing tells what became of it
        }
        return counter.count(statx.getLong(STX_SIZE_OFFSET), Integer.toUnsignedLong(statx.getInt(STX_UID_OFFSET)),
                Short.toUnsignedInt(statx.getShort(STX_MODE_OFFSET)));
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            lib.close(rootFd);
        }
    }
}
