package io.github.procscope.linux.events;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.EventsUnavailableException;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.linux.proc.LinuxJobTree;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.sys.ChildState;
import io.github.procscope.linux.sys.NativeWall;
import io.github.procscope.linux.sys.NativeWalls;
import io.github.procscope.linux.sys.PidfdInfo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The {@link EventSource#PIDFD} source: a pidfd for each process of one tree, polled together, and the tree's
 * children lists followed at an interval for new members: {@code /proc/PID/task/TID/children}, or, on a kernel
 * built without them (CONFIG_PROC_CHILDREN off), the parent pids of a snapshot of every process, taken once per
 * scan. Used by one reader thread.
 *
 * <p>How an exit's status is learnt without stealing it: for a child of this JVM,
 * {@code waitid(P_PIDFD, fd, WEXITED | WNOHANG | WNOWAIT)}, which looks at the zombie and leaves it for the
 * JDK's own reaper ({@link Process#waitFor()} still gets the status); if the JDK reaped it first, and for
 * every other process, {@code ioctl(PIDFD_GET_INFO)} with {@code PIDFD_INFO_EXIT}, which the kernel (6.15+)
 * answers once the parent has reaped the process, for any holder of the pidfd. A process whose parent has not
 * reaped it within {@link #STATUS_WAIT_MS}, or on a kernel without that call, ends without status
 * ({@link ProcessEvent#exitStatusKnown()} false), as snapshot diffing reports it.
 */
final class PidfdWatch implements AutoCloseable {
    /** How long an exited process's status is waited for, while its parent has not reaped it. */
    static final long STATUS_WAIT_MS = 2_000;
    private static final int EINVAL = 22;
    private static final int ENOTTY = 25;
    private static final int ESRCH = 3;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;

    /** One watched process. */
    static final class Member {
        final int fd;
        final ProcessKey key;
        final long ppid;
        String comm;
        /** Its stat as last read: what a new name is compared against (an exec, or a rename). */
        ProcessStat stat;
        Optional<Path> oomCounter;
        /** When its pidfd turned readable (it ended), in nanoTime; 0 while it runs. */
        long endedAt;

        Member(int fd, ProcessStat stat, Optional<Path> oomCounter) {
            this.fd = fd;
            this.key = new ProcessKey(stat.pid(), stat.startTimeTicks());
            this.ppid = stat.ppid();
            this.comm = stat.comm();
            this.stat = stat;
            this.oomCounter = oomCounter;
        }
    }

    /** What the watch hands on: an event, and the exited member's OOM counter. */
    record Found(ProcessEvent event, Optional<Path> oomCounter) {
    }

    private final NativeWall wall;
    private final LinuxProcfs procfs;
    private final OomCounterWatch oom;
    private final long self = ProcessHandle.current().pid();
    private final Map<Long, Member> members = new LinkedHashMap<>();
    private final LinuxJobTree.ProcfsReads reads;
    /** Whether the kernel has children files; else each scan finds children in a snapshot. */
    private final boolean childrenFiles;
    private final ChildState child = new ChildState();
    private final PidfdInfo info = new PidfdInfo();
    /** Members that could not be watched: this process had no descriptor left ({@code EMFILE}, {@code ENFILE}). */
    private long unwatched;
    private int[] fds = new int[16];
    private short[] revents = new short[16];
    private Member[] polled = new Member[16];

    private PidfdWatch(NativeWall wall, LinuxProcfs procfs, OomCounterWatch oom, boolean childrenFiles) {
        this.wall = wall;
        this.procfs = procfs;
        this.oom = oom;
        this.reads = new LinuxJobTree.ProcfsReads(procfs);
        this.childrenFiles = childrenFiles;
    }

    /**
     * Opens pidfds on the root and the descendants it has now.
     *
     * @throws EventsUnavailableException if pidfds cannot be used here, saying why
     * @throws NoSuchProcessException     if the root is not running, or its pid now names another process
     */
    static PidfdWatch open(ProcessKey root, LinuxProcfs procfs, OomCounterWatch oom) {
        String pid = Long.toString(root.pid());
        return open(root, procfs, oom,
                Files.isReadable(procfs.root().resolve(pid).resolve("task").resolve(pid).resolve("children")));
    }

    /** As {@link #open(ProcessKey, LinuxProcfs, OomCounterWatch)}, told whether to read children files. */
    static PidfdWatch open(ProcessKey root, LinuxProcfs procfs, OomCounterWatch oom, boolean childrenFiles) {
        NativeWall wall;
        try {
            wall = NativeWalls.get("pidfd_open");
        } catch (RuntimeException e) {
            throw new EventsUnavailableException("pidfds need native calls: " + e.getMessage());
        }
        if (!wall.pidfdPossible()) {
            throw new EventsUnavailableException("pidfd_open has no known system call number on "
                    + System.getProperty("os.arch"));
        }
        if (root.pid() > Integer.MAX_VALUE) {
            throw new NoSuchProcessException(root.pid()); // above any pid_max: not a process
        }
        PidfdWatch w = new PidfdWatch(wall, procfs, oom, childrenFiles);
        try {
            int fd = wall.pidfdOpen(root.pid());
            if (fd == -ESRCH) {
                throw new NoSuchProcessException(root.pid());
            }
            if (fd < 0) {
                throw new EventsUnavailableException("pidfd_open(" + root.pid() + ") failed with errno " + -fd
                        + (-fd == NativeWall.ENOSYS ? " (the kernel is older than 5.3)" : ""));
            }
            Member m = w.member(fd, root.pid(), -1);
            if (m == null || !root.matches(m.key)) {
                wall.close(fd);
                throw new NoSuchProcessException(root.pid());
            }
            w.members.put(root.pid(), m);
            w.scan(null); // the descendants it has now, without FORK events
            return w;
        } catch (RuntimeException e) {
            w.close();
            throw e;
        }
    }

    /** @return how many new members could not be watched for want of file descriptors, so far */
    long unwatched() {
        return unwatched;
    }

    /** @return the processes watched now */
    int size() {
        return members.size();
    }

    /**
     * Reads a process's identity through its open pidfd, checking it is the child of {@code parent} (any parent
     * when negative) that the pid named when the pidfd was opened.
     */
    private Member member(int fd, long pid, long parent) {
        Path dir = procfs.root().resolve(Long.toString(pid));
        ProcessStat s = LinuxProcessEvents.readFullStat(dir.resolve("stat"), pid, procfs.kernelConstants());
        if (s == null || (parent > 0 && s.ppid() != parent)) {
            return null; // gone, or the pid was reused between the children list and pidfd_open
        }
        return new Member(fd, s, oom.remember(dir));
    }

    /**
     * Follows the children lists of the running members; each new one is opened and, when {@code out} is
     * given, reported as a FORK. A member whose address space was replaced is reported as an EXEC, one whose name
     * alone changed as a RENAME ({@link LinuxProcessEvents#change}).
     */
    void scan(List<Found> out) {
        Map<Long, List<Long>> byParent = childrenFiles ? null : childrenInSnapshot();
        List<Member> now = new ArrayList<>(members.values());
        for (int i = 0; i < now.size(); i++) {
            Member m = now.get(i);
            if (m.endedAt != 0) {
                continue;
            }
            if (out != null) {
                ProcessStat read = readSame(m);
                EventType change = read == null ? null : LinuxProcessEvents.change(m.stat, read);
                if (read != null) {
                    m.stat = read;
                    m.comm = read.comm();
                }
                if (change == EventType.EXEC) {
                    // a new program: often one that was moved into a cgroup of its own just before
                    Optional<Path> counter = oom.remember(procfs.root().resolve(Long.toString(m.key.pid())));
                    m.oomCounter = counter.or(() -> m.oomCounter);
                }
                if (change != null) {
                    out.add(new Found(event(change, m, Instant.now()), Optional.empty()));
                }
            }
            long[] kids = childrenFiles ? reads.children(m.key.pid())
                    : byParent.getOrDefault(m.key.pid(), List.of()).stream().mapToLong(Long::longValue).toArray();
            if (kids == null) {
                continue;
            }
            for (long kid : kids) {
                if (members.containsKey(kid) || kid <= 0 || kid > Integer.MAX_VALUE) {
                    continue;
                }
                int fd = wall.pidfdOpen(kid);
                if (fd == -EMFILE || fd == -ENFILE) {
                    unwatched++; // its events are lost: reported as a loss, not passed over in silence
                    continue;
                }
                if (fd < 0) {
                    continue; // it ended already: too short to see
                }
                Member c = member(fd, kid, m.key.pid());
                if (c == null) {
                    wall.close(fd);
                    continue;
                }
                members.put(kid, c);
                now.add(c); // its own children next, breadth-first
                if (out != null) {
                    out.add(new Found(event(EventType.FORK, c, Instant.now()), Optional.empty()));
                }
            }
        }
    }

    /** @return the pids of every process by its parent's pid, from a snapshot */
    private Map<Long, List<Long>> childrenInSnapshot() {
        Map<Long, List<Long>> byParent = new HashMap<>();
        for (ProcessInfo p : procfs.snapshot(Set.of()).processes()) {
            byParent.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p.pid());
        }
        return byParent;
    }

    /**
     * Waits up to {@code timeoutMs} for members to end, then reports those whose status is known (or will not
     * be), in the order they were found ended.
     */
    void poll(int timeoutMs, List<Found> out) {
        int n = 0;
        boolean pending = false;
        for (Member m : members.values()) {
            if (m.endedAt != 0) {
                pending = true;
                continue;
            }
            if (n == fds.length) {
                fds = java.util.Arrays.copyOf(fds, n * 2);
                revents = java.util.Arrays.copyOf(revents, n * 2);
                polled = java.util.Arrays.copyOf(polled, n * 2);
            }
            fds[n] = m.fd;
            polled[n++] = m;
        }
        int wait = pending ? Math.min(timeoutMs, 10) : timeoutMs;
        if (n > 0) {
            int r = wall.poll(fds, NativeWall.POLLIN, revents, n, wait);
            if (r < 0 && -r != 4) { // EINTR: look again next time
                throw new EventsUnavailableException("poll(2) on " + n + " pidfds failed with errno " + -r);
            }
            for (int i = 0; r > 0 && i < n; i++) {
                if (revents[i] != 0) {
                    polled[i].endedAt = System.nanoTime();
                    // its last name, while it may still be a zombie: it may have exec'd or renamed since the scan
                    ProcessStat last = readSame(polled[i]);
                    if (last != null) {
                        polled[i].comm = last.comm();
                    }
                }
            }
        } else if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        Iterator<Member> it = members.values().iterator();
        while (it.hasNext()) {
            Member m = it.next();
            if (m.endedAt == 0) {
                continue;
            }
            ProcessEvent e = exit(m);
            if (e != null) {
                out.add(new Found(e, m.oomCounter));
                wall.close(m.fd);
                it.remove();
            }
        }
    }

    /** @return the member's stat read now, or {@code null} if it is gone or its pid names another process */
    private ProcessStat readSame(Member m) {
        ProcessStat s = LinuxProcessEvents.readFullStat(procfs.root().resolve(Long.toString(m.key.pid()))
                .resolve("stat"), m.key.pid(), procfs.kernelConstants());
        return s != null && s.startTimeTicks() == m.key.startTimeTicks() ? s : null;
    }

    /** @return the member's EXIT, or {@code null} while its status may still come */
    private ProcessEvent exit(Member m) {
        Instant now = Instant.now();
        if (m.ppid == self) {
            int rc = wall.waitid(NativeWall.P_PIDFD, m.fd, NativeWall.WEXITED | NativeWall.WNOHANG
                    | NativeWall.WNOWAIT, child);
            if (rc == 0 && child.pid == m.key.pid()) {
                return switch (child.code) {
                    case ChildState.CLD_EXITED -> withStatus(m, now, (child.status & 0xff) << 8);
                    case ChildState.CLD_KILLED -> withStatus(m, now, child.status & 0x7f);
                    case ChildState.CLD_DUMPED -> withStatus(m, now, (child.status & 0x7f) | 0x80);
                    default -> null;
                };
            }
            // ECHILD: the JDK's reaper was first; the kernel kept the status for the pidfd's holders
        }
        int rc = wall.pidfdGetInfo(m.fd, PidfdInfo.INFO_EXIT, info);
        if (rc == 0 && (info.mask & PidfdInfo.INFO_EXIT) != 0) {
            return withStatus(m, now, info.exitCode);
        }
        boolean noCall = rc == -EINVAL || rc == -ENOTTY || rc == -ESRCH; // no such call, or no exit info in it
        if (noCall || System.nanoTime() - m.endedAt > STATUS_WAIT_MS * 1_000_000) {
            return new ProcessEvent(EventType.EXIT, m.key.pid(), OptionalLong.of(m.ppid), Optional.of(m.key),
                    Optional.of(m.comm), now, OptionalInt.empty(), OptionalInt.empty(), false, Optional.empty(),
                    Optional.empty(), EventSource.PIDFD, false);
        }
        return null; // a zombie its parent has not reaped yet
    }

    private static ProcessEvent withStatus(Member m, Instant time, int waitStatus) {
        int sig = waitStatus & 0x7f;
        boolean exited = sig == 0;
        return new ProcessEvent(EventType.EXIT, m.key.pid(), OptionalLong.of(m.ppid), Optional.of(m.key),
                Optional.of(m.comm), time, exited ? OptionalInt.of((waitStatus >> 8) & 0xff) : OptionalInt.empty(),
                exited ? OptionalInt.empty() : OptionalInt.of(sig), !exited && (waitStatus & 0x80) != 0,
                Optional.empty(), Optional.empty(), EventSource.PIDFD, true);
    }

    private static ProcessEvent event(EventType type, Member m, Instant time) {
        return new ProcessEvent(type, m.key.pid(), OptionalLong.of(m.ppid), Optional.of(m.key), Optional.of(m.comm),
                time, OptionalInt.empty(), OptionalInt.empty(), false, Optional.empty(), Optional.empty(),
                EventSource.PIDFD, false);
    }

    /** Closes every pidfd still open; idempotent. */
    @Override
    public void close() {
        for (Member m : members.values()) {
            wall.close(m.fd);
        }
        members.clear();
    }
}
