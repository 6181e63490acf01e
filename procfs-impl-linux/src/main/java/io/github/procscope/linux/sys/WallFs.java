package io.github.procscope.linux.sys;

/**
 * The file-system calls over a {@link NativeWall}: what {@link NativeFs} does through jnr-posix, with the
 * same results ({@code stat} and {@code lstat} by {@code statx}). Thread-safe; a {@link StatBuf} is one
 * thread's.
 */
final class WallFs implements FsCalls {
    private final NativeWall wall;

    private WallFs(NativeWall wall) {
        this.wall = wall;
    }

    static WallFs over(NativeWall wall) {
        return new WallFs(wall);
    }

    @Override
    public int openNonBlocking(String path) {
        return wall.openat(NativeWall.AT_FDCWD, NativeWall.path(path),
                NativeWall.O_RDONLY | NativeWall.O_NONBLOCK | NativeWall.O_CLOEXEC);
    }

    @Override
    public int read(int fd, byte[] buf) {
        return (int) wall.read(fd, buf, 0, buf.length);
    }

    @Override
    public void close(int fd) {
        wall.close(fd);
    }

    @Override
    public StatBuf newStat() {
        return new Stat();
    }

    @Override
    public NativeFs.Statvfs statvfs(String path) {
        long[] v = new long[11];
        int r = wall.statvfs(NativeWall.path(path), v);
        if (r != 0) {
            throw new NativeFs.NativeErrno("statvfs", path, -r);
        }
        return new NativeFs.Statvfs(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[9]);
    }

    /** A {@code statx} result read as {@code struct stat}. */
    private final class Stat implements StatBuf {
        private final FileStatus st = new FileStatus();

        private int call(String path, int flags) {
            int r = wall.statx(NativeWall.AT_FDCWD, NativeWall.path(path), flags, NativeWall.STATX_BASIC_STATS, st);
            return r == 0 ? 0 : -r;
        }

        @Override
        public int stat(String path) {
            return call(path, 0);
        }

        @Override
        public int lstat(String path) {
            return call(path, NativeWall.AT_SYMLINK_NOFOLLOW);
        }

        @Override
        public long dev() {
            return st.dev();
        }

        @Override
        public long ino() {
            return st.ino;
        }

        @Override
        public int mode() {
            return st.mode;
        }

        @Override
        public int type() {
            return st.type();
        }

        @Override
        public long nlink() {
            return st.nlink;
        }

        @Override
        public long size() {
            return st.size;
        }

        @Override
        public long allocatedBytes() {
            return st.blocks * 512;
        }

        @Override
        public long rdev() {
            return st.rdev();
        }
    }
}
