package io.github.procscope.linux.sys;

/**
 * A decoded {@code struct pidfd_info} of {@code ioctl(pidfd, PIDFD_GET_INFO)} (Linux 6.13+; the exit status
 * from Linux 6.15): the first 64 bytes, the layout's version 0, which every kernel with the call accepts.
 * Reused by one thread, not thread-safe.
 */
public final class PidfdInfo {
    /** The size asked for: {@code PIDFD_INFO_SIZE_VER0}. */
    static final int BYTES = 64;
    /** {@code _IOWR(PIDFS_IOCTL_MAGIC 0xFF, 11, 64 bytes)}. */
    static final long PIDFD_GET_INFO = 0xC040FF0BL;

    static final long INFO_PID = 1;
    static final long INFO_CREDS = 1 << 1;
    static final long INFO_CGROUPID = 1 << 2;
    /** The exit status: set by the kernel only once the process has been reaped (by its parent). */
    public static final long INFO_EXIT = 1 << 3;

    /** What the kernel filled in (the {@code INFO_} bits). */
    public long mask;
    long cgroupId;
    long pid;
    long ppid;
    /** The wait status, as {@code waitpid(2)} gives it, when {@link #INFO_EXIT} is in {@link #mask}. */
    public int exitCode;

    /** Decodes from the bytes of {@code struct pidfd_info} in native order. */
    void decode(java.nio.ByteBuffer b) {
        mask = b.getLong(0);
        cgroupId = b.getLong(8);
        pid = Integer.toUnsignedLong(b.getInt(16));
        ppid = Integer.toUnsignedLong(b.getInt(24));
        exitCode = b.getInt(60);
    }
}
