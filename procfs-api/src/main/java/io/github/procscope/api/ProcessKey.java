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

    /**
     * Checks that a key read now names the same process as this one: the check behind every read that
     * takes a {@code ProcessKey}.
     *
     * @param current the key of the process that holds this pid now
     * @throws NoSuchProcessException   if it started at another time: the process this key names is gone
     *                                  and its pid was reused
     * @throws IllegalArgumentException if {@code current} is for another pid
     */
    public void requireSameAs(ProcessKey current) {
        if (current.pid != pid) {
            throw new IllegalArgumentException("keys of different pids compared: " + this + " and " + current);
        }
        if (current.startTimeTicks != startTimeTicks) {
            throw new NoSuchProcessException(pid, "no such process: pid " + pid
                    + " now belongs to a process started at tick " + current.startTimeTicks
                    + ", not the one started at tick " + startTimeTicks + " (the pid was reused)");
        }
    }

    @Override
    public String toString() {
        return pid + "@" + startTimeTicks;
    }
}
