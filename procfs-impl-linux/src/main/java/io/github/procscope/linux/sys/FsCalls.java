package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NativeUnavailableException;

/**
 * The file-system calls of the readers ({@code LinuxOpenFiles}, {@code DirectoryWalker},
 * {@code LinuxSystemResources}, {@code LinuxKernelLog}), whichever back end of the native wall carries
 * them: {@link NativeFs} (jnr-posix, JDK 17 to 21) or {@link WallFs} over the FFM back end (JDK 22+).
 * Thread-safe; a {@link StatBuf} is one thread's.
 */
public interface FsCalls {
    /**
     * @return the file-system calls of this JVM, over the back end {@link NativeWalls#chosen()} names
     * @throws NativeUnavailableException if they cannot be loaded here
     */
    static FsCalls get() {
        String backEnd;
        try {
            backEnd = NativeWalls.chosen();
        } catch (IllegalArgumentException e) {
            throw new NativeUnavailableException("stat/statvfs", e.getMessage(), e);
        }
        if (NativeWalls.FFM.equals(backEnd)) {
            return WallFs.over(NativeWalls.get("stat/statvfs"));
        }
        return NativeFs.get();
    }

    /**
     * {@code open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)}.
     *
     * @return a file descriptor, or minus the errno
     */
    int openNonBlocking(String path);

    /**
     * {@code read(fd, buf, buf.length)}.
     *
     * @return the bytes read (0 at end of file), or minus the errno
     */
    int read(int fd, byte[] buf);

    /** {@code close(fd)}. */
    void close(int fd);

    /** @return a stat buffer for one thread's use */
    StatBuf newStat();

    /**
     * @return the file system's figures
     * @throws NativeFs.NativeErrno with the errno if the call fails
     */
    NativeFs.Statvfs statvfs(String path);

    /** A reusable stat result: call {@link #stat} or {@link #lstat}, then read the fields. One per thread. */
    interface StatBuf {
        /** @return 0, or the errno of the failed {@code stat} (which follows symbolic links) */
        int stat(String path);

        /** @return 0, or the errno of the failed {@code lstat} (which does not follow a final link) */
        int lstat(String path);

        long dev();

        long ino();

        int mode();

        int type();

        long nlink();

        long size();

        /** @return allocated space in bytes ({@code st_blocks} times 512) */
        long allocatedBytes();

        long rdev();
    }
}
