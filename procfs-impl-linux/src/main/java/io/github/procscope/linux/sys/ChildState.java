package io.github.procscope.linux.sys;

/**
 * A decoded {@code siginfo_t} of {@code waitid(2)} for {@code SIGCHLD}: which child, how it ended. Reused by
 * one thread, not thread-safe.
 */
public final class ChildState {
    /** The size of {@code siginfo_t} on Linux. */
    static final int SIGINFO_BYTES = 128;

    public static final int CLD_EXITED = 1;
    public static final int CLD_KILLED = 2;
    public static final int CLD_DUMPED = 3;

    int signo;
    public int code;
    /** 0 when {@code WNOHANG} found no child that changed state. */
    public long pid;
    long uid;
    /** The exit code for {@link #CLD_EXITED}, else the signal number. */
    public int status;

    /** Decodes from the bytes of {@code siginfo_t} in native order (64-bit layout). */
    void decode(java.nio.ByteBuffer b) {
        signo = b.getInt(0);
        code = b.getInt(8);
        // si_signo, si_errno, si_code, then the union aligned to 8: { si_pid, si_uid, si_status }.
        pid = b.getInt(16);
        uid = Integer.toUnsignedLong(b.getInt(20));
        status = b.getInt(24);
    }
}
