package io.github.procscope.linux;

import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
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
    static LinuxProcessEvents diffingOnly(LinuxProcfs procfs, String why) {
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
        Known k = readStat(procfs.root().resolve(Long.toString(root.pid())).resolve("stat"), root.pid());
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
                known.merge(e.getKey(), e.getValue(), (old, now) -> old.key().equals(now.key())
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
                    EventType type = old == null ? EventType.FORK : !old.comm().equals(p.comm()) ? EventType.EXEC : null;
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

        /** Adds identity, command name, and for a SIGKILL the OOM killer's record. */
        private ProcessEvent complete(ProcEventParser.Raw r, Instant time) {
            long pid = r.pid();
            if (r.what() == ProcEventParser.PROC_EVENT_EXIT) {
                Known k = known.remove(pid);
                OptionalInt code = r.exited() ? OptionalInt.of(r.code()) : OptionalInt.empty();
                OptionalInt sig = r.exited() ? OptionalInt.empty() : OptionalInt.of(r.signal());
                OptionalLong ppid = r.ppid() > 0 ? OptionalLong.of(r.ppid())
                        : k != null ? OptionalLong.of(k.ppid()) : OptionalLong.empty();
                ProcessEvent e = new ProcessEvent(EventType.EXIT, pid, ppid,
                        k == null ? Optional.empty() : Optional.of(k.key()),
                        k == null ? Optional.empty() : Optional.of(k.comm()), time, code, sig,
                        !r.exited() && r.coreDumped(), Optional.empty(), Optional.empty(), EventSource.NETLINK, true);
                if (sig.isPresent() && sig.getAsInt() == 9) {
                    // the counter noted when it forked or exec'd; else its cgroup now, while it may still be a zombie
                    Optional<Path> counter = k != null && k.oomCounter().isPresent() ? k.oomCounter()
                            : oom != null ? oom.remember(procfs.root().resolve(Long.toString(pid))) : Optional.empty();
                    e = withOomCause(e, counter);
                }
                return e;
            }
            Path dir = procfs.root().resolve(Long.toString(pid));
            Known k = readStat(dir.resolve("stat"), pid);
            if (k != null) {
                if (oom != null && (root == null || members.contains(pid) || members.contains(k.ppid()))) {
                    k = k.withOomCounter(oom.remember(dir));
                }
                known.put(pid, k);
            } else {
                k = known.get(pid);
            }
            EventType type = r.what() == ProcEventParser.PROC_EVENT_FORK ? EventType.FORK : EventType.EXEC;
            OptionalLong ppid = r.ppid() > 0 ? OptionalLong.of(r.ppid())
                    : k != null ? OptionalLong.of(k.ppid()) : OptionalLong.empty();
            return new ProcessEvent(type, pid, ppid, k == null ? Optional.empty() : Optional.of(k.key()),
                    k == null ? Optional.empty() : Optional.of(k.comm()), time, OptionalInt.empty(), OptionalInt.empty(),
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

        /**
         * @return the kernel log's OOM kill of this pid, near this time; the kernel logs the kill before the
         *         victim's exit is reported, so one look (and one more after 200 ms) is enough
         */
        private Optional<String> oomEvidence(long pid, Instant exitTime) {
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    List<OomKill> kills = kernelLog.get().oomKills();
                    for (int i = kills.size() - 1; i >= 0; i--) {
                        OomKill k = kills.get(i);
                        if (k.pid() == pid && k.time().map(t -> Duration.between(t, exitTime).abs()
                                .compareTo(Duration.ofMinutes(1)) < 0).orElse(true)) {
                            return Optional.of("kernel log: Killed process " + k.pid() + " (" + k.comm() + ")"
                                    + k.cgroup().map(c -> " in memory cgroup " + c).orElse("")
                                    + k.time().map(t -> " at " + t).orElse(""));
                        }
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
     * Reads identity, name and parent of a process from {@code /proc/PID/stat} alone (split at the last
     * {@code )}: field 4 is the parent, field 22 the start time). A process in the middle of {@code execve} can
     * fail a read for a moment while its directory is still there: a few more tries then.
     *
     * @return what was read, or {@code null} when the process is gone (or hidden)
     */
    static Known readStat(Path stat, long pid) {
        for (int attempt = 0; ; attempt++) {
            try {
                String s = new String(java.nio.file.Files.readAllBytes(stat), java.nio.charset.StandardCharsets.ISO_8859_1);
                int open = s.indexOf('(');
                int close = s.lastIndexOf(')');
                if (open < 0 || close < open || close + 2 > s.length()) {
                    return null;
                }
                String[] f = s.substring(close + 2).trim().split(" ");
                if (f.length < 20) {
                    return null;
                }
                return new Known(new ProcessKey(pid, Long.parseLong(f[19])), s.substring(open + 1, close),
                        Long.parseLong(f[1]), Optional.empty());
            } catch (java.io.IOException | RuntimeException e) {
                if (attempt >= 20 || !java.nio.file.Files.exists(stat.getParent())) {
                    return null; // gone (or hidden)
                }
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /** What was known of a live process: to give its exit an identity (and its OOM counter, where noted). */
    record Known(ProcessKey key, String comm, long ppid, Optional<Path> oomCounter) {
        Known(ProcessKey key, String comm, long ppid) {
            this(key, comm, ppid, Optional.empty());
        }

        Known withOomCounter(Optional<Path> counter) {
            return counter.isEmpty() ? this : new Known(key, comm, ppid, counter);
        }
    }
}
