package io.github.procscope.linux.events;

import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessStat;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.EventsUnavailableException;
import io.github.procscope.api.events.ExitCause;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.api.events.ProcessEvents;
import io.github.procscope.linux.parse.FlatKeyedParser;
import io.github.procscope.linux.parse.ProcEventParser;
import io.github.procscope.linux.parse.SelfStatus;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ProcConnectorSocket;

import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.events.EventFlowSubscription;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * {@link ProcessEvents} on Linux: the process connector where it can be opened, else (for a watched tree)
 * pidfds, else snapshot diffing.
 *
 * <p>Two threads per subscription: a reader that only receives and parses (from the socket, or by diffing
 * snapshots) and puts events in a bounded queue — when the queue is full the event is dropped and counted, the
 * reader never waits — and a delivery thread that completes each event (identity and command name from
 * {@code /proc}, the OOM killer's evidence for a SIGKILL: the kernel log's record, or the rise of the victim's
 * memory cgroup's {@code oom_kill} counter) and calls the listener.
 */
public final class LinuxProcessEvents implements ProcessEvents {
    /** Events held between the reader and the listener. */
    static final int QUEUE = 65_536;
    private static final int RECEIVE_BUFFER = 8 << 20;
    private static final int RECEIVE_TIMEOUT_MS = 200;

    /** {@code CAP_NET_ADMIN}'s bit in {@code CapEff}. */
    private static final int CAP_NET_ADMIN = 12;

    private final LinuxProcfs procfs;
    private final Supplier<KernelLog> kernelLog;
    private final Supplier<OomCounterWatch> oomCounters;
    /** Why only snapshot diffing may be used (a procfs that is not this machine's), or empty. */
    private final Optional<String> diffOnly;

    private LinuxProcessEvents(LinuxProcfs procfs, Supplier<KernelLog> kernelLog, Supplier<OomCounterWatch> oom,
                               Optional<String> diffOnly) {
        this.procfs = procfs;
        this.kernelLog = kernelLog;
        this.oomCounters = oom;
        this.diffOnly = diffOnly;
    }

    /** @return events of this machine's processes */
    public static LinuxProcessEvents system() {
        return of(LinuxProcfs.system());
    }

    /**
     * @param procfs the process table that completes events (identity, command name) and that diffing reads
     * @return events read through that table
     */
    public static LinuxProcessEvents of(LinuxProcfs procfs) {
        return of(procfs, LinuxKernelLog::system);
    }

    /**
     * @param procfs    as {@link #of(LinuxProcfs)}
     * @param kernelLog where OOM kills are looked up (a supplier that throws: no kernel log to read)
     * @return events read through that table
     */
    static LinuxProcessEvents of(LinuxProcfs procfs, Supplier<KernelLog> kernelLog) {
        return new LinuxProcessEvents(Objects.requireNonNull(procfs, "procfs"), kernelLog,
                memoize(OomCounterWatch::system), Optional.empty());
    }

    /**
     * @param procfs a process table that is not this machine's live one
     * @param why    why the kernel's sources cannot be used for it
     * @return events by snapshot diffing alone
     */
    public static LinuxProcessEvents diffingOnly(LinuxProcfs procfs, String why) {
        return new LinuxProcessEvents(procfs, LinuxKernelLog::system,
                () -> new OomCounterWatch(null, null), Optional.of(why));
    }

    private static <T> Supplier<T> memoize(Supplier<T> s) {
        return new Supplier<>() {
            private volatile T value;

            @Override
            public T get() {
                T v = value;
                if (v == null) {
                    synchronized (this) {
                        if (value == null) {
                            value = s.get();
                        }
                        v = value;
                    }
                }
                return v;
            }
        };
    }

    @Override
    public EventSubscription subscribe(ProcessEventListener listener, Duration interval) {
        checkArgs(listener, interval);
        return subscribeBest(null, listener, interval);
    }

    @Override
    public EventSubscription subscribe(ProcessEventListener listener, Duration interval, EventSource source) {
        checkArgs(listener, interval);
        Objects.requireNonNull(source, "source");
        if (source == EventSource.PIDFD) {
            throw new EventsUnavailableException("pidfds watch a tree of processes: use subscribeTree");
        }
        return subscribeWith(null, listener, interval, source);
    }

    @Override
    public EventSubscription subscribeTree(ProcessKey root, ProcessEventListener listener, Duration interval) {
        Objects.requireNonNull(root, "root");
        checkArgs(listener, interval);
        return subscribeBest(root, listener, interval);
    }

    @Override
    public EventSubscription subscribeTree(ProcessKey root, ProcessEventListener listener, Duration interval,
                                           EventSource source) {
        Objects.requireNonNull(root, "root");
        checkArgs(listener, interval);
        Objects.requireNonNull(source, "source");
        return subscribeWith(root, listener, interval, source);
    }

    @Override
    public Flow.Publisher<ProcessEvent> publisher(Duration interval, int buffer) {
        Objects.requireNonNull(interval, "interval");
        if (interval.toMillis() < 10) {
            throw new IllegalArgumentException("the snapshot interval must be at least 10 ms, not " + interval);
        }
        if (buffer < 1 || buffer > 1 << 20) {
            throw new IllegalArgumentException("the buffer must hold 1 to 1048576 events, not " + buffer);
        }
        return subscriber -> EventPublisher.start(subscriber, buffer, l -> subscribe(l, interval));
    }

    /** NETLINK, else PIDFD (for a tree), else SNAPSHOT_DIFF, each fallback with its reason. */
    private EventSubscription subscribeBest(ProcessKey root, ProcessEventListener listener, Duration interval) {
        if (diffOnly.isPresent()) {
            return start(root, listener, interval, EventSource.SNAPSHOT_DIFF, null, null, diffOnly);
        }
        String why = netlinkUnusable();
        if (why == null) {
            try {
                return subscribeWith(root, listener, interval, EventSource.NETLINK);
            } catch (EventsUnavailableException e) {
                why = "the process connector is not available: " + e.getMessage();
            }
        }
        if (root != null) {
            try {
                PidfdWatch w = PidfdWatch.open(root, procfs, oomCounters.get());
                return start(root, listener, interval, EventSource.PIDFD, null, w, Optional.of(why));
            } catch (EventsUnavailableException e) {
                why = why + "; pidfds: " + e.getMessage();
            }
        } else {
            why = why + "; pidfds serve a watched tree only";
        }
        return start(root, listener, interval, EventSource.SNAPSHOT_DIFF, null, null, Optional.of(why));
    }

    /**
     * @return why the process connector cannot be used by default here, or {@code null} if it may be tried: the
     *         capability it needs (read from {@code /proc/self/status})
     */
    private static String netlinkUnusable() {
        OptionalLong caps = effectiveCapabilities();
        if (caps.isPresent() && (caps.getAsLong() & (1L << CAP_NET_ADMIN)) == 0) {
            return "this process lacks CAP_NET_ADMIN (effective capabilities " + Long.toHexString(caps.getAsLong())
                    + "), which the process connector needs in the initial user and network namespaces";
        }
        return null;
    }

    /** @return this process's {@code CapEff}, empty if it cannot be read */
    static OptionalLong effectiveCapabilities() {
        try {
            long caps = SelfStatus.effectiveCapabilities(
                    java.nio.file.Files.readAllLines(Path.of("/proc/self/status")));
            if (caps >= 0) {
                return OptionalLong.of(caps);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // unknown: let the socket say
        }
        return OptionalLong.empty();
    }

    private EventSubscription subscribeWith(ProcessKey root, ProcessEventListener listener, Duration interval,
                                            EventSource source) {
        if (diffOnly.isPresent() && source != EventSource.SNAPSHOT_DIFF) {
            throw new EventsUnavailableException(diffOnly.get());
        }
        return switch (source) {
            case NETLINK -> {
                if (root != null) {
                    checkRunning(root);
                }
                ProcConnectorSocket socket = ProcConnectorSocket.open(RECEIVE_BUFFER, RECEIVE_TIMEOUT_MS);
                try {
                    yield start(root, listener, interval, source, socket, null, Optional.empty());
                } catch (RuntimeException e) {
                    socket.close();
                    throw e;
                }
            }
            case PIDFD -> start(root, listener, interval, source, null, PidfdWatch.open(root, procfs,
                    oomCounters.get()), Optional.of("pidfds were asked for"));
            case SNAPSHOT_DIFF -> {
                if (root != null) {
                    checkRunning(root);
                }
                yield start(root, listener, interval, source, null, null, Optional.of(diffOnly.orElse(
                        "snapshot diffing was asked for")));
            }
        };
    }

    private void checkRunning(ProcessKey root) {
        Known k = readStat(procfs.root().resolve(Long.toString(root.pid())).resolve("stat"), root.pid(),
                procfs.kernelConstants());
        if (k == null || !root.matches(k.key())) {
            throw new NoSuchProcessException(root.pid());
        }
    }

    private static void checkArgs(ProcessEventListener listener, Duration interval) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(interval, "interval");
        if (interval.toMillis() < 10) {
            throw new IllegalArgumentException("the snapshot interval must be at least 10 ms, not " + interval);
        }
    }

    private Subscription start(ProcessKey root, ProcessEventListener listener, Duration interval, EventSource source,
                               ProcConnectorSocket socket, PidfdWatch pidfds, Optional<String> reason) {
        Subscription s = new Subscription(root, listener, interval, source, socket, pidfds, reason);
        s.begin();
        return s;
    }

    /**
     * What the reader hands to the delivery thread: a raw event, a finished one (with the OOM counter of an
     * exit's cgroup, when known), or a loss marker.
     */
    private record Item(ProcEventParser.Raw raw, ProcessEvent diffed, Optional<Path> oomCounter, Instant time,
                        long lossCount) {
    }

    private final class Subscription implements EventSubscription {
        private final ProcessKey root;
        private final ProcessEventListener listener;
        private final Duration interval;
        private final EventSource source;
        private final ProcConnectorSocket socket;
        private final PidfdWatch pidfds;
        private final Optional<String> reason;
        /** For a tree followed through NETLINK or SNAPSHOT_DIFF: its members' pids. */
        private final Set<Long> members = ConcurrentHashMap.newKeySet();
        private OomCounterWatch oom;
        private final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(QUEUE);
        private final AtomicLong dropped = new AtomicLong();
        private final AtomicLong lost = new AtomicLong();
        private final Map<Long, Known> known = new ConcurrentHashMap<>();
        private volatile boolean closed;
        private Thread reader;
        private Thread delivery;

        Subscription(ProcessKey root, ProcessEventListener listener, Duration interval, EventSource source,
                     ProcConnectorSocket socket, PidfdWatch pidfds, Optional<String> reason) {
            this.root = root;
            this.listener = listener;
            this.interval = interval;
            this.source = source;
            this.socket = socket;
            this.pidfds = pidfds;
            this.reason = reason;
        }

        void begin() {
            if (source != EventSource.PIDFD) {
                oom = source == EventSource.NETLINK ? oomCounters.get() : null;
                // before the first event, so that exits of processes already running carry their identity
                Map<ProcessKey, ProcessInfo> all = resync();
                if (root != null) {
                    if (!all.containsKey(root.withoutInode())) {
                        throw new NoSuchProcessException(root.pid());
                    }
                    followTree(all.values());
                }
            }
            Runnable read = socket != null ? this::readSocket : pidfds != null ? this::watchPidfds
                    : this::diffSnapshots;
            reader = new Thread(read, "procscope-events-reader");
            delivery = new Thread(this::deliver, "procscope-events-delivery");
            reader.setDaemon(true);
            delivery.setDaemon(true);
            reader.start();
            delivery.start();
        }

        private Map<ProcessKey, ProcessInfo> resync() {
            ProcessSnapshot snap = procfs.snapshot(Set.of());
            Map<ProcessKey, ProcessInfo> byKey = new HashMap<>();
            Map<Long, Known> fresh = new HashMap<>();
            for (ProcessInfo p : snap.processes()) {
                byKey.put(p.key(), p);
                fresh.put(p.pid(), new Known(p.key(), p.comm(), p.ppid()));
            }
            known.keySet().retainAll(fresh.keySet());
            for (Map.Entry<Long, Known> e : fresh.entrySet()) {
                known.merge(e.getKey(), e.getValue(), (old, now) -> Objects.equals(old.key(), now.key())
                        ? now.withOomCounter(old.oomCounter()) : now);
            }
            return byKey;
        }

        /** The root's tree in a snapshot: its members, with their memory cgroups' OOM counters noted. */
        private void followTree(java.util.Collection<ProcessInfo> all) {
            Map<Long, List<Long>> kids = new HashMap<>();
            for (ProcessInfo p : all) {
                kids.computeIfAbsent(p.ppid(), x -> new ArrayList<>()).add(p.pid());
            }
            java.util.ArrayDeque<Long> todo = new java.util.ArrayDeque<>(List.of(root.pid()));
            while (!todo.isEmpty()) {
                long pid = todo.poll();
                if (members.add(pid)) {
                    todo.addAll(kids.getOrDefault(pid, List.of()));
                    if (oom != null) {
                        Known k = known.get(pid);
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

        private void offer(Item item) {
            if (!queue.offer(item)) {
                dropped.incrementAndGet();
            }
        }

        private void readSocket() {
            byte[] buf = new byte[64 * 1024];
            ProcBuffer commBuffer = new ProcBuffer(64);
            List<ProcEventParser.Raw> raws = new ArrayList<>();
            try {
                while (!closed) {
                    int n;
                    try {
                        n = socket.receive(buf);
                    } catch (EventsUnavailableException e) {
                        break;
                    }
                    if (n == ProcConnectorSocket.OVERRUN) {
                        offer(new Item(null, null, Optional.empty(), Instant.now(), lost.incrementAndGet()));
                        continue;
                    }
                    if (n <= 0) {
                        continue;
                    }
                    Instant now = Instant.now();
                    raws.clear();
                    ProcEventParser.parse(buf, n, raws);
                    for (ProcEventParser.Raw r : raws) {
                        if (r.what() == ProcEventParser.PROC_EVENT_EXEC) {
                            // The new program's name, read now: a short program may be gone (reaped) by the time
                            // the delivery thread comes to it, and its exit is to carry this name, not the old one.
                            r = r.withComm(readComm(r.pid(), commBuffer));
                        }
                        offer(new Item(r, null, Optional.empty(), now, 0));
                    }
                }
            } finally {
                socket.close();
            }
        }

        private void diffSnapshots() {
            Map<ProcessKey, ProcessInfo> before = null;
            while (!closed) {
                try {
                    Thread.sleep(interval.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                Map<ProcessKey, ProcessInfo> now = new HashMap<>();
                for (ProcessInfo p : procfs.snapshot(Set.of()).processes()) {
                    now.put(p.key(), p);
                }
                if (before == null) {
                    before = new HashMap<>();
                    for (Map.Entry<Long, Known> e : known.entrySet()) {
                        ProcessInfo p = now.get(e.getValue().key());
                        if (p != null) {
                            before.put(p.key(), p);
                        }
                    }
                }
                Instant t = Instant.now();
                for (Map.Entry<ProcessKey, ProcessInfo> e : before.entrySet()) {
                    if (!now.containsKey(e.getKey())) {
                        ProcessInfo p = e.getValue();
                        offer(new Item(null, new ProcessEvent(EventType.EXIT, p.pid(), OptionalLong.of(p.ppid()),
                                Optional.of(p.key()), Optional.of(p.comm()), t, OptionalInt.empty(), OptionalInt.empty(),
                                false, Optional.empty(), Optional.empty(), EventSource.SNAPSHOT_DIFF, false),
                                Optional.empty(), t, 0));
                    }
                }
                // Oldest first: a parent started before its children, so a listener that follows a tree by its
                // FORK events learns of the parent before the child that appeared in the same snapshot.
                List<ProcessInfo> appeared = new java.util.ArrayList<>(now.values());
                appeared.sort(java.util.Comparator.comparingLong(ProcessInfo::startTimeTicks)
                        .thenComparingLong(ProcessInfo::pid));
                for (ProcessInfo p : appeared) {
                    ProcessInfo old = before.get(p.key());
                    EventType type = old == null ? EventType.FORK : change(old.stat(), p.stat());
                    if (type != null) {
                        offer(new Item(null, new ProcessEvent(type, p.pid(), OptionalLong.of(p.ppid()),
                                Optional.of(p.key()), Optional.of(p.comm()), t, OptionalInt.empty(), OptionalInt.empty(),
                                false, Optional.empty(), Optional.empty(), EventSource.SNAPSHOT_DIFF, false),
                                Optional.empty(), t, 0));
                    }
                }
                before = now;
            }
        }

        private void watchPidfds() {
            List<PidfdWatch.Found> found = new ArrayList<>();
            long every = interval.compareTo(Duration.ofDays(1)) > 0 ? Duration.ofDays(1).toNanos() : interval.toNanos();
            long unwatched = 0;
            long nextScan = System.nanoTime() + every;
            try {
                while (!closed) {
                    found.clear();
                    long now = System.nanoTime();
                    if (now - nextScan >= 0) {
                        pidfds.scan(found);
                        nextScan = now + every;
                    }
                    int wait = (int) Math.max(0, Math.min(RECEIVE_TIMEOUT_MS, (nextScan - now) / 1_000_000));
                    try {
                        pidfds.poll(wait, found);
                    } catch (EventsUnavailableException e) {
                        break;
                    }
                    for (PidfdWatch.Found f : found) {
                        offer(new Item(null, f.event(), f.oomCounter(), f.event().time(), 0));
                    }
                    if (pidfds.unwatched() > unwatched) {
                        // members without a pidfd (no descriptors left): their events are lost
                        lost.addAndGet(pidfds.unwatched() - unwatched);
                        unwatched = pidfds.unwatched();
                        offer(new Item(null, null, Optional.empty(), Instant.now(), lost.get()));
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        break;
                    }
                }
            } finally {
                pidfds.close();
            }
        }

        private void deliver() {
            while (!closed || !queue.isEmpty()) {
                Item item;
                try {
                    item = queue.poll(100, TimeUnit.MILLISECONDS);
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
                            e = withOomCause(e, item.oomCounter());
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
                    dropped.incrementAndGet();
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
                Known k = known.remove(pid);
                String comm = k == null ? null : k.comm();
                if (comm == null && k != null && k.key() != null) {
                    // an exec whose name could not be read then: the zombie may still show it, if it is the same one
                    Known now = readStat(dir.resolve("stat"), pid, procfs.kernelConstants());
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
                    e = withOomCause(e, counter);
                }
                return e;
            }
            Known before = known.get(pid);
            Known read = readStat(dir.resolve("stat"), pid, procfs.kernelConstants());
            String comm;
            EventType type;
            if (r.what() == ProcEventParser.PROC_EVENT_FORK) {
                type = EventType.FORK;
                Known parent = known.get(r.ppid());
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
            known.put(pid, new Known(key, comm, ppid, counter));
            return new ProcessEvent(type, pid, ppid >= 0 ? OptionalLong.of(ppid) : OptionalLong.empty(),
                    Optional.ofNullable(key), Optional.ofNullable(comm), time, OptionalInt.empty(), OptionalInt.empty(),
                    false, Optional.empty(), Optional.empty(), EventSource.NETLINK, false);
        }

        /**
         * Adds the cause OOM_KILLED to an exit by SIGKILL where there is evidence: the kernel log's record of the
         * kill, else the rise of the victim's memory cgroup's {@code oom_kill} counter (which needs no kernel log).
         */
        private ProcessEvent withOomCause(ProcessEvent e, Optional<Path> counter) {
            Optional<String> byCounter = counter.flatMap(c -> oomCounters.get().evidence(c));
            Optional<String> byLog = oomEvidence(e.pid(), e.time());
            if (byLog.isPresent() && byCounter.isPresent()) {
                return e.withCause(ExitCause.OOM_KILLED, byLog.get() + "; " + byCounter.get());
            }
            Optional<String> any = byLog.or(() -> byCounter);
            return any.isPresent() ? e.withCause(ExitCause.OOM_KILLED, any.get()) : e;
        }

        /** The kernel's count of OOM kills ({@code oom_kill} of {@code /proc/vmstat}) at the last read of its log. */
        private long oomKillsAtLastRead = -1;
        /** The OOM kills that read found. */
        private List<OomKill> oomKillsRead = List.of();

        /**
         * @return the kernel log's OOM kill of this pid, near this time. The kernel counts an OOM kill
         *         ({@code oom_kill} in {@code /proc/vmstat}) before it sends the SIGKILL and logs it just after, so
         *         the log is read only when the count has moved since the last read (an exit by a SIGKILL that no OOM
         *         kill explains then costs one small read, not the whole log), and read again after 200 ms when the
         *         count moved but the record is not there yet
         */
        private Optional<String> oomEvidence(long pid, Instant exitTime) {
            long counted = oomKillCount();
            if (counted >= 0 && counted == oomKillsAtLastRead) {
                return find(oomKillsRead, pid, exitTime); // no OOM kill since the log was read
            }
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    List<OomKill> kills = kernelLog.get().oomKills();
                    Optional<String> found = find(kills, pid, exitTime);
                    if (found.isPresent() || attempt == 1) {
                        // every kill counted so far has been logged by now: the next exits are answered from this read
                        oomKillsAtLastRead = counted;
                        oomKillsRead = kills;
                        return found;
                    }
                } catch (ProcscopeException e) {
                    return Optional.empty(); // no kernel log to read (permission, or none here)
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }
            return Optional.empty();
        }

        /** @return {@code oom_kill} of {@code /proc/vmstat} (Linux 4.13+), or -1 where it cannot be read */
        private long oomKillCount() {
            try {
                Path vmstat = procfs.root().resolve("vmstat");
                ProcBuffer buf = new ProcBuffer(8192);
                if (buf.read(vmstat.toString(), ProcBuffer.SMALL_LIMIT) != ProcBuffer.Result.OK) {
                    return -1;
                }
                Long v = FlatKeyedParser.parse(vmstat, buf.bytes(), buf.length()).get("oom_kill");
                return v == null ? -1 : v;
            } catch (RuntimeException e) {
                return -1;
            }
        }

        private static Optional<String> find(List<OomKill> kills, long pid, Instant exitTime) {
            for (int i = kills.size() - 1; i >= 0; i--) {
                OomKill k = kills.get(i);
                if (k.pid() == pid && k.time().map(t -> Duration.between(t, exitTime).abs()
                        .compareTo(Duration.ofMinutes(1)) < 0).orElse(true)) {
                    return Optional.of("kernel log: Killed process " + k.pid() + " (" + k.comm() + ")"
                            + k.cgroup().map(c -> " in memory cgroup " + c).orElse("")
                            + k.time().map(t -> " at " + t).orElse(""));
                }
            }
            return Optional.empty();
        }

        @Override
        public EventSource source() {
            return source;
        }

        @Override
        public Optional<String> fallbackReason() {
            return reason;
        }

        @Override
        public long dropped() {
            return dropped.get();
        }

        @Override
        public long lost() {
            return lost.get();
        }

        @Override
        public void close() {
            closed = true;
            if (reader != null) {
                reader.interrupt();
            }
            try {
                if (reader != null && reader != Thread.currentThread()) {
                    reader.join(2_000);
                }
                if (delivery != null && delivery != Thread.currentThread()) {
                    delivery.join(2_000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Reads a process's {@code /proc/PID/stat} (bounded, a regular file only). A process in the middle of
     * {@code execve} can fail a read for a moment while its directory is still there: a few more tries then.
     *
     * @return what was read, or {@code null} when the process is gone (or hidden, or its stat unreadable)
     */
    static ProcessStat readFullStat(Path stat, long pid, KernelConstants k) {
        ProcBuffer buf = new ProcBuffer(512);
        for (int attempt = 0; ; attempt++) {
            try {
                if (buf.read(stat.toString(), ProcBuffer.SMALL_LIMIT) == ProcBuffer.Result.OK) {
                    ProcessStat s = StatParser.parse(stat, buf.bytes(), buf.length(), k);
                    if (s.pid() == pid) {
                        return s;
                    }
                }
            } catch (RuntimeException e) {
                // a read cut short, or damage: tried again below, then given up
            }
            if (attempt >= 20 || !java.nio.file.Files.exists(stat.getParent())) {
                return null; // gone (or hidden)
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /**
     * Reads identity, name and parent of a process from {@code /proc/PID/stat}.
     *
     * @return what was read, or {@code null} when the process is gone (or hidden)
     */
    static Known readStat(Path stat, long pid, KernelConstants k) {
        ProcessStat s = readFullStat(stat, pid, k);
        return s == null ? null : new Known(new ProcessKey(pid, s.startTimeTicks()), s.comm(), s.ppid());
    }

    /**
     * @return the name in {@code /proc/PID/comm} of the live procfs, read now, or {@code null} if it cannot be read
     *         (the process is gone)
     */
    private String readComm(long pid, ProcBuffer buf) {
        try {
            Path file = procfs.root().resolve(Long.toString(pid)).resolve("comm");
            if (buf.read(file.toString(), 64) != ProcBuffer.Result.OK) {
                return null;
            }
            int n = buf.length();
            if (n > 0 && buf.bytes()[n - 1] == '\n') {
                n--;
            }
            return ByteCursor.text(buf.bytes(), 0, n);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The flag of a task forked and not yet exec'd ({@code PF_FORKNOEXEC}, {@code linux/sched.h}). */
    private static final long PF_FORKNOEXEC = 0x40;

    /**
     * Tells an exec from a rename between two reads of one process's stat (same pid and start time): an exec
     * replaces the address space, a rename ({@code prctl(PR_SET_NAME)}, a write to {@code comm}) only the name.
     * The address space was replaced when a kernel thread became a user process, when the fork-without-exec
     * flag was cleared, or when the addresses of its code, data and stack moved; where this reader may not see
     * those addresses (another user's process, without {@code ptrace} access: the kernel shows 1 or 0), a new name
     * with an address space of another size is taken for an exec, with the same size for a rename.
     *
     * @return {@link EventType#EXEC}, {@link EventType#RENAME}, or {@code null} when neither happened
     */
    static EventType change(ProcessStat before, ProcessStat after) {
        boolean renamed = !before.comm().equals(after.comm());
        boolean replaced;
        if (before.isKernelThread() != after.isKernelThread()) {
            replaced = true;
        } else if (before.isKernelThread()) {
            replaced = false; // kernel threads rename themselves; they do not exec
        } else if ((before.flags() & PF_FORKNOEXEC) != 0 && (after.flags() & PF_FORKNOEXEC) == 0) {
            replaced = true;
        } else if (layoutVisible(before) && layoutVisible(after)) {
            replaced = !before.startCode().equals(after.startCode()) || !before.endCode().equals(after.endCode())
                    || !before.startData().equals(after.startData()) || !before.endData().equals(after.endData())
                    || !before.startBrk().equals(after.startBrk()) || !before.startStack().equals(after.startStack());
        } else {
            replaced = renamed && before.vszBytes() != after.vszBytes();
        }
        return replaced ? EventType.EXEC : renamed ? EventType.RENAME : null;
    }

    /** @return whether stat shows the process's code addresses (the kernel prints 1 to a reader without access) */
    private static boolean layoutVisible(ProcessStat s) {
        return Long.compareUnsigned(s.startCode().orElse(0), 1) > 0;
    }

    /**
     * What was known of a live process: to give its exit an identity, its last name (and its OOM counter, where
     * noted). The key is {@code null} when the process was gone before its stat could be read; the name is
     * {@code null} when it exec'd and was gone before the new name could be read; the parent is -1 when unknown.
     */
    record Known(ProcessKey key, String comm, long ppid, Optional<Path> oomCounter) {
        Known(ProcessKey key, String comm, long ppid) {
            this(key, comm, ppid, Optional.empty());
        }

        Known withOomCounter(Optional<Path> counter) {
            return counter.isEmpty() ? this : new Known(key, comm, ppid, counter);
        }
    }
}
