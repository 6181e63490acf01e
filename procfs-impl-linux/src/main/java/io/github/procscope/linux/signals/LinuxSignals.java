package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.SendResult.Outcome;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.TreeMembers;
import io.github.procscope.linux.sys.ProcessCalls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Signals on Linux: {@code kill(2)} through jnr-posix's native POSIX, identities and trees read from a
 * {@link ProcessTable} (normally the live {@code /proc}). Thread-safe; it holds no state between
 * calls but the table and the native binding.
 *
 * <pre>{@code
 * LinuxSignals signals = LinuxSignals.using(LinuxProcfs.at(Path.of("/proc")));
 * StopReport r = signals.stopTree(Procscope.system().processes().key(pid), StopOptions.defaults());
 * }</pre>
 *
 * <p><b>Identity.</b> Every signal to one process goes through a pidfd ({@code pidfd_open(2)}, Linux 5.3
 * and later): the pidfd is opened, the process it names is checked against the key, and the signal is sent
 * through it ({@code pidfd_send_signal(2)}), so the process checked is the one signalled; if it exits in
 * between, nothing is sent (a pidfd never follows a pid to a newcomer). The check compares the pidfd's
 * inode number with the key's where both have one (pidfs, Linux 6.9 and later: exact), else the start time
 * read from {@code /proc/PID/stat} after the pidfd was opened (exact up to one clock tick). A mismatch means
 * the pid was recycled and nothing is sent ({@link Outcome#PID_REUSED}). Where no pidfd can be had (an
 * older kernel, a seccomp filter, a thread id), the start time is checked and {@code kill(2)} sent
 * microseconds later, the guarantee the JDK's {@link ProcessHandle#destroy()} gives.
 *
 * <p><b>Stops.</b> A stop opens one pidfd per process when it first finds it, and sends its TERM and its KILL
 * through that same pidfd. The process named is checked against the caller's key through it; a process a scan
 * finds in a group or tree, which {@code /proc} names by (pid, start tick) only, is read again after its pidfd was
 * opened, and becomes a member only if that reading makes it one (its group; for a tree, a parent that is a member
 * whose own pidfd has not exited, or a group or session a member made) and its pidfd has not exited after the
 * reading: so a process that took a member's pid, within the same tick or not, is never signalled, nor are its
 * children (see {@code GracefulStop}). A member is keyed with its pidfd's pidfs inode.
 *
 * <p><b>Refusals.</b> PID 1 of this PID namespace (unless {@link #allowingInit()}), kernel threads, this JVM,
 * its ancestors and their process groups (unless {@link #allowingSelf()}) are never signalled: an
 * {@link IllegalArgumentException} says why and that nothing was sent.
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
 * <p><b>Parts.</b> {@link Identity} reads and checks keys through pidfds, {@link CheckedSender} is the one way a
 * signal is sent, {@link RefusalPolicy} says what is never signalled; a stop ({@code GracefulStop}) gets the identity
 * and a narrow {@link Sender}, and never calls back into this class.
 *
 * <p><b>Native code.</b> The C library is bound when the instance is created; if that fails,
 * {@link SignalsUnavailableException} says why. The pure-Java fallback of jnr-posix is never used.
 */
public final class LinuxSignals implements Signals {
    private final ProcessTable table;
    private final ProcessCalls nat;
    private final boolean allowSelf;
    private final boolean allowInit;
    private final boolean usePidfd;
    private final Identity identity;
    private final CheckedSender sender;
    private final RefusalPolicy policy;

    private LinuxSignals(ProcessTable table, ProcessCalls nat, boolean allowSelf, boolean allowInit,
                         boolean usePidfd) {
        this.table = table;
        this.nat = nat;
        this.allowSelf = allowSelf;
        this.allowInit = allowInit;
        this.usePidfd = usePidfd;
        this.identity = new Identity(table, nat, usePidfd);
        this.sender = new CheckedSender(identity, nat);
        this.policy = new RefusalPolicy(table, nat, identity, allowSelf, allowInit);
    }

    /**
     * @param table the process table to check identities and scan trees with; it must describe the live
     *              system (a fixture table is only good for tests of refusals, since the signals are real)
     * @return a signal sender that refuses to signal this JVM
     * @throws SignalsUnavailableException if the native C library cannot be bound
     */
    public static LinuxSignals using(ProcessTable table) {
        Objects.requireNonNull(table, "table");
        return new LinuxSignals(table, ProcessCalls.get(), false, false, true);
    }

    /**
     * @param table a process table under a root that is not this system's {@code /proc} (a fixture, a host's
     *              {@code /proc} mounted into a container)
     * @param root  that root, named in the refusals
     * @return a sender that reads dispositions and liveness from that table and refuses every send and stop
     *         with {@link SignalsUnavailableException}: the pids there are not this system's to signal. It binds
     *         no native code.
     */
    public static Signals readingOnly(ProcessTable table, Path root) {
        Objects.requireNonNull(table, "table");
        return new ReadOnlySignals(new LinuxSignals(table, null, false, false, true), Objects.requireNonNull(root, "root"));
    }

    /** @return the process table identities are read from */
    ProcessTable table() {
        return table;
    }

    @Override
    public LinuxSignals allowingSelf() {
        return new LinuxSignals(table, nat, true, allowInit, usePidfd);
    }

    @Override
    public LinuxSignals allowingInit() {
        return new LinuxSignals(table, nat, allowSelf, true, usePidfd);
    }

    /** @return a sender like this one that never uses pidfds: kill(2) after a start-time check, and backoff */
    LinuxSignals withoutPidfd() {
        return new LinuxSignals(table, nat, allowSelf, allowInit, false);
    }

    @Override
    public ProcessKey key(long pid) {
        return identity.key(pid);
    }

    @Override
    public ProcessKey key(ProcessHandle handle) {
        return identity.key(handle);
    }

    @Override
    public SendResult send(ProcessKey target, Signal signal) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(signal, "signal");
        policy.requireSignallable(target, "send " + signal + " to");
        return sender.sendChecked(target, signal);
    }

    @Override
    public SendResult sendToGroup(long pgid, Signal signal) {
        Objects.requireNonNull(signal, "signal");
        policy.requireGroup(pgid);
        return sender.sendToGroup(pgid, signal);
    }

    @Override
    public boolean isAlive(ProcessKey key) {
        return identity.isAlive(key);
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
        policy.requireSignallable(target, "stop");
        return new GracefulStop(identity, sender, nat, single(target), options, "process", null, usePidfd).run();
    }

    @Override
    public StopReport stop(Process child, StopOptions options) {
        Objects.requireNonNull(child, "child");
        Objects.requireNonNull(options, "options");
        ProcessKey key = keyOf(child);
        if (key == null) {
            return alreadyExited(child, options, "process ");
        }
        return new GracefulStop(identity, sender, nat, single(key), options, "process", child, usePidfd).run();
    }

    @Override
    public StopReport stopGroup(long pgid, StopOptions options) {
        Objects.requireNonNull(options, "options");
        policy.requireGroup(pgid);
        GracefulStop.Membership group = new GracefulStop.Membership() {
            @Override
            public List<ProcessInfo> scan(Set<ProcessKey> known) {
                List<ProcessInfo> out = new ArrayList<>();
                for (ProcessInfo p : table.snapshot().processes()) {
                    if (p.pgid() == pgid) {
                        out.add(p);
                    }
                }
                return out;
            }

            @Override
            public boolean rescans() {
                return true;
            }

            @Override
            public boolean belongs(ProcessInfo now, GracefulStop.Members members) {
                return now.pgid() == pgid && !now.isKernelThread() && (allowSelf || now.pid() != nat.selfPid())
                        && (allowInit || now.pid() != 1);
            }
        };
        return new GracefulStop(identity, sender, nat, group, options, "process group " + pgid, null, usePidfd).run();
    }

    @Override
    public StopReport stopTree(ProcessKey root, StopOptions options) {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(options, "options");
        policy.requireSignallable(root, "stop the tree of");
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
        Set<Long> refused = new HashSet<>();
        if (!allowSelf) {
            refused.add(nat.selfPid());
            for (ProcessInfo a : policy.ancestors()) {
                refused.add(a.pid());
            }
        }
        GracefulStop.Membership membership = new GracefulStop.Membership() {
            private boolean firstUsed;

            @Override
            public ProcessKey target() {
                return root;
            }

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

            /**
             * {@link TreeMembers}' rule on the candidate's own reading, each relation checked through a member: a
             * parent that is a member still running, or a group or session a member made (for a process started
             * no earlier than the root).
             */
            @Override
            public boolean belongs(ProcessInfo now, GracefulStop.Members members) {
                if (now.isKernelThread() || now.pid() == 1 || refused.contains(now.pid())) {
                    return false;
                }
                if (members.running(now.ppid())) {
                    return true;
                }
                return now.startTimeTicks() >= root.startTimeTicks()
                        && (members.ledByMember(now.pgid(), false) || members.ledByMember(now.sid(), true));
            }
        };
        return new GracefulStop(identity, sender, nat, membership, options, "tree of", child, usePidfd).run();
    }

    /** A tree's candidates by {@link TreeMembers}' rule, read from a fresh snapshot of the table at each scan. */
    private final class TreeMembership {
        private final ProcessKey root;
        private final TreeMembers members;
        private boolean first = true;

        TreeMembership(ProcessKey root) {
            this.root = root;
            this.members = new TreeMembers(root);
        }

        List<ProcessInfo> scan(Set<ProcessKey> known) {
            ProcessSnapshot snap = table.snapshot();
            if (first) {
                first = false;
                if (snap.find(root.pid()).isEmpty()) {
                    members.rootLedItsPid();
                }
            }
            return members.members(snap, known);
        }
    }

    /** The one process a key names: a candidate only while its pid has the key's start time. */
    private GracefulStop.Membership single(ProcessKey key) {
        return new GracefulStop.Membership() {
            @Override
            public ProcessKey target() {
                return key;
            }

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

            @Override
            public boolean belongs(ProcessInfo now, GracefulStop.Members members) {
                return false; // the target alone, checked by its key
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
        try {
            // Read while it is alive: the JDK had not reaped it, so the pid could not have been reused.
            return key(child.toHandle());
        } catch (NoSuchProcessException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "LinuxSignals[" + table + (allowSelf ? ", self allowed" : "") + (allowInit ? ", init allowed" : "")
                + "]";
    }
}
