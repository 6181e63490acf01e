package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.NativeLibc;

import io.github.procscope.api.core.NativeUnavailableException;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;
import jnr.posix.FileStat;
import jnr.constants.platform.OpenFlags;
import jnr.posix.POSIX;

/**
 * The native file-system calls procscope needs and the JDK lacks: {@code stat}/{@code lstat} with the
 * block count ({@code st_blocks}) and link count, through jnr-posix, and {@code statvfs(3)}, bound from
 * libc with jnr-ffi. Nothing of jnr leaves this class's package.
 *
 * <p>Loaded lazily, once, on first use; a failure becomes {@link NativeUnavailableException}, raised again
 * on every later use. Thread-safe: {@link Stat} buffers are per caller.
 */
@SuppressWarnings("exports") // exported for jnr-ffi's generated stubs alone (package-info): not API
public final class NativeFs implements FsCalls {
    /** {@code ST_RDONLY} in {@code f_flag}. */
    public static final long ST_RDONLY = 1;

    static final int S_IFMT = 0170000;
    public static final int S_IFSOCK = 0140000;
    public static final int S_IFLNK = 0120000;
    public static final int S_IFREG = 0100000;
    public static final int S_IFBLK = 0060000;
    public static final int S_IFDIR = 0040000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFIFO = 0010000;

    /** The errno values the callers tell apart. */
    public static final int ENOENT = 2;
    static final int ESRCH = 3;
    public static final int EACCES = 13;
    static final int ENOTDIR = 20;
    static final int ELOOP = 40;
    static final int ESTALE = 116;
    public static final int EPERM = 1;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EPIPE = 32;

    /** statvfs(3)'s result, every field as the kernel gives it. */
    public record Statvfs(long blockSize, long fragmentSize, long blocks, long blocksFree, long blocksAvailable,
                   long files, long filesFree, long flags) {
    }

    private static volatile NativeFs instance;

    private final POSIX posix;
    private final NativeLibc.LibC libc;
    private final jnr.ffi.Runtime runtime;

    private NativeFs(POSIX posix, NativeLibc.LibC libc, jnr.ffi.Runtime runtime) {
        this.posix = posix;
        this.libc = libc;
        this.runtime = runtime;
    }

    /**
     * @return the binding
     * @throws NativeUnavailableException if it could not be loaded
     */
    public static NativeFs get() {
        NativeFs f = instance;
        if (f == null) {
            NativeLibc.Loaded l = NativeLibc.get("stat/statvfs");
            f = new NativeFs(l.posix(), l.libc(), l.runtime());
            instance = f;
        }
        return f;
    }

    /**
     * {@code open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)}, for character devices such as
     * {@code /dev/kmsg} that a blocking read would never release.
     *
     * @return a file descriptor, or minus the errno
     */
    @Override
    public int openNonBlocking(String path) {
        int fd = posix.open(path, OpenFlags.O_RDONLY.intValue() | OpenFlags.O_NONBLOCK.intValue()
                | OpenFlags.O_CLOEXEC.intValue(), 0);
        return fd >= 0 ? fd : -Math.max(1, posix.errno());
    }

    /**
     * {@code read(fd, buf, buf.length)}.
     *
     * @return the bytes read (0 at end of file), or minus the errno
     */
    @Override
    public int read(int fd, byte[] buf) {
        int n = posix.read(fd, buf, buf.length);
        return n >= 0 ? n : -Math.max(1, posix.errno());
    }

    /** {@code close(fd)}. */
    @Override
    public void close(int fd) {
        posix.close(fd);
    }

    /** @return a stat buffer for one thread's use */
    @Override
    public Stat newStat() {
        return new Stat(posix.allocateStat());
    }

    /**
     * @param path a path
     * @return the file system's figures
     * @throws NativeErrno with the errno if the call fails
     */
    @Override
    public Statvfs statvfs(String path) {
        Pointer buf = Memory.allocateDirect(runtime, 256);
        int r = libc.statvfs(path, buf);
        if (r != 0) {
            throw new NativeErrno("statvfs", path, runtime.getLastError());
        }
        // struct statvfs on LP64 Linux: eleven unsigned longs, f_fsid at offset 64.
        return new Statvfs(buf.getLong(0), buf.getLong(8), buf.getLong(16), buf.getLong(24), buf.getLong(32),
                buf.getLong(40), buf.getLong(48), buf.getLong(72));
    }

    /** A failed native call: the call, the path and the errno. */
    public static final class NativeErrno extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        public NativeErrno(String call, String path, int errno) {
            super(call + "(" + path + ") failed: " + describe(errno), null, false, false);
            this.errno = errno;
        }

        int errno() {
            return errno;
        }
    }

    /** @return the errno's symbolic name and text, e.g. {@code EACCES (Permission denied)} */
    public static String describe(int errno) {
        try {
            jnr.constants.platform.Errno e = jnr.constants.platform.Errno.valueOf(errno);
            return e.name() + " (" + e.description() + ")";
        } catch (RuntimeException ex) {
            return "errno " + errno;
        }
    }

    /**
     * A reusable {@code struct stat}: call {@link #stat} or {@link #lstat}, then read the fields. Not
     * thread-safe; one per thread.
     */
    public final class Stat implements FsCalls.StatBuf {
        private final FileStat st;

        private Stat(FileStat st) {
            this.st = st;
        }

        /** @return 0, or the errno of the failed {@code stat} (which follows symbolic links) */
        @Override
        public int stat(String path) {
            return posix.stat(path, st) == 0 ? 0 : errno();
        }

        /** @return 0, or the errno of the failed {@code lstat} (which does not follow a final link) */
        @Override
        public int lstat(String path) {
            return posix.lstat(path, st) == 0 ? 0 : errno();
        }

        private int errno() {
            int e = posix.errno();
            return e == 0 ? ENOENT : e;
        }

        @Override
        public long dev() {
            return st.dev();
        }

        @Override
        public long ino() {
            return st.ino();
        }

        @Override
        public int mode() {
            return st.mode();
        }

        @Override
        public int type() {
            return st.mode() & S_IFMT;
        }

        @Override
        public long nlink() {
            return Integer.toUnsignedLong(st.nlink());
        }

        @Override
        public long size() {
            return st.st_size();
        }

        /** @return allocated space in bytes: {@code st_blocks} is in 512-byte units whatever the block size */
        @Override
        public long allocatedBytes() {
            return st.blocks() * 512;
        }

        @Override
        public long rdev() {
            return st.rdev();
        }
    }
}
