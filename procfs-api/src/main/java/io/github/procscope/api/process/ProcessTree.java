package io.github.procscope.api.process;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The parent-child structure of a set of processes read at one moment, such as a
 * {@link ProcessSnapshot}: a training run is not one process but a parent with DataLoader workers,
 * and this is where that shape, zombies and orphans are seen. Immutable.
 *
 * <p>The tree knows only what it was built from: a parent that exited before the snapshot is absent,
 * and its children show the pid that adopted them.
 */
public final class ProcessTree {
    private static final Comparator<ProcessInfo> BY_PID = Comparator.comparingLong(ProcessInfo::pid);

    private final Map<Long, ProcessInfo> byPid;
    private final Map<Long, List<ProcessInfo>> childrenByPid;
    private final List<ProcessInfo> roots;

    private ProcessTree(Collection<ProcessInfo> processes) {
        Map<Long, ProcessInfo> index = new LinkedHashMap<>(processes.size() * 2);
        processes.stream().sorted(BY_PID).forEach(p -> index.put(p.pid(), p));
        Map<Long, List<ProcessInfo>> children = new HashMap<>();
        List<ProcessInfo> rootList = new ArrayList<>();
        for (ProcessInfo p : index.values()) {
            if (p.ppid() != p.pid() && index.containsKey(p.ppid())) {
                children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p);
            } else {
                rootList.add(p);
            }
        }
        Map<Long, List<ProcessInfo>> frozen = new HashMap<>(children.size() * 2);
        children.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
        this.byPid = Collections.unmodifiableMap(index);
        this.childrenByPid = Collections.unmodifiableMap(frozen);
        this.roots = List.copyOf(rootList);
    }

    /**
     * {@return the tree of its processes}
     *
     * @param snapshot a snapshot
     */
    public static ProcessTree of(ProcessSnapshot snapshot) {
        return new ProcessTree(snapshot.processes());
    }

    /**
     * {@return their tree}
     *
     * @param processes processes read at one moment (pids must be distinct)
     * @throws IllegalArgumentException if two processes share a pid
     */
    public static ProcessTree of(Collection<ProcessInfo> processes) {
        Set<Long> seen = new HashSet<>();
        for (ProcessInfo p : processes) {
            if (!seen.add(p.pid())) {
                throw new IllegalArgumentException("two processes with pid " + p.pid() + " in one tree");
            }
        }
        return new ProcessTree(processes);
    }

    /** {@return every process, ascending by pid} */
    public List<ProcessInfo> processes() {
        return List.copyOf(byPid.values());
    }

    /**
     * {@return the process, if it is in the tree}
     *
     * @param pid a process id
     */
    public Optional<ProcessInfo> get(long pid) {
        return Optional.ofNullable(byPid.get(pid));
    }

    /**
     * {@return processes whose parent is not in the tree: PID 1 and PID 2 (ppid 0) on a whole system, or the
     * tops of a partial set}
     */
    public List<ProcessInfo> roots() {
        return roots;
    }

    /**
     * {@return its parent, if the parent is in the tree}
     *
     * @param pid a process id
     */
    public Optional<ProcessInfo> parent(long pid) {
        ProcessInfo p = byPid.get(pid);
        return p == null || p.ppid() == p.pid() ? Optional.empty() : Optional.ofNullable(byPid.get(p.ppid()));
    }

    /**
     * {@return its direct children, ascending by pid (empty if it has none or is not in the tree)}
     *
     * @param pid a process id
     */
    public List<ProcessInfo> children(long pid) {
        return childrenByPid.getOrDefault(pid, List.of());
    }

    /**
     * {@return all its descendants, breadth first (children, then grandchildren ...), itself excluded}
     *
     * @param pid a process id
     */
    public List<ProcessInfo> descendants(long pid) {
        List<ProcessInfo> out = new ArrayList<>();
        ArrayDeque<Long> queue = new ArrayDeque<>();
        queue.add(pid);
        while (!queue.isEmpty()) {
            for (ProcessInfo c : children(queue.poll())) {
                out.add(c);
                queue.add(c.pid());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return its ancestors, parent first, up to the top of the tree (PID 1, or the subreaper or process
     * whose parent is not in the tree); empty if the pid is not in the tree}
     *
     * @param pid a process id
     */
    public List<ProcessInfo> ancestors(long pid) {
        List<ProcessInfo> out = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        Optional<ProcessInfo> p = parent(pid);
        while (p.isPresent() && seen.add(p.get().pid())) {
            out.add(p.get());
            p = parent(p.get().pid());
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return the RSS of the process and all its descendants, in bytes (shared pages are counted once per
     * process, as RSS counts them); 0 if the pid is not in the tree}
     *
     * @param pid a process id
     */
    public long subtreeRssBytes(long pid) {
        ProcessInfo self = byPid.get(pid);
        if (self == null) {
            return 0;
        }
        long sum = self.rssBytes();
        for (ProcessInfo d : descendants(pid)) {
            sum += d.rssBytes();
        }
        return sum;
    }

    /**
     * {@return every zombie with the parent that has not reaped it. Killing a zombie does nothing: the
     * parent must call {@code wait}, or end so that the zombie's adopter reaps it.}
     */
    public List<Zombie> zombies() {
        List<Zombie> out = new ArrayList<>();
        for (ProcessInfo p : byPid.values()) {
            if (p.state() == ProcessState.ZOMBIE) {
                out.add(new Zombie(p, parent(p.pid())));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return zombies grouped by the pid of the parent that does not reap them, ascending by parent pid}
     */
    public Map<Long, List<ProcessInfo>> zombiesByParent() {
        Map<Long, List<ProcessInfo>> out = new java.util.TreeMap<>();
        for (Zombie z : zombies()) {
            out.computeIfAbsent(z.process().ppid(), k -> new ArrayList<>()).add(z.process());
        }
        Map<Long, List<ProcessInfo>> frozen = new java.util.TreeMap<>();
        out.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
        return Collections.unmodifiableMap(frozen);
    }

    /**
     * Orphans adopted by PID 1: user processes whose parent is PID 1. That parent is where the kernel
     * re-parents a process whose own parent exited (unless a subreaper is closer; see
     * {@link #orphans(Set)}). Daemons that detached on purpose look the same: the age, the command
     * line and whether the process still uses CPU tell a leftover of a dead experiment from a service.
     *
     * @return the orphans, ascending by pid
     */
    public List<Orphan> orphans() {
        return orphans(Set.of());
    }

    /**
     * Orphans adopted by PID 1 or by one of the given subreapers (processes that called
     * {@code prctl(PR_SET_CHILD_SUBREAPER)}, such as {@code systemd --user}, {@code tini -s} or a
     * container shim). The kernel does not show who is a subreaper, so the caller names them.
     *
     * @param subreapers pids of processes known to be subreapers
     * @return user processes whose parent is PID 1 or one of those, ascending by pid; kernel threads
     *         and PID 1 itself are never orphans
     */
    public List<Orphan> orphans(Set<Long> subreapers) {
        Objects.requireNonNull(subreapers, "subreapers");
        List<Orphan> out = new ArrayList<>();
        for (ProcessInfo p : byPid.values()) {
            if (p.pid() == 1 || p.isKernelThread() || p.ppid() == 0) {
                continue;
            }
            if (p.ppid() == 1 || subreapers.contains(p.ppid())) {
                out.add(new Orphan(p, p.ppid(), p.elapsed()));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * A zombie and the parent that should reap it.
     *
     * @param process the zombie
     * @param parent  its parent, if the parent is in the tree
     */
    public record Zombie(ProcessInfo process, Optional<ProcessInfo> parent) {
        /** Checks that no component is null. */
        public Zombie {
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(parent, "parent");
        }
    }

    /**
     * A process re-parented to PID 1 or a subreaper.
     *
     * @param process    the process
     * @param adopterPid the pid it was re-parented to
     * @param age        how long it has been running
     */
    public record Orphan(ProcessInfo process, long adopterPid, Duration age) {
        /** Checks that no component is null. */
        public Orphan {
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(age, "age");
        }
    }
}
