package io.github.procscope.api.process;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One thread (task) of a process, from {@code /proc/PID/task/TID}: the kernel sees threads as tasks
 * that share an address space, and reports each with the same files as a process.
 *
 * @param stat      every field of {@code /proc/PID/task/TID/stat}; {@code stat.pid()} is the thread id
 * @param tgid      the thread group id: the pid of the process the thread belongs to
 * @param startTime when the thread started
 * @param status    {@code /proc/PID/task/TID/status}, present only when {@link Facet#STATUS} was asked
 *                  for and could be read; its signal masks are this thread's own
 * @param io        {@code /proc/PID/task/TID/io}: this thread's own I/O counters, present only when {@link Facet#IO}
 *                  was asked for and the kernel showed them (the process's owner and root only)
 * @param wchan     {@code /proc/PID/task/TID/wchan}: the kernel function the thread sleeps in, present only when
 *                  {@link Facet#WCHAN} was asked for and the thread sleeps in a named function; empty for a thread
 *                  that runs (the kernel prints {@code 0}) or where the kernel withholds it
 */
public record ThreadInfo(ProcessStat stat, long tgid, Instant startTime, Optional<ProcessStatus> status,
                         Optional<ProcessIo> io, Optional<String> wchan) {

    /** Checks that no component is null. */
    public ThreadInfo {
        Objects.requireNonNull(stat, "stat");
        Objects.requireNonNull(startTime, "startTime");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(wchan, "wchan");
    }

    /**
     * A thread read without its I/O counters and wait channel.
     *
     * @param stat      see the record's components
     * @param tgid      see the record's components
     * @param startTime see the record's components
     * @param status    see the record's components
     */
    public ThreadInfo(ProcessStat stat, long tgid, Instant startTime, Optional<ProcessStatus> status) {
        this(stat, tgid, startTime, status, Optional.empty(), Optional.empty());
    }

    /** {@return the thread id} */
    public long tid() {
        return stat.pid();
    }

    /** {@return the thread's name (its {@code comm}, settable with {@code pthread_setname_np}; 15 bytes at most)} */
    public String name() {
        return stat.comm();
    }

    /** {@return the thread's scheduling state} */
    public ProcessState state() {
        return stat.state();
    }

    /** {@return whether this is the main thread (its id equals the process id)} */
    public boolean isMainThread() {
        return stat.pid() == tgid;
    }
}
