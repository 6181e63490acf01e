package io.github.procscope.linux;

import io.github.procscope.api.ProcfsException;
import io.github.procscope.linux.internal.NativeFs;
import io.github.procscope.linux.internal.NativeLibc;
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
    private static final int STATX_UID = 0x8;
    /** Offset of {@code stx_uid} in {@code struct statx}, the same on every architecture. */
    private static final int STX_UID_OFFSET = 20;
    private static final int STATX_SIZE = 256;
    private static final int CHUNK = 16 * 1024;

    private static final int ENOENT = 2;
    private static final int ESRCH = 3;
    private static final int EINTR = 4;
    private static final int EACCES = 13;
    private static final int EPERM = 1;
    private static final int ENOTDIR = 20;

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
        NativeLibc.ProcLibC lib = NativeLibc.procLibCIfLoaded();
        if (lib == null) {
            NativeLibc.startLoadingProcLibC();
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
        return new NativeProcFiles(prefix, lib, fd, rdonly | cloexec);
    }

    @Override
    ProcBuffer.Result read(long pid, Leaf leaf, ProcBuffer buf) {
        int n = writePid(pid);
        System.arraycopy(leaf.pathBytes, 0, path, n, leaf.pathBytes.length);
        path[n + leaf.pathBytes.length] = 0;
        buf.clear();
        int fd = lib.openat(rootFd, path, openFlags);
        if (fd < 0) {
            return outcome(runtime.getLastError(), pid, leaf);
        }
        try {
            while (true) {
                int room = Math.min(CHUNK, buf.room());
                if (room == 0) {
                    throw ProcBuffer.tooLarge(file(pid, leaf));
                }
                long r = lib.read(fd, chunk, room);
                if (r < 0) {
                    int errno = runtime.getLastError();
                    if (errno == EINTR) {
                        continue;
                    }
                    return outcome(errno, pid, leaf);
                }
                if (r == 0) {
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

    @Override
    long ownerUid(long pid) {
        int n = writePid(pid);
        path[n] = 0;
        if (lib.statx(rootFd, path, AT_SYMLINK_NOFOLLOW, STATX_UID, statx) != 0) {
            int errno = runtime.getLastError();
            if (errno == ENOENT || errno == ENOTDIR) {
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
    boolean isNative() {
        return true;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            lib.close(rootFd);
        }
    }

    /** Writes the pid's decimal digits at the start of {@link #path}; returns how many. */
    private int writePid(long pid) {
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

    private Path file(long pid, Leaf leaf) {
        return Path.of(prefix + pid, leaf.fileName);
    }

    private ProcBuffer.Result outcome(int errno, long pid, Leaf leaf) {
        switch (errno) {
            case ENOENT:
            case ENOTDIR:
                return ProcBuffer.Result.NOT_FOUND;
            case ESRCH:
                return ProcBuffer.Result.GONE;
            case EACCES:
            case EPERM:
                return ProcBuffer.Result.DENIED;
            default:
                Path f = file(pid, leaf);
                throw new ProcfsException(f, "cannot read " + f + ": " + NativeFs.describe(errno));
        }
    }
}
