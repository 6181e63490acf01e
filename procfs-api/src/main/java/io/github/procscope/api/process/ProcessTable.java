package io.github.procscope.api.process;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The processes of a system, read on demand: the {@code ps}, {@code pstree} and
 * {@code /proc/PID/task} views. Implementations are thread-safe and hold no cached process data: every
 * call reads the kernel anew and returns an immutable value.
 *
 * <p>Typical use:
 * <pre>{@code
 * ProcessTable table = Procscope.system().processes();
 * ProcessSnapshot snapshot = table.snapshot();
 * for (ProcessInfo p : snapshot.processes()) {
 *     System.out.printf("%d %s %d%n", p.pid(), p.comm(), p.rssBytes());
 * }
 * ProcessTree tree = snapshot.tree();
 * tree.zombies().forEach(z -> System.out.println("zombie " + z.process().pid()));
 * }</pre>
 *
 * <p>Errors: a pid at or below 0 or above {@link Pids#PID_MAX_LIMIT} is refused with
 * {@link IllegalArgumentException}; a process that is gone raises {@link NoSuchProcessException};
 * a file the kernel will not show this user raises {@link ProcessAccessDeniedException}.
 */
public interface ProcessTable {

    /**
     * Every process, with {@code /proc/PID/stat}, {@code /proc/PID/statm} and the owner only: the
     * {@code ps -e} view, and the cheapest one. Processes that exit while it is read are left out.
     *
     * @return the snapshot
     */
    default ProcessSnapshot snapshot() {
        return snapshot(Set.of());
    }

    /**
     * Every process, with the given facets read too (each costs one more file per process). A facet
     * that cannot be read for a process (permission) is empty in its {@link ProcessInfo}.
     *
     * @param facets the extra facts to read
     * @return the snapshot
     */
    ProcessSnapshot snapshot(Set<Facet> facets);

    /**
     * Takes a snapshot as {@link #snapshot(Set)} does, handing each process to {@code eachRead} as soon as it is
     * read, before the next process is read. A caller that reads more of every process (its
     * {@link #statusCounters status counters}, its {@link #openFilesLimit limit}) does so while the kernel still
     * holds that process's entries at hand: over thousands of processes a second pass costs the kernel a sixth
     * more than one. The snapshot returned holds the same processes. This default takes the snapshot first and
     * then hands its processes on in order.
     *
     * @param facets   the extra facts to read
     * @param eachRead called with each process of the snapshot, once, in the snapshot's order, on the calling
     *                 thread; what it throws ends the snapshot and is thrown on
     * @return the snapshot
     */
    default ProcessSnapshot snapshot(Set<Facet> facets, Consumer<ProcessInfo> eachRead) {
        Objects.requireNonNull(eachRead, "eachRead");
        ProcessSnapshot snapshot = snapshot(facets);
        snapshot.processes().forEach(eachRead);
        return snapshot;
    }

    /**
     * {@return the process, with {@code stat}, {@code statm} and owner}
     *
     * @param pid a process id
     * @throws NoSuchProcessException   if it does not exist
     * @throws IllegalArgumentException if the pid is out of range
     */
    default ProcessInfo process(long pid) {
        return process(pid, Set.of());
    }

    /**
     * {@return the process; a facet the kernel refuses to show is empty}
     *
     * @param pid    a process id
     * @param facets the extra facts to read
     * @throws NoSuchProcessException   if it does not exist
     * @throws IllegalArgumentException if the pid is out of range
     */
    ProcessInfo process(long pid, Set<Facet> facets);

    /**
     * {@return the process, if the pid still belongs to the process that {@code key} names}
     *
     * @param key    a process identity
     * @param facets the extra facts to read
     * @throws NoSuchProcessException if the process is gone or its pid now names another process
     */
    default ProcessInfo process(ProcessKey key, Set<Facet> facets) {
        ProcessInfo p = process(key.pid(), facets);
        key.requireSameAs(p.key());
        return p;
    }

    /**
     * {@return the process, if the pid still belongs to the process that {@code key} names}
     *
     * @param key a process identity
     * @throws NoSuchProcessException if the process is gone or its pid now names another process
     */
    default ProcessInfo process(ProcessKey key) {
        return process(key, Set.of());
    }

    /**
     * Reads {@code /proc/PID/status}, then checks that the pid still names the process {@code key} names
     * (a reading of a process that replaced it is never returned).
     *
     * @param key a process identity
     * @return the facts of its {@code /proc/PID/status}
     * @throws NoSuchProcessException       if it is gone or its pid now names another process
     * @throws ProcessAccessDeniedException if the kernel refuses to show it
     */
    default ProcessStatus status(ProcessKey key) {
        ProcessStatus s = status(key.pid());
        key.requireSameAs(key(key.pid()));
        return s;
    }

    /**
     * {@return its argument vector, read and then checked against {@code key}}
     *
     * @param key a process identity
     * @throws NoSuchProcessException       if it is gone or its pid now names another process
     * @throws ProcessAccessDeniedException if the kernel refuses to show it
     */
    default List<String> cmdline(ProcessKey key) {
        List<String> c = cmdline(key.pid());
        key.requireSameAs(key(key.pid()));
        return c;
    }

    /**
     * {@return its threads, read and then checked against {@code key}}
     *
     * @param key    a process identity
     * @param facets as for {@link #threads(long, Set)}
     * @throws NoSuchProcessException if it is gone or its pid now names another process
     */
    default List<ThreadInfo> threads(ProcessKey key, Set<Facet> facets) {
        List<ThreadInfo> t = threads(key.pid(), facets);
        key.requireSameAs(key(key.pid()));
        return t;
    }

    /**
     * {@return the process, or empty if it does not exist}
     *
     * @param pid a process id
     * @throws IllegalArgumentException if the pid is out of range
     */
    default Optional<ProcessInfo> find(long pid) {
        try {
            return Optional.of(process(pid));
        } catch (NoSuchProcessException e) {
            return Optional.empty();
        }
    }

    /**
     * The identity of the process that holds a pid, as exact as the kernel allows: on the live system's
     * {@code /proc}, read through a pidfd, with the pidfd's pidfs inode where pidfds live on pidfs (Linux 6.9 and
     * later), so that a process that takes the pid later, even within the same clock tick, is never taken for this
     * one (the form {@link io.github.procscope.api.signals.Signals#key(long)} reads). Under another root, for a
     * process that has exited (a zombie), or where no pidfd can be had: the pid with its start time, as a
     * listing's {@link ProcessInfo#key()}.
     *
     * @param pid a process id
     * @return its identity
     * @throws NoSuchProcessException if it does not exist
     */
    default ProcessKey key(long pid) {
        return process(pid).key();
    }

    /**
     * {@return the facts of {@code /proc/PID/status}}
     *
     * @param pid a process id
     * @throws NoSuchProcessException       if it does not exist
     * @throws ProcessAccessDeniedException if the kernel refuses to show it
     */
    ProcessStatus status(long pid);

    /**
     * {@return its argument vector from {@code /proc/PID/cmdline}; empty for kernel threads and zombies}
     *
     * @param pid a process id
     * @throws NoSuchProcessException       if it does not exist
     * @throws ProcessAccessDeniedException if the kernel refuses to show it
     */
    List<String> cmdline(long pid);

    /**
     * {@return its threads, from {@code /proc/PID/task}, ascending by thread id}
     *
     * @param pid a process id
     * @throws NoSuchProcessException if the process does not exist
     */
    default List<ThreadInfo> threads(long pid) {
        return threads(pid, Set.of());
    }

    /**
     * {@return its threads, ascending by thread id; threads that exit while being read are left out}
     *
     * @param pid    a process id
     * @param facets {@link Facet#STATUS} to read each thread's own status (its signal masks, its context
     *               switches), {@link Facet#IO} its own I/O counters, {@link Facet#WCHAN} the kernel function it
     *               sleeps in; {@link Facet#CMDLINE} is ignored (threads share the process's)
     * @throws NoSuchProcessException if the process does not exist
     */
    List<ThreadInfo> threads(long pid, Set<Facet> facets);

    /**
     * {@return the resource limits of a process, from {@code /proc/PID/limits}}
     *
     * @param pid a process id
     * @throws NoSuchProcessException        if it does not exist
     * @throws ProcessAccessDeniedException  if the kernel refuses to show them
     * @throws UnsupportedOperationException if this implementation cannot read limits
     */
    default ResourceLimits limits(long pid) {
        throw new UnsupportedOperationException("this process table does not read resource limits");
    }

    /**
     * {@return the soft limit on a process's open file descriptors ({@code RLIMIT_NOFILE}, the {@code Max open
     * files} line of {@code /proc/PID/limits}); empty if it is unlimited or not printed}
     * Read afresh on every call, as {@link #limits(long)} (a limit can change at any time, {@code prlimit}); an
     * implementation may read it more cheaply than the whole set, for a caller that asks for every process.
     *
     * @param pid a process id
     * @throws NoSuchProcessException        if it does not exist
     * @throws ProcessAccessDeniedException  if the kernel refuses to show it
     * @throws UnsupportedOperationException if this implementation cannot read limits
     */
    default java.util.OptionalLong openFilesLimit(long pid) {
        return limits(pid).openFiles().map(ResourceLimit::soft).orElse(java.util.OptionalLong.empty());
    }

    /**
     * {@return a process's swapped memory and its context switches summed over its threads, from
     * {@code /proc/PID/status} (and each {@code /proc/PID/task/TID/status} where it has more than one thread)}
     * Read afresh on every call; an implementation may parse only these lines, for a caller that asks for every
     * process. Threads that exit while being read are left out of the sums.
     *
     * @param pid a process id
     * @throws NoSuchProcessException       if it does not exist
     * @throws ProcessAccessDeniedException if the kernel refuses to show it
     */
    default StatusCounters statusCounters(long pid) {
        ProcessStatus s = status(pid);
        if (s.threads() <= 1) {
            return new StatusCounters(s.memory().swapBytes(), s.voluntaryContextSwitches(),
                    s.nonvoluntaryContextSwitches());
        }
        long voluntary = 0;
        long nonvoluntary = 0;
        for (ThreadInfo t : threads(pid, Set.of(Facet.STATUS))) {
            if (t.status().isPresent()) {
                voluntary += t.status().get().voluntaryContextSwitches().orElse(0);
                nonvoluntary += t.status().get().nonvoluntaryContextSwitches().orElse(0);
            }
        }
        return new StatusCounters(s.memory().swapBytes(),
                s.voluntaryContextSwitches().isPresent() ? java.util.OptionalLong.of(voluntary)
                        : java.util.OptionalLong.empty(),
                s.nonvoluntaryContextSwitches().isPresent() ? java.util.OptionalLong.of(nonvoluntary)
                        : java.util.OptionalLong.empty());
    }

    /** {@return when the system booted ({@code btime} in {@code /proc/stat})} */
    Instant bootTime();

    /** {@return how long the system has been up ({@code /proc/uptime}), read now} */
    Duration uptime();

    /** {@return the kernel's clock ticks per second ({@code sysconf(_SC_CLK_TCK)}, usually 100)} */
    long clockTicksPerSecond();

    /** {@return the page size in bytes ({@code sysconf(_SC_PAGESIZE)})} */
    long pageSizeBytes();

    /** {@return the tree of a fresh snapshot} */
    default ProcessTree tree() {
        return snapshot().tree();
    }
}
