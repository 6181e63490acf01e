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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * {@link ProcessEvents} on Linux: the process connector where it can be opened, else snapshot diffing.
 *
 * <p>Two threads per subscription: a reader that only receives and parses (from the socket, or by diffing
 * snapshots) and puts events in a bounded queue — when the queue is full the event is dropped and counted, the
 * reader never waits — and a delivery thread that completes each event (identity and command name from
 * {@code /proc}, the OOM killer's record for a SIGKILL) and calls the listener.
 */
public final class LinuxProcessEvents implements ProcessEvents {
    /** Events held between the reader and the listener. */
    static final int QUEUE = 65_536;
    private static final int RECEIVE_BUFFER = 8 << 20;
    private static final int RECEIVE_TIMEOUT_MS = 200;

    private final LinuxProcfs procfs;
    private final Supplier<KernelLog> kernelLog;

    private LinuxProcessEvents(LinuxProcfs procfs, Supplier<KernelLog> kernelLog) {
        this.procfs = procfs;
        this.kernelLog = kernelLog;
    }

    /** @return events of this machine's processes */
    public static LinuxProcessEvents system() {
        return new LinuxProcessEvents(LinuxProcfs.system(), LinuxKernelLog::system);
    }

    /**
     * @param procfs the process table that completes events (identity, command name) and that diffing reads
     * @return events read through that table
     */
    public static LinuxProcessEvents of(LinuxProcfs procfs) {
        return new LinuxProcessEvents(Objects.requireNonNull(procfs, "procfs"), LinuxKernelLog::system);
    }

    @Override
    public EventSubscription subscribe(ProcessEventListener listener, Duration interval) {
        checkArgs(listener, interval);
        try {
            return subscribe(listener, interval, EventSource.NETLINK);
        } catch (EventsUnavailableException e) {
            return start(listener, interval, null, Optional.of("the process connector is not available: "
                    + e.getMessage()));
        }
    }

    @Override
    public EventSubscription subscribe(ProcessEventListener listener, Duration interval, EventSource source) {
        checkArgs(listener, interval);
        Objects.requireNonNull(source, "source");
        if (source == EventSource.NETLINK) {
            ProcConnectorSocket socket = ProcConnectorSocket.open(RECEIVE_BUFFER, RECEIVE_TIMEOUT_MS);
            return start(listener, interval, socket, Optional.empty());
        }
        return start(listener, interval, null, Optional.of("snapshot diffing was asked for"));
    }

    private static void checkArgs(ProcessEventListener listener, Duration interval) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(interval, "interval");
        if (interval.toMillis() < 10) {
            throw new IllegalArgumentException("the snapshot interval must be at least 10 ms, not " + interval);
        }
    }

    private Subscription start(ProcessEventListener listener, Duration interval, ProcConnectorSocket socket,
                               Optional<String> reason) {
        Subscription s = new Subscription(listener, interval, socket, reason);
        s.begin();
        return s;
    }

    /** What the reader hands to the delivery thread: a raw event, or a loss marker. */
    private record Item(ProcEventParser.Raw raw, ProcessEvent diffed, Instant time, long lossCount) {
    }

    private final class Subscription implements EventSubscription {
        private final ProcessEventListener listener;
        private final Duration interval;
        private final ProcConnectorSocket socket;
        private final Optional<String> reason;
        private final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(QUEUE);
        private final AtomicLong dropped = new AtomicLong();
        private final AtomicLong lost = new AtomicLong();
        private final Map<Long, Known> known = new ConcurrentHashMap<>();
        private volatile boolean closed;
        private Thread reader;
        private Thread delivery;

        Subscription(ProcessEventListener listener, Duration interval, ProcConnectorSocket socket,
                     Optional<String> reason) {
            this.listener = listener;
            this.interval = interval;
            this.socket = socket;
            this.reason = reason;
        }

        void begin() {
            resync(); // before the first event, so that exits of processes already running carry their identity
            reader = new Thread(socket != null ? this::readSocket : this::diffSnapshots, "procscope-events-reader");
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
            known.putAll(fresh);
            return byKey;
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
                        offer(new Item(null, null, Instant.now(), lost.incrementAndGet()));
                        continue;
                    }
                    if (n <= 0) {
                        continue;
                    }
                    Instant now = Instant.now();
                    raws.clear();
                    ProcEventParser.parse(buf, n, raws);
                    for (ProcEventParser.Raw r : raws) {
                        offer(new Item(r, null, now, 0));
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
                                false, Optional.empty(), Optional.empty(), EventSource.SNAPSHOT_DIFF, false), t, 0));
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
                                false, Optional.empty(), Optional.empty(), EventSource.SNAPSHOT_DIFF, false), t, 0));
                    }
                }
                before = now;
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
                    if (item.diffed() != null) {
                        listener.onEvent(item.diffed());
                    } else if (item.raw() == null) {
                        resync();
                        listener.onLoss(item.lossCount());
                    } else {
                        listener.onEvent(complete(item.raw(), item.time()));
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
                    Optional<String> oom = oomEvidence(pid, time);
                    if (oom.isPresent()) {
                        e = e.withCause(ExitCause.OOM_KILLED, oom.get());
                    }
                }
                return e;
            }
            Known k = readStat(pid);
            if (k != null) {
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
         * Reads identity, name and parent of a process the kernel just reported, from {@code /proc/PID/stat} alone
         * (split at the last {@code )}: field 4 is the parent, field 22 the start time). A process in the middle of
         * {@code execve} can fail a read for a moment while its directory is still there: a few more tries then.
         */
        private Known readStat(long pid) {
            java.nio.file.Path stat = procfs.root().resolve(Long.toString(pid)).resolve("stat");
            for (int attempt = 0; ; attempt++) {
                try {
                    String s = new String(java.nio.file.Files.readAllBytes(stat), java.nio.charset.StandardCharsets.ISO_8859_1);
                    int open = s.indexOf('(');
                    int close = s.lastIndexOf(')');
                    String[] f = s.substring(close + 2).trim().split(" ");
                    if (open < 0 || close < open || f.length < 20) {
                        return null;
                    }
                    return new Known(new ProcessKey(pid, Long.parseLong(f[19])), s.substring(open + 1, close),
                            Long.parseLong(f[1]));
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
            return socket != null ? EventSource.NETLINK : EventSource.SNAPSHOT_DIFF;
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

    /** What was known of a live process: to give its exit an identity. */
    private record Known(ProcessKey key, String comm, long ppid) {
    }
}
