package io.github.procscope.api.process;

import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.SignalMasks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One process as {@code ps} shows it, at one moment. The always-present facts come from
 * {@code /proc/PID/stat} ({@link #stat()}), {@code /proc/PID/statm} ({@link #statm()}) and the owner of
 * the {@code /proc/PID} directory; the optional ones are read only when their {@link Facet} was asked
 * for.
 *
 * @param stat      every field of {@code /proc/PID/stat}
 * @param statm     the page counts of {@code /proc/PID/statm}, the exact source of RSS; empty only where
 *                  the kernel does not offer the file (fixture trees, exotic kernels), and then
 *                  {@link #rssBytes()} falls back to {@code stat}'s approximate count
 * @param uid       the owner: the effective user id, from the owner of {@code /proc/PID}
 *                  (as {@code ps -o uid} shows it)
 * @param user      the owner's user name; empty when the user id has no name on this system
 * @param tty       the controlling terminal's name ({@code pts/3}, {@code tty1}, {@code ttyS0});
 *                  empty when there is no terminal or its device number has no known name
 * @param startTime when the process started: boot time plus {@code starttime} (field 22)
 * @param elapsed   how long it had been running when it was read ({@code ps}'s ELAPSED): uptime minus
 *                  the start time
 * @param cmdline   the argument vector from {@code /proc/PID/cmdline}: present only when
 *                  {@link Facet#CMDLINE} was asked for and the file could be read; an empty list for
 *                  kernel threads and zombies, which have none
 * @param status    the facts of {@code /proc/PID/status}: present only when {@link Facet#STATUS} was
 *                  asked for and the file could be read
 * @param cgroup    the cgroups of {@code /proc/PID/cgroup} and the owner they name: present only when
 *                  {@link Facet#CGROUP} was asked for and the file could be read
 * @param io        the I/O counters of {@code /proc/PID/io}: present only when {@link Facet#IO} was asked for
 *                  and the file could be read (the caller's own processes, or any as root)
 * @param openFds   how many file descriptors the process holds open (the entries of {@code /proc/PID/fd}):
 *                  present only when {@link Facet#FDS} was asked for and the directory could be listed
 */
public record ProcessInfo(
        ProcessStat stat,
        Optional<ProcessStatm> statm,
        long uid,
        Optional<String> user,
        Optional<String> tty,
        Instant startTime,
        Duration elapsed,
        Optional<List<String>> cmdline,
        Optional<ProcessStatus> status,
        Optional<CgroupMembership> cgroup,
        Optional<ProcessIo> io,
        OptionalInt openFds) {

    /** Checks components; copies the command line. */
    public ProcessInfo {
        Objects.requireNonNull(stat, "stat");
        Objects.requireNonNull(statm, "statm");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(tty, "tty");
        Objects.requireNonNull(startTime, "startTime");
        Objects.requireNonNull(elapsed, "elapsed");
        cmdline = Objects.requireNonNull(cmdline, "cmdline").map(List::copyOf);
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(cgroup, "cgroup");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(openFds, "openFds");
        if (openFds.isPresent() && openFds.getAsInt() < 0) {
            throw new IllegalArgumentException("a negative count of open file descriptors: " + openFds.getAsInt());
        }
    }

    /**
     * A process read without {@link Facet#IO} or {@link Facet#FDS}.
     *
     * @param stat      see the record's components
     * @param statm     see the record's components
     * @param uid       see the record's components
     * @param user      see the record's components
     * @param tty       see the record's components
     * @param startTime see the record's components
     * @param elapsed   see the record's components
     * @param cmdline   see the record's components
     * @param status    see the record's components
     * @param cgroup    see the record's components
     */
    public ProcessInfo(ProcessStat stat, Optional<ProcessStatm> statm, long uid, Optional<String> user,
                       Optional<String> tty, Instant startTime, Duration elapsed, Optional<List<String>> cmdline,
                       Optional<ProcessStatus> status, Optional<CgroupMembership> cgroup) {
        this(stat, statm, uid, user, tty, startTime, elapsed, cmdline, status, cgroup, Optional.empty(),
                OptionalInt.empty());
    }

    /**
     * A process read without {@link Facet#CGROUP}.
     *
     * @param stat      see the record's components
     * @param statm     see the record's components
     * @param uid       see the record's components
     * @param user      see the record's components
     * @param tty       see the record's components
     * @param startTime see the record's components
     * @param elapsed   see the record's components
     * @param cmdline   see the record's components
     * @param status    see the record's components
     */
    public ProcessInfo(ProcessStat stat, Optional<ProcessStatm> statm, long uid, Optional<String> user,
                       Optional<String> tty, Instant startTime, Duration elapsed, Optional<List<String>> cmdline,
                       Optional<ProcessStatus> status) {
        this(stat, statm, uid, user, tty, startTime, elapsed, cmdline, status, Optional.empty(), Optional.empty(),
                OptionalInt.empty());
    }

    /**
     * {@return the workload the process belongs to (container, Kubernetes pod, Slurm job, systemd unit), as
     * its cgroup paths name it; empty when {@link Facet#CGROUP} was not read or the paths name none. This is
     * not the user who owns the process ({@link #user()})}
     */
    public Optional<Owner> owner() {
        return cgroup.flatMap(CgroupMembership::owner);
    }

    /**
     * {@return the pid as the process itself sees it, inside its (innermost) pid namespace: in a container,
     * the container's pid ({@code NSpid} of {@code /proc/PID/status}); empty unless {@link Facet#STATUS} was
     * read}
     */
    public OptionalLong namespacePid() {
        return status.isPresent() ? OptionalLong.of(status.get().innermostPid()) : OptionalLong.empty();
    }

    /** {@return the process id ({@code /proc/PID/stat} field 1)} */
    public long pid() {
        return stat.pid();
    }

    /** {@return the parent's process id (field 4); 0 for PID 1 and PID 2} */
    public long ppid() {
        return stat.ppid();
    }

    /** {@return the process group id (field 5)} */
    public long pgid() {
        return stat.pgrp();
    }

    /** {@return the session id (field 6)} */
    public long sid() {
        return stat.session();
    }

    /** {@return the controlling terminal's device number (field 7); 0 when there is none} */
    public int ttyNr() {
        return stat.ttyNr();
    }

    /** {@return the scheduling state (field 3)} */
    public ProcessState state() {
        return stat.state();
    }

    /** {@return the command name (field 2), at most 15 bytes, exactly as the kernel holds it} */
    public String comm() {
        return stat.comm();
    }

    /** {@return the number of threads (field 20)} */
    public int threads() {
        return stat.threads();
    }

    /** {@return the virtual memory size, VSZ, in bytes (field 23): address space reserved, touched or not} */
    public long vszBytes() {
        return stat.vszBytes();
    }

    /**
     * {@return the resident set size, RSS, in bytes: memory physically present for the process, as {@code
     * ps} and {@code top} show it ({@code resident} of {@code /proc/PID/statm}; where that file is absent,
     * field 24 of {@code /proc/PID/stat})}
     */
    public long rssBytes() {
        return statm.isPresent() ? statm.get().residentBytes() : stat.rssBytes();
    }

    /** {@return CPU time spent in user mode (field 14)} */
    public Duration userTime() {
        return stat.userTime();
    }

    /** {@return CPU time spent in kernel mode (field 15)} */
    public Duration systemTime() {
        return stat.systemTime();
    }

    /** {@return user plus system CPU time ({@code ps}'s TIME)} */
    public Duration cpuTime() {
        return stat.cpuTime();
    }

    /** {@return the nice value, -20 to 19 (field 19)} */
    public int nice() {
        return stat.nice();
    }

    /** {@return the kernel priority (field 18)} */
    public long priority() {
        return stat.priority();
    }

    /** {@return page faults served without disk I/O (field 10)} */
    public long minorFaults() {
        return stat.minorFaults();
    }

    /** {@return page faults that read from disk (field 12)} */
    public long majorFaults() {
        return stat.majorFaults();
    }

    /** {@return the start time in clock ticks after boot (field 22)} */
    public long startTimeTicks() {
        return stat.startTimeTicks();
    }

    /**
     * {@return the process's identity as a listing reads it: pid with start time, without a pidfs inode
     * (reading one costs a pidfd per process). It is exact to one clock tick: a process that takes this pid
     * within the same tick has an equal key. For an action on one process, {@link ProcessTable#key(long)}
     * reads the exact form.}
     */
    public ProcessKey key() {
        return new ProcessKey(stat.pid(), stat.startTimeTicks());
    }

    /** {@return whether this is a kernel thread (no user space; never a child of a user process)} */
    public boolean isKernelThread() {
        return stat.isKernelThread();
    }

    /**
     * {@return CPU use averaged over the process's life, in percent of one CPU, as {@code ps}'s {@code %CPU}
     * computes it (CPU time / elapsed time); see {@link CpuUsage} for the {@code top}-style figure over an
     * interval}
     */
    public double lifetimeCpuPercent() {
        long elapsedNanos = elapsed.toNanos();
        return elapsedNanos <= 0 ? 0.0 : 100.0 * cpuTime().toNanos() / elapsedNanos;
    }

    /** {@return the signal masks, when {@link Facet#STATUS} was read} */
    public Optional<SignalMasks> signalMasks() {
        return status.map(ProcessStatus::signals);
    }

    /** {@return swapped-out anonymous memory in bytes ({@code VmSwap}), when {@link Facet#STATUS} was read} */
    public OptionalLong swapBytes() {
        return status.isPresent() ? status.get().memory().swapBytes() : OptionalLong.empty();
    }
}
