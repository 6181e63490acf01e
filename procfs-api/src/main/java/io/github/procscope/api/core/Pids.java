package io.github.procscope.api.core;

/**
 * Validation of process ids at the API boundary. A pid at or below zero is refused everywhere:
 * {@code kill(0, sig)} signals the caller's whole process group and {@code kill(-1, sig)} every
 * process the caller may signal, so such a value reaching a system call is never what was meant.
 */
public final class Pids {
    /** The largest pid Linux can hand out: {@code PID_MAX_LIMIT} on 64-bit kernels (2^22). */
    public static final long PID_MAX_LIMIT = 4_194_304L;

    private Pids() {
    }

    /**
     * {@return {@code pid}, if it is between 1 and {@link #PID_MAX_LIMIT}}
     *
     * @param pid a process (or thread) id
     * @throws IllegalArgumentException naming the value and the valid range otherwise
     */
    public static long requireValid(long pid) {
        if (pid <= 0) {
            throw new IllegalArgumentException("invalid pid " + pid + ": pids are positive (0 and negative"
                    + " values would name a process group or every process)");
        }
        if (pid > PID_MAX_LIMIT) {
            throw new IllegalArgumentException("invalid pid " + pid + ": Linux pids are at most "
                    + PID_MAX_LIMIT + " (PID_MAX_LIMIT)");
        }
        return pid;
    }
}
