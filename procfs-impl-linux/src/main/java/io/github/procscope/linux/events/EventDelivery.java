package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.linux.parse.ProcEventParser;
import io.github.procscope.linux.proc.LinuxProcfs;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A subscription's delivery thread: takes each item from the queue in order, completes a raw event of the process
 * connector (identity and command name from {@code /proc}, kept per process from one event to the next), asks
 * {@link OomAttribution} about an exit by SIGKILL, keeps to the watched tree, and calls the listener. A loss
 * marker makes it read the processes again (a resync) before it tells the listener. A listener that throws
 * costs that event (counted dropped), not the subscription.
 */
final class EventDelivery implements Runnable {
    private final ProcessKey root;
    private final ProcessEventListener listener;
    private final EventSource source;
    private final LinuxProcfs procfs;
    private final EventQueue queue;
    private final OomAttribution attribution;
    /** The OOM counters noted per process (the process connector only), or null. */
    private final OomCounterWatch oom;
    /** For a tree followed through NETLINK or SNAPSHOT_DIFF: its members' pids. */
    private final Set<Long> members = ConcurrentHashMap.newKeySet();
    private final Map<Long, LinuxProcessEvents.Known> known = new ConcurrentHashMap<>();

    EventDelivery(ProcessKey root, ProcessEventListener listener, EventSource source, LinuxProcfs procfs,
                  EventQueue queue, OomAttribution attribution, OomCounterWatch oom) {
        this.root = root;
        this.listener = listener;
        this.source = source;
        this.procfs = procfs;
        this.queue = queue;
        this.attribution = attribution;
        this.oom = oom;
    }

    /** Reads every process again: what is known of each, by pid. */
    Map<ProcessKey, ProcessInfo> resync() {
        ProcessSnapshot snap = procfs.snapshot(Set.of());
        Map<ProcessKey, ProcessInfo> byKey = new HashMap<>();
        Map<Long, LinuxProcessEvents.Known> fresh = new HashMap<>();
        for (ProcessInfo p : snap.processes()) {
            byKey.put(p.key(), p);
            fresh.put(p.pid(), new LinuxProcessEvents.Known(p.key(), p.comm(), p.ppid()));
        }
        known.keySet().retainAll(fresh.keySet());
        for (Map.Entry<Long, LinuxProcessEvents.Known> e : fresh.entrySet()) {
            known.merge(e.getKey(), e.getValue(), (old, now) -> Objects.equals(old.key(), now.key())
                    ? now.withOomCounter(old.oomCounter()) : now);
        }
        return byKey;
    }

    /** The root's tree in a snapshot: its members, with their memory cgroups' OOM counters noted. */
    void followTree(Collection<ProcessInfo> all) {
        Map<Long, List<Long>> kids = new HashMap<>();
        for (ProcessInfo p : all) {
            kids.computeIfAbsent(p.ppid(), x -> new ArrayList<>()).add(p.pid());
        }
        ArrayDeque<Long> todo = new ArrayDeque<>(List.of(root.pid()));
        while (!todo.isEmpty()) {
            long pid = todo.poll();
            if (members.add(pid)) {
                todo.addAll(kids.getOrDefault(pid, List.of()));
                if (oom != null) {
                    LinuxProcessEvents.Known k = known.get(pid);
                    Optional<Path> c = oom.remember(procfs.root().resolve(Long.toString(pid)));
                    if (k != null && c.isPresent()) {
                        known.put(pid, k.withOomCounter(c));
                    }
                }
            }
        }
    }

    /** @return whether the event belongs to the watched tree (all do when no tree is watched) */
    private boolean inTree(ProcessEvent e) {
        if (root == null || source == EventSource.PIDFD) {
            return true;
        }
        if (e.type() == EventType.FORK && e.ppid().isPresent() && members.contains(e.ppid().getAsLong())) {
            members.add(e.pid());
        }
        if (!members.contains(e.pid())) {
            return false;
        }
        if (e.type() == EventType.EXIT) {
            members.remove(e.pid());
        }
        return true;
    }

    @Override
    public void run() {
        while (!queue.closed() || !queue.isEmpty()) {
            EventItem item;
            try {
                item = queue.poll(100);
            } catch (InterruptedException e) {
                return;
            }
            if (item == null) {
                continue;
            }
            try {
                ProcessEvent e;
                if (item.diffed() != null) {
                    e = item.diffed();
                    if (e.type() == EventType.EXIT && e.signal().orElse(0) == 9) {
                        e = attribution.withOomCause(e, item.oomCounter());
                    }
                } else if (item.raw() == null) {
                    if (source != EventSource.PIDFD) {
                        Map<ProcessKey, ProcessInfo> all = resync();
                        if (root != null) {
                            followTree(all.values());
                        }
                    }
                    listener.onLoss(item.lossCount());
                    continue;
                } else {
                    e = complete(item.raw(), item.time());
                }
                if (inTree(e)) {
                    listener.onEvent(e);
                }
            } catch (RuntimeException e) {
                // a listener's failure must not end the subscription; the event is counted as dropped
                queue.countDropped();
            }
        }
    }

