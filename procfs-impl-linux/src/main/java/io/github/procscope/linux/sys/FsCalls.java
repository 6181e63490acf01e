package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NativeUnavailableException;

/**
 * The file-system calls of the readers ({@code LinuxOpenFiles}, {@code DirectoryWalker},
 * {@code LinuxSystemResources}, {@code LinuxKernelLog}) over this JVM's {@link NativeWall}, whichever back end
 * {@link NativeWalls} chose: {@code stat} and {@code lstat} by {@code statx}, {@code statvfs}, and a
 * non-blocking open and read. Thread-safe; a {@link StatBuf} is one thread's.
 */
public final class FsCalls {
    /** {@code ST_RDONLY} in {@code f_flag}. */
    public static final long ST_RDONLY = 1;

    private final NativeWall wall;

    private FsCalls(NativeWall wall) {
        this.wall = wall;
    }

    /**
     * @return the file-system calls of this JVM, over the wall {@link NativeWalls} chose
     * @throws NativeUnavailableException if the wall cannot be loaded here
     */
    public static FsCalls get() {
        return new FsCalls(NativeWalls.get("stat/statvfs"));
    }

    /** @return the calls over a given back end (for tests that hold every back end to the same results) */
    static FsCalls over(NativeWall wall) {
        return new FsCalls(wall);
    }

    /**
     * {@code open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)}, for character devices such as {@code /dev/kmsg}
     * that a blocking read would never release.
     *
     * @return a file descriptor, or minus the errno
     */
    public int openNonBlocking(String path) {
        return wall.openat(NativeWall.AT_FDCWD, NativeWall.path(path),
                NativeWall.O_RDONLY | NativeWall.O_NONBLOCK | NativeWall.O_CLOEXEC);
    }

    /**
     * {@code read(fd, buf, buf.length)}, at most 16 KiB (the wall's limit per call).
     *
     * @return the bytes read (0 at end of file), or minus the errno
     */
    public int read(int fd, byte[] buf) {
        return (int) wall.read(fd, buf, 0, buf.length);
    }

    /** {@code close(fd)}. */
    public void close(int fd) {
        wall.close(fd);
    }

    /** @return a stat buffer for one thread's use */
    public StatBuf newStat() {
        return new StatBuf(wall);
    }

    /**
     * @param path a path
     * @return the file system's figures
     * @throws NativeErrno with the errno if the call fails
     */
    public Statvfs statvfs(String path) {
        long[] v = new long[11];
        int r = wall.statvfs(NativeWall.path(path), v);
        if (r != 0) {
            throw new NativeErrno("statvfs", path, -r);
        }
        // f_bsize, f_frsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_favail, f_fsid, f_flag, f_namemax
        return new Statvfs(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[9]);
    }

    /** statvfs(3)'s result, every field as the kernel gives it. */
    public record Statvfs(long blockSize, long fragmentSize, long blocks, long blocksFree, long blocksAvailable,
                          long files, long filesFree, long flags) {
    }

    /** A failed native call: the call, the path and the errno. */
    public static final class NativeErrno extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        NativeErrno(String call, String path, int errno) {
            super(call + "(" + path + ") failed: " + Errno.describe(errno), null, false, false);
            this.errno = errno;
        }

        int errno() {
            return errno;
        }
    }

    /**
     * A reusable stat result ({@code statx} read as {@code struct stat}): call {@link #stat} or {@link #lstat},
     * then read the fields. Not thread-safe; one per thread.
     */
    public static final class StatBuf {
        private final NativeWall wall;
        private final FileStatus st = new FileStatus();

        private StatBuf(NativeWall wall) {
            this.wall = wall;
        }

        private int call(String path, int flags) {
            int r = wall.statx(NativeWall.AT_FDCWD, NativeWall.path(path), flags, NativeWall.STATX_BASIC_STATS, st);
            return r == 0 ? 0 : -r;
        }

        /** @return 0, or the errno of the failed {@code stat} (which follows symbolic links) */
        public int stat(String path) {
            return call(path, 0);
        }

        /** @return 0, or the errno of the failed {@code lstat} (which does not follow a final link) */
        public int lstat(String path) {
            return call(path, NativeWall.AT_SYMLINK_NOFOLLOW);
        }

        public long dev() {
            return st.dev();
        }

        public long ino() {
            return st.ino;
        }

        int mode() {
            return st.mode;
        }

        /** @return the file type bits ({@code mode & S_IFMT}: {@link FileStatus#S_IFREG}, ...) */
        public int type() {
            return st.type();
        }

        public long nlink() {
            return st.nlink;
        }

        public long size() {
            return st.size;
        }

        /** @return allocated space in bytes: {@code st_blocks} is in 512-byte units whatever the block size */
        public long allocatedBytes() {
            return st.blocks * 512;
        }

        public long rdev() {
            return st.rdev();
        }
    }
}
