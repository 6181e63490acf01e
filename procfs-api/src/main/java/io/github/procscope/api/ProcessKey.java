package io.github.procscope.api;

/**
 * The identity of a process: its pid together with its start time. A pid alone is not an identity,
 * since the kernel reuses pids; a pid and a start time together never name two processes during one
 * boot. Every action procscope takes on a process re-reads the start time first and refuses to act
 * when it differs (the pid was recycled).
 *
 * @param pid            the process id, between 1 and {@link Pids#PID_MAX_LIMIT}
 * @param startTimeTicks when the process started, in clock ticks after boot ({@code /proc/PID/stat}
 *                       field 22, {@code starttime}); compare only keys read on the same machine
 */
public record ProcessKey(long pid, long startTimeTicks) {
    /**
     * @throws IllegalArgumentException if the pid is out of range or the start time negative
     */
    public ProcessKey {
        Pids.requireValid(pid);
        if (startTimeTicks < 0) {
            throw new IllegalArgumentException("start time must not be negative: " + startTimeTicks);
        }
    }

    @Override
    public String toString() {
        return pid + "@" + startTimeTicks;
    }
}