    /**
     * Adds identity, command name, and for a SIGKILL the OOM killer's record. Events are completed in the order
     * they happened, and each process's last name is kept from one to the next: a child starts with its
     * parent's name (FORK), an exec gives the name read as its event arrived, a rename gives its own, and an
     * exit takes the last one and forgets the process.
     */
    private ProcessEvent complete(ProcEventParser.Raw r, Instant time) {
        long pid = r.pid();
        Path dir = procfs.root().resolve(Long.toString(pid));
        if (r.what() == ProcEventParser.PROC_EVENT_EXIT) {
            LinuxProcessEvents.Known k = known.remove(pid);
            String comm = k == null ? null : k.comm();
            if (comm == null && k != null && k.key() != null) {
                // an exec whose name could not be read then: the zombie may still show it, if it is the same one
                LinuxProcessEvents.Known now = LinuxProcessEvents.readStat(dir.resolve("stat"), pid,
                        procfs.kernelConstants());
                comm = now != null && k.key().equals(now.key()) ? now.comm() : null;
            }
            OptionalInt code = r.exited() ? OptionalInt.of(r.code()) : OptionalInt.empty();
            OptionalInt sig = r.exited() ? OptionalInt.empty() : OptionalInt.of(r.signal());
            OptionalLong ppid = r.ppid() > 0 ? OptionalLong.of(r.ppid())
                    : k != null && k.ppid() >= 0 ? OptionalLong.of(k.ppid()) : OptionalLong.empty();
            ProcessEvent e = new ProcessEvent(EventType.EXIT, pid, ppid,
                    k == null ? Optional.empty() : Optional.ofNullable(k.key()), Optional.ofNullable(comm), time,
                    code, sig, !r.exited() && r.coreDumped(), Optional.empty(), Optional.empty(),
                    EventSource.NETLINK, true);
            if (sig.isPresent() && sig.getAsInt() == 9) {
                // the counter noted when it forked or exec'd; else its cgroup now, while it may still be a zombie
                Optional<Path> counter = k != null && k.oomCounter().isPresent() ? k.oomCounter()
                        : oom != null ? oom.remember(dir) : Optional.empty();
                e = attribution.withOomCause(e, counter);
            }
            return e;
        }
        LinuxProcessEvents.Known before = known.get(pid);
        LinuxProcessEvents.Known read = LinuxProcessEvents.readStat(dir.resolve("stat"), pid, procfs.kernelConstants());
        String comm;
        EventType type;
        if (r.what() == ProcEventParser.PROC_EVENT_FORK) {
            type = EventType.FORK;
            LinuxProcessEvents.Known parent = known.get(r.ppid());
            // the name it was born with is its parent's; what stat shows now may be a program it exec'd since
            comm = parent != null && parent.comm() != null ? parent.comm() : read != null ? read.comm() : null;
            before = null; // a pid seen before this fork was another process
        } else if (r.what() == ProcEventParser.PROC_EVENT_EXEC) {
            type = EventType.EXEC;
            comm = r.comm() != null ? r.comm() : read != null ? read.comm() : null;
        } else {
            type = EventType.RENAME;
            comm = r.comm();
        }
        ProcessKey key = read != null ? read.key() : before != null ? before.key() : null;
        long ppid = r.ppid() > 0 ? r.ppid() : read != null ? read.ppid() : before != null ? before.ppid() : -1;
        Optional<Path> counter = before != null ? before.oomCounter() : Optional.empty();
        if (read != null && oom != null && type != EventType.RENAME
                && (root == null || members.contains(pid) || members.contains(read.ppid()))) {
            Optional<Path> noted = oom.remember(dir);
            counter = noted.isPresent() ? noted : counter;
        }
        known.put(pid, new LinuxProcessEvents.Known(key, comm, ppid, counter));
        return new ProcessEvent(type, pid, ppid >= 0 ? OptionalLong.of(ppid) : OptionalLong.empty(),
                Optional.ofNullable(key), Optional.ofNullable(comm), time, OptionalInt.empty(), OptionalInt.empty(),
                false, Optional.empty(), Optional.empty(), EventSource.NETLINK, false);
    }
}
