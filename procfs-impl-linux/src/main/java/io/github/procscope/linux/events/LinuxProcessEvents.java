package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.EventsUnavailableException;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.api.events.ProcessEvents;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.linux.parse.SelfStatus;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.LinuxSystemResources;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ProcConnectorSocket;

import io.github.procscope.api.core.NoSuchProcessException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Flow;
import java.util.function.Supplier;

/**
 * {@link ProcessEvents} on Linux: the process connector where it can be opened, else (for a watched tree)
 * pidfds, else snapshot diffing.
 *
 * <p>This class chooses the source and assembles a subscription ({@link LinuxEventSubscription}): two threads, a
 * reader that runs one source ({@link NetlinkSource}, {@link PidfdSource} or {@link SnapshotDiffSource}), which
 * only receives and parses and puts events in a bounded queue ({@link EventQueue}: when it is full the event is
 * dropped and counted, the reader never waits), and a delivery thread ({@link EventDelivery}) that completes each
 * event (identity and command name from {@code /proc}, the OOM killer's evidence for a SIGKILL through
 * {@link OomAttribution}: the kernel log's record, or the rise of the victim's memory cgroup's {@code oom_kill}
 * counter) and calls the listener.
 */
public final class LinuxProcessEvents implements ProcessEvents {
    /** Events held between the reader and the listener. */
    static final int QUEUE = 65_536;
    private static final int RECEIVE_BUFFER = 8 << 20;
    private static final int RECEIVE_TIMEOUT_MS = 200;

    /** {@code CAP_NET_ADMIN}'s bit in {@code CapEff}. */
    private static final int CAP_NET_ADMIN = 12;

    private final LinuxProcfs procfs;
    private final Supplier<? extends KernelLog> kernelLog;
    private final Supplier<OomCounterWatch> oomCounters;
    /** Why only snapshot diffing may be used (a procfs that is not this machine's), or empty. */
    private final Optional<String> diffOnly;

    private LinuxProcessEvents(LinuxProcfs procfs, Supplier<? extends KernelLog> kernelLog,
                               Supplier<OomCounterWatch> oom, Optional<String> diffOnly) {
        this.procfs = procfs;
        this.kernelLog = kernelLog;
        this.oomCounters = oom;
        this.diffOnly = diffOnly;
    }

    /**
     * @param procfs    the process table that completes events (identity, command name) and that diffing reads
     * @param kernelLog where OOM kills are looked up (a supplier that throws, or a log that throws: no kernel log
     *                  to read)
     * @param resources the system's resources, whose cgroup mounts hold the {@code oom_kill} counters (asked once,
     *                  when first needed; one that throws: no counters)
     * @return events read through that table
     */
    public static LinuxProcessEvents of(LinuxProcfs procfs, Supplier<? extends KernelLog> kernelLog,
                                        Supplier<? extends LinuxSystemResources> resources) {
        Objects.requireNonNull(resources, "resources");
        return new LinuxProcessEvents(Objects.requireNonNull(procfs, "procfs"),
                Objects.requireNonNull(kernelLog, "kernelLog"), memoize(() -> OomCounterWatch.over(resources)),
                Optional.empty());
    }

    /**
     * @param procfs    a process table that is not this machine's live one
     * @param kernelLog as {@link #of}
     * @param why       why the kernel's sources cannot be used for it
     * @return events by snapshot diffing alone
     */
    public static LinuxProcessEvents diffingOnly(LinuxProcfs procfs, Supplier<? extends KernelLog> kernelLog,
                                                 String why) {
        return new LinuxProcessEvents(Objects.requireNonNull(procfs, "procfs"),
                Objects.requireNonNull(kernelLog, "kernelLog"), () -> new OomCounterWatch(null, null),
                Optional.of(why));
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

    private EventSubscription start(ProcessKey root, ProcessEventListener listener, Duration interval,
                                    EventSource source, ProcConnectorSocket socket, PidfdWatch pidfds,
                                    Optional<String> reason) {
        EventQueue queue = new EventQueue(QUEUE);
        OomCounterWatch oom = source == EventSource.NETLINK ? oomCounters.get() : null;
        EventDelivery delivery = new EventDelivery(root, listener, source, procfs, queue,
                new OomAttribution(kernelLog, oomCounters, procfs.root()), oom);
        Runnable read = socket != null ? new NetlinkSource(socket, queue, procfs.root())
                : pidfds != null ? new PidfdSource(pidfds, interval, queue, RECEIVE_TIMEOUT_MS)
                : new SnapshotDiffSource(procfs, interval, queue);
        LinuxEventSubscription s = new LinuxEventSubscription(root, source, reason, queue, delivery, read);
        s.begin();
        return s;
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
