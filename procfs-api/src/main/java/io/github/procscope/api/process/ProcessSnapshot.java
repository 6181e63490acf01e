package io.github.procscope.api.process;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Every process at one moment: the {@code ps -e} view. Immutable; processes are in ascending pid order.
 * Processes that exited while the snapshot was read are simply absent; processes whose kernel files are
 * malformed are left out too, and named in {@link #unreadable()}.
 */
public final class ProcessSnapshot {
    private final Instant takenAt;
    private final Duration uptime;
    private final Set<Facet> facets;
    private final List<ProcessInfo> processes;
    private final List<UnreadableProcess> unreadable;
    private volatile Map<Long, ProcessInfo> byPid;

    /**
     * Creates a snapshot in which no process was left out.
     *
     * @param takenAt   the wall-clock time the snapshot began
     * @param uptime    the system's uptime when it began ({@code /proc/uptime}); elapsed times and
     *                  {@link CpuUsage} are measured on this clock
     * @param facets    the facets that were read for every process
     * @param processes the processes, in any order (they are sorted by pid)
     */
    public ProcessSnapshot(Instant takenAt, Duration uptime, Set<Facet> facets, List<ProcessInfo> processes) {
        this(takenAt, uptime, facets, processes, List.of());
    }

    /**
     * Creates a snapshot.
     *
     * @param takenAt    the wall-clock time the snapshot began
     * @param uptime     the system's uptime when it began
     * @param facets     the facets that were read for every process
     * @param processes  the processes, in any order (they are sorted by pid)
     * @param unreadable the processes left out because their kernel files are malformed
     */
    public ProcessSnapshot(Instant takenAt, Duration uptime, Set<Facet> facets, List<ProcessInfo> processes,
                           List<UnreadableProcess> unreadable) {
        this.unreadable = List.copyOf(unreadable);
        this.takenAt = Objects.requireNonNull(takenAt, "takenAt");
        this.uptime = Objects.requireNonNull(uptime, "uptime");
        this.facets = facets.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(facets));
        ProcessInfo[] sorted = processes.toArray(new ProcessInfo[0]);
        java.util.Arrays.sort(sorted, (a, b) -> Long.compare(a.pid(), b.pid()));
        this.processes = List.of(sorted);
    }

    /** {@return when the snapshot began (wall clock)} */
    public Instant takenAt() {
        return takenAt;
    }

    /** {@return the system's uptime when the snapshot began} */
    public Duration uptime() {
        return uptime;
    }

    /** {@return the facets read for every process} */
    public Set<Facet> facets() {
        return facets;
    }

    /** {@return the processes, ascending by pid} */
    public List<ProcessInfo> processes() {
        return processes;
    }

    /** {@return the processes left out because their kernel files are malformed; usually empty} */
    public List<UnreadableProcess> unreadable() {
        return unreadable;
    }

    /** {@return the number of processes} */
    public int size() {
        return processes.size();
    }

    /**
     * {@return the process with that pid in this snapshot, if any}
     *
     * @param pid a process id
     */
    public Optional<ProcessInfo> find(long pid) {
        return Optional.ofNullable(index().get(pid));
    }

    /**
     * {@return the process, if this snapshot holds that pid with that start time (a snapshot reads no pidfs
     * inode, so a key's inode is not compared: a process that took the pid within the key's clock tick
     * matches)}
     *
     * @param key a process identity
     */
    public Optional<ProcessInfo> find(ProcessKey key) {
        ProcessInfo p = index().get(key.pid());
        return p != null && p.startTimeTicks() == key.startTimeTicks() ? Optional.of(p) : Optional.empty();
    }

    /**
     * {@return the process with that pid}
     *
     * @param pid a process id
     * @throws NoSuchProcessException if this snapshot holds no such process
     */
    public ProcessInfo get(long pid) {
        ProcessInfo p = index().get(pid);
        if (p == null) {
            throw new NoSuchProcessException(pid, "no such process in the snapshot taken at " + takenAt + ": pid " + pid);
        }
        return p;
    }

    /** {@return the parent-child structure of this snapshot} */
    public ProcessTree tree() {
        return ProcessTree.of(processes);
    }

    private Map<Long, ProcessInfo> index() {
        Map<Long, ProcessInfo> m = byPid;
        if (m == null) {
            Map<Long, ProcessInfo> built = new HashMap<>(processes.size() * 2);
            for (ProcessInfo p : processes) {
                built.put(p.pid(), p);
            }
            m = Collections.unmodifiableMap(built);
            byPid = m;
        }
        return m;
    }

    @Override
    public String toString() {
        return "ProcessSnapshot[" + processes.size() + " processes at " + takenAt + "]";
    }
}
