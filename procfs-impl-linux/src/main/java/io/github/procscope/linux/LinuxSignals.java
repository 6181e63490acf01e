package io.github.procscope.linux;

import io.github.procscope.api.Facet;
import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.Pids;
import io.github.procscope.api.ProcessAccessDeniedException;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessState;
import io.github.procscope.api.ProcessStatus;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.Signal;
import io.github.procscope.api.ThreadInfo;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.SendResult.Outcome;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Signals on Linux: {@code kill(2)} through jnr-posix's native POSIX, identities and trees read from a
 * {@link ProcessTable} (normally {@link LinuxProcfs#system()}). Thread-safe; it holds no state between
 * calls but the table and the native binding.
 *
 * <pre>{@code
 * LinuxSignals signals = LinuxSignals.using(LinuxProcfs.system());
 * StopReport r = signals.stopTree(ProcessTable.system().key(pid), StopOptions.defaults());
 * }</pre>
 *
 * <p><b>Identity.</b> Before every {@code kill(2)} the target's {@code /proc/PID/stat} is read again
 * and its start time compared with the key's; a mismatch means the pid was recycled and nothing is
 * sent ({@link Outcome#PID_REUSED}). The re-read and the {@code kill} are microseconds apart, the same
 * guarantee the JDK's {@link ProcessHandle#destroy()} gives: a pid is reused only after its process has
 * been reaped and the kernel has cycled through the pid space.
 *
 * <p><b>Waiting.</b> A stop waits on a pidfd per process with {@code poll(2)}; without pidfds
 * (Linux before 5.3, a seccomp filter), it checks {@code /proc} with an exponential backoff.
 *
 * <p><b>Exit statuses.</b> Only a parent learns how its child ended. A stop reports an exit status for
 * processes that were children of this JVM: from {@link Process#exitValue()} when it was given the
 * {@link Process} (the JDK folds a death by signal N into 128 + N, the shell convention), or exactly,
 * from {@code waitid(2)} with {@code WNOWAIT}, when the child was still a zombie when its end was seen.
 * This class never reaps a child: the JDK's reaper (for {@link ProcessBuilder} children) or whoever
 * started it keeps that job.
 *
 * <p><b>Native code.</b> The C library is bound when the instance is created; if that fails,
 * {@link SignalsUnavailableException} says why. The pure-Java fallback of jnr-posix is never used.
 */
public final class LinuxSignals implements Signals {
    private final ProcessTable table;
    private final ProcessCalls nat;
    private final boolean allowSelf;
    private final boolean usePidfd;

    private LinuxSignals(ProcessTable table, ProcessCalls nat, boolean allowSelf, boolean usePidfd) {
        this.table = table;
        this.nat = nat;
        this.allowSelf = allowSelf;
        this.usePidfd = usePidfd;
    }

    /**
     * @param table the process table to check identities and scan trees with; it must describe the live
     *              system (a fixture table is only good for tests of refusals, since the signals are real)
     * @return a signal sender that refuses to signal this JVM
     * @throws SignalsUnavailableException if the native C library cannot be bound
     */
    public static LinuxSignals using(ProcessTable table) {
        Objects.requireNonNull(table, "table");
        return new LinuxSignals(table, ProcessCalls.get(), false, true);
    }

    /**
     * @return a signal sender over {@link LinuxProcfs#system()}
     * @throws SignalsUnavailableException if the native C library cannot be bound
     */
    public static LinuxSignals system() {
        return using(LinuxProcfs.system());
    }

    @Override
    public LinuxSignals allowingSelf() {
        return new LinuxSignals(table, nat, true, usePidfd);
    }

    /** @return a sender like this one that never uses pidfds, for tests of the backoff */
    LinuxSignals withoutPidfd() {
        return new LinuxSignals(table, nat, allowSelf, false);
    }

    @Override
    public SendResult send(ProcessKey target, Signal signal) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(signal, "signal");
        requireNotSelf(target.pid(), "send " + signal + " to");
        return sendChecked(target, signal);
    }

    /** Sends after the self check: re-reads the start time, then {@code kill(2)}. */
    SendResult sendChecked(ProcessKey target, Signal signal) {
        long pid = target.pid();
        ProcessInfo now;
        try {
            now = table.process(pid, Set.of());
        } catch (NoSuchProcessException e) {
            return new SendResult(pid, false, signal, Outcome.NO_SUCH_PROCESS, "no such process: pid " + pid
                    + " has exited; nothing was sent");
        } catch (ProcessAccessDeniedException e) {
            return new SendResult(pid, false, signal, Outcome.NOT_PERMITTED, "cannot verify pid " + pid
                    + ": its /proc entry is hidden from this user (hidepid), so nothing was sent");
        }
        if (now.startTimeTicks() != target.startTimeTicks()) {
            return new SendResult(pid, false, signal, Outcome.PID_REUSED, "pid " + pid
                    + " now belongs to another process (" + now.comm() + ", started at tick "
                    + now.startTimeTicks() + ", not " + target.startTimeTicks()
                    + "): the process meant has exited and its pid was reused; nothing was sent");
        }
        if (now.state() == ProcessState.ZOMBIE || now.state() == ProcessState.DEAD) {
            return new SendResult(pid, false, signal, Outcome.NO_SUCH_PROCESS, "pid " + pid + " (" + now.comm()
                    + ") has exited and is a zombie until its parent (pid " + now.ppid()
                    + ") reaps it; no signal can affect it, so nothing was sent");
        }
        int errno = nat.kill(pid, signal);
        return result(pid, false, signal, errno, now.comm());
    }

    @Override
    public SendResult sendToGroup(long pgid, Signal signal) {
        Objects.requireNonNull(signal, "signal");
        requireGroup(pgid);
        int errno = nat.kill(-pgid, signal);
        return result(pgid, true, signal, errno, null);
    }

    private SendResult result(long target, boolean group, Signal signal, int errno, String comm) {
        String what = group ? "process group " + target : "pid " + target + (comm == null ? "" : " (" + comm + ")");
        if (errno == 0) {
            return new SendResult(target, group, signal, Outcome.DELIVERED, signal + " delivered to " + what);
        }
        if (errno == NativeAccess.ESRCH) {
            return new SendResult(target, group, signal, Outcome.NO_SUCH_PROCESS, "no such "
                    + (group ? "process group: " + target + " has no member" : "process: " + what + " has exited")
                    + "; nothing was sent");
        }
        if (errno == NativeAccess.EPERM) {
            return new SendResult(target, group, signal, Outcome.NOT_PERMITTED, "not permitted to send " + signal
                    + " to " + what + ": it belongs to another user; run as that user or as root (CAP_KILL)");
        }
        throw new IllegalStateException("kill(" + (group ? -target : target) + ", " + signal.number()
                + ") failed with errno " + errno);
    }

    @Override
    public boolean isAlive(ProcessKey key) {
        Objects.requireNonNull(key, "key");
        try {
            ProcessInfo p = table.process(key.pid(), Set.of());
            return p.startTimeTicks() == key.startTimeTicks() && p.state() != ProcessState.ZOMBIE
                    && p.state() != ProcessState.DEAD;
        } catch (NoSuchProcessException e) {
            return false;
        }
    }

    @Override
    public Dispositions dispositions(ProcessKey key) {
        Objects.requireNonNull(key, "key");
        table.process(key, Set.of());
        Dispositions d = dispositions(key.pid());
        table.process(key, Set.of()); // still the same process: the masks read are its own
        return d;
    }

    @Override
    public Dispositions dispositions(long pid) {
        Pids.requireValid(pid);
        ProcessStatus status = table.status(pid);
        List<Dispositions.ThreadMasks> threads = new ArrayList<>();
        for (ThreadInfo t : table.threads(pid, Set.of(Facet.STATUS))) {
            if (t.status().isPresent()) {
                threads.add(new Dispositions.ThreadMasks(t.tid(), t.name(), t.status().get().signals()));
            }
        }
        return new Dispositions(pid, status.signals(), threads);
    }

    @Override
    public StopReport stop(ProcessKey target, StopOptions options) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(options, "options");
        requireNotSelf(target.pid(), "stop");
        return new GracefulStop(this, nat, single(target), options, describe("process", target), null, usePidfd)
                .run();
    }

    @Override
    public StopReport stop(Process child, StopOptions options) {
        Objects.requireNonNull(child, "child");
        Objects.requireNonNull(options, "options");
        ProcessKey key = keyOf(child);
        if (key == null) {
            return alreadyExited(child, options, "process ");
        }
        return new GracefulStop(this, nat, single(key), options, describe("process", key), child, usePidfd).run();
    }

    @Override
    public StopReport stopGroup(long pgid, StopOptions options) {
        Objects.requireNonNull(options, "options");
        requireGroup(pgid);
        GracefulStop.Membership group = new GracefulStop.Membership() {
            @Override
            public List<ProcessInfo> scan(Set<ProcessKey> known) {
                List<ProcessInfo> out = new ArrayList<>();
                for (ProcessInfo p : table.snapshot().processes()) {
                    if (p.pgid() == pgid && !p.isKernelThread() && (allowSelf || p.pid() != nat.selfPid())) {
                        out.add(p);
                    }
                }
                return out;
            }

            @Override
            public boolean rescans() {
                return true;
            }
        };
        return new GracefulStop(this, nat, group, options, "process group " + pgid, null, usePidfd).run();
    }

    @Override
    public StopReport stopTree(ProcessKey root, StopOptions options) {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(options, "options");
        requireNotSelf(root.pid(), "stop the tree of");
        return stopTree(root, options, null);
    }

    @Override
    public StopReport stopTree(Process child, StopOptions options) {
        Objects.requireNonNull(child, "child");
        Objects.requireNonNull(options, "options");
        ProcessKey key = keyOf(child);
        if (key == null) {
            return alreadyExited(child, options, "tree of ");
        }
        return stopTree(key, options, child);
    }

    private StopReport stopTree(ProcessKey root, StopOptions options, Process child) {
        TreeMembership tree = new TreeMembership(root);
        List<ProcessInfo> first = tree.scan(Set.of());
        if (!allowSelf) {
            for (ProcessInfo p : first) {
                if (p.pid() == nat.selfPid()) {
                    throw new IllegalArgumentException("refusing to stop the tree of pid " + root.pid()
                            + ": it contains this JVM (pid " + nat.selfPid() + "); nothing was sent. Use"
                            + " Signals.allowingSelf() if that is meant");
                }
            }
        }
        GracefulStop.Membership membership = new GracefulStop.Membership() {
            private boolean firstUsed;

            @Override
            public List<ProcessInfo> scan(Set<ProcessKey> known) {
                if (!firstUsed) {
                    firstUsed = true;
                    return first;
                }
                return tree.scan(known);
            }

            @Override
            public boolean rescans() {
                return true;
            }
        };
        return new GracefulStop(this, nat, membership, options, describe("tree of", root), child, usePidfd).run();
    }

    /**
     * The members of a tree: the root and its descendants, the descendants of members found before
     * (an orphan keeps its own children), and processes in a process group or session that the root or
     * another member leads, started no earlier than the root (orphans re-parented away from the tree).
     *
     * <p>A group or session id is the pid of the process that created it, and the kernel does not hand
     * that pid out again while the group or session has a member. So a group whose leader has exited is
     * still recognised by its id, as long as no other process has taken that pid; once one has, the id
     * is dropped.
     */
    private final class TreeMembership {
        private final ProcessKey root;
        /** Group and session ids led by a member, with the identity of that leader. */
        private final Map<Long, ProcessKey> groups = new HashMap<>();
        private final Map<Long, ProcessKey> sessions = new HashMap<>();
        private boolean first = true;

        TreeMembership(ProcessKey root) {
            this.root = root;
        }

        List<ProcessInfo> scan(Set<ProcessKey> known) {
            ProcessSnapshot snap = table.snapshot();
            if (first) {
                first = false;
                if (snap.find(root.pid()).isEmpty()) {
                    // The root has exited, and its pid is free of other processes: any group or session
                    // with that id is still the one the root led (if it led one).
                    groups.put(root.pid(), root);
                    sessions.put(root.pid(), root);
                }
            }
            dropReused(groups, snap);
            dropReused(sessions, snap);
            Map<Long, List<ProcessInfo>> children = new HashMap<>();
            for (ProcessInfo p : snap.processes()) {
                children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p);
            }
            Map<Long, ProcessInfo> members = new LinkedHashMap<>();
            ArrayDeque<ProcessInfo> queue = new ArrayDeque<>();
            snap.find(root).ifPresent(p -> add(p, members, queue));
            for (ProcessKey k : known) {
                snap.find(k).ifPresent(p -> add(p, members, queue));
            }
            boolean grew = true;
            while (grew) {
                while (!queue.isEmpty()) {
                    ProcessInfo p = queue.poll();
                    for (ProcessInfo c : children.getOrDefault(p.pid(), List.of())) {
                        add(c, members, queue);
                    }
                }
                grew = false;
                for (ProcessInfo p : snap.processes()) {
                    if (!members.containsKey(p.pid()) && p.startTimeTicks() >= root.startTimeTicks()
                            && (groups.containsKey(p.pgid()) || sessions.containsKey(p.sid()))) {
                        add(p, members, queue);
                        grew = true;
                    }
                }
            }
            return new ArrayList<>(members.values());
        }

        /** Forgets ids whose pid now names a process other than the member that led them. */
        private void dropReused(Map<Long, ProcessKey> leaders, ProcessSnapshot snap) {
            leaders.entrySet().removeIf(e -> snap.find(e.getKey())
                    .map(p -> p.startTimeTicks() != e.getValue().startTimeTicks()).orElse(false));
        }

        private void add(ProcessInfo p, Map<Long, ProcessInfo> members, ArrayDeque<ProcessInfo> queue) {
            if (p.isKernelThread() || p.pid() == 1 || members.containsKey(p.pid())) {
                return;
            }
            members.put(p.pid(), p);
            queue.add(p);
            if (p.pid() == p.pgid()) {
                groups.putIfAbsent(p.pgid(), p.key());
            }
            if (p.pid() == p.sid()) {
                sessions.putIfAbsent(p.sid(), p.key());
            }
        }
    }

    private GracefulStop.Membership single(ProcessKey key) {
        return new GracefulStop.Membership() {
            @Override
            public List<ProcessInfo> scan(Set<ProcessKey> known) {
                try {
                    ProcessInfo p = table.process(key.pid(), Set.of());
                    return p.startTimeTicks() == key.startTimeTicks() ? List.of(p) : List.of();
                } catch (NoSuchProcessException e) {
                    return List.of();
                }
            }

            @Override
            public boolean rescans() {
                return false;
            }
        };
    }

    /** The report on a child that had exited before the stop: nothing to stop, nothing listed. */
    private static StopReport alreadyExited(Process child, StopOptions options, String what) {
        return new StopReport(what + child.pid() + " (already exited)", options.signal(), options.gracePeriod(),
                List.of(), java.time.Duration.ZERO);
    }

    /** @return the key of a live child, or null if it has already exited */
    private ProcessKey keyOf(Process child) {
        if (!child.isAlive()) {
            return null;
        }
        ProcessKey key;
        try {
            key = table.key(child.pid());
        } catch (NoSuchProcessException e) {
            return null;
        }
        // Still alive after the read: the JDK had not reaped it, so the pid could not have been reused.
        return child.isAlive() ? key : null;
    }

    private String describe(String what, ProcessKey key) {
        String comm;
        try {
            comm = table.process(key, Set.of()).comm();
        } catch (NoSuchProcessException e) {
            return what + " " + key.pid();
        }
        return what + " " + key.pid() + " (" + comm + ")";
    }

    private void requireNotSelf(long pid, String action) {
        if (!allowSelf && pid == nat.selfPid()) {
            throw new IllegalArgumentException("refusing to " + action + " pid " + pid
                    + ": it is this JVM itself; nothing was sent. Use Signals.allowingSelf() if that is meant");
        }
    }

    private void requireGroup(long pgid) {
        if (pgid <= 0) {
            throw new IllegalArgumentException("invalid process group id " + pgid + ": group ids are positive"
                    + " (kill(0) would signal this JVM's own group and kill(-1) every process); nothing was sent");
        }
        Pids.requireValid(pgid);
        if (pgid == 1) {
            throw new IllegalArgumentException("refusing process group 1: kill(-1) means every process, not"
                    + " group 1; nothing was sent");
        }
        if (!allowSelf && pgid == nat.selfProcessGroup()) {
            throw new IllegalArgumentException("refusing to signal process group " + pgid + ": this JVM (pid "
                    + nat.selfPid() + ") is in it; nothing was sent. Use Signals.allowingSelf() if that is meant");
        }
    }

    @Override
    public String toString() {
        return "LinuxSignals[" + table + (allowSelf ? ", self allowed" : "") + "]";
    }
}
