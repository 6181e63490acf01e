package io.github.procscope.linux.signals;

import io.github.procscope.linux.sys.ProcessCalls;
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
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.ThreadInfo;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.SendResult.Outcome;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.TreeMembers;
import io.github.procscope.linux.sys.internal.NativeAccess;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
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
 * <p><b>Native code.</b> The C library is bound when the instance is created; if that fails,
 * {@link SignalsUnavailableException} says why. The pure-Java fallback of jnr-posix is never used.
 */
public final class LinuxSignals implements Signals {
    private final ProcessTable table;
    private final ProcessCalls nat;
    private final boolean allowSelf;
    private final boolean allowInit;
    private final boolean usePidfd;

    private LinuxSignals(ProcessTable table, ProcessCalls nat, boolean allowSelf, boolean allowInit,
                         boolean usePidfd) {
        this.table = table;
        this.nat = nat;
        this.allowSelf = allowSelf;
        this.allowInit = allowInit;
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
        return new LinuxSignals(table, ProcessCalls.get(), false, false, true);
    }

    /**
     * @return a signal sender over {@link LinuxProcfs#system()}
     * @throws SignalsUnavailableException if the native C library cannot be bound
     */
    public static LinuxSignals system() {
        return using(LinuxProcfs.system());
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
    public LinuxSignals withoutPidfd() {
        return new LinuxSignals(table, nat, allowSelf, allowInit, false);
    }

    @Override
    public ProcessKey key(long pid) {
        Pids.requireValid(pid);
        int fd = openPidfd(pid);
        if (fd == -NativeAccess.ESRCH) {
            throw new NoSuchProcessException(pid, "no such process: " + pid);
        }
        if (fd < 0) {
            return plainKey(pid);
        }
        try {
            ProcessKey plain = plainKey(pid);
            if (nat.pidfdExited(fd)) {
                // The stat read may be of a process that took the pid since: the one meant is gone.
                throw new NoSuchProcessException(pid, "no such process: pid " + pid + " has exited");
            }
            // Still running after the read: the pid named the pidfd's process all along.
            OptionalLong ino = nat.pidfdInode(fd);
            return ino.isPresent() ? new ProcessKey(pid, plain.startTimeTicks(), ino) : plain;
        } finally {
            nat.close(fd);
        }
    }

    /** @return the (pid, start time) of the process holding the pid now, read from {@code /proc/PID/stat} alone */
    private ProcessKey plainKey(long pid) {
        return table instanceof LinuxProcfs procfs ? procfs.plainKey(pid) : table.key(pid).withoutInode();
    }

    @Override
    public ProcessKey key(ProcessHandle handle) {
        Objects.requireNonNull(handle, "handle");
        long pid = handle.pid();
        int fd = openPidfd(pid);
        if (fd == -NativeAccess.ESRCH || !handle.isAlive()) {
            if (fd >= 0) {
                nat.close(fd);
            }
            throw new NoSuchProcessException(pid, "no such process: " + pid + " has exited");
        }
        // Alive after the pidfd was opened: for a child, not yet reaped, so the pidfd is the child's; for
        // another process, the JDK compared its recorded start time with the pid's.
        try {
            ProcessKey plain = plainKey(pid);
            if (!handle.isAlive() || (fd >= 0 && nat.pidfdExited(fd))) {
                throw new NoSuchProcessException(pid, "no such process: " + pid + " has exited");
            }
            OptionalLong ino = fd >= 0 ? nat.pidfdInode(fd) : OptionalLong.empty();
            return ino.isPresent() ? new ProcessKey(pid, plain.startTimeTicks(), ino) : plain;
        } finally {
            if (fd >= 0) {
                nat.close(fd);
            }
        }
    }

    @Override
    public SendResult send(ProcessKey target, Signal signal) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(signal, "signal");
        requireSignallable(target, "send " + signal + " to");
        return sendChecked(target, signal);
    }

    /**
     * Sends after the refusals: opens a pidfd, checks the identity through it and signals through it; where
     * no pidfd can be had, checks the start time and calls {@code kill(2)}.
     */
    SendResult sendChecked(ProcessKey target, Signal signal) {
        int fd = openPidfd(target.pid());
        if (fd == -NativeAccess.ESRCH) {
            return new SendResult(target.pid(), false, signal, Outcome.NO_SUCH_PROCESS, "no such process: pid "
                    + target.pid() + " has exited; nothing was sent");
        }
        if (fd < 0) {
            return sendByKill(target, signal);
        }
        try {
            return sendThrough(fd, target, signal);
        } finally {
            nat.close(fd);
        }
    }

    /** @return a pidfd on {@code pid}, or minus the errno ({@code -ESRCH}: gone; other: no pidfd here) */
    private int openPidfd(long pid) {
        if (!usePidfd || !nat.pidfdPossible()) {
            return -38; // ENOSYS
        }
        return nat.pidfdOpen(pid);
    }

    /**
     * Checks that a pidfd names the process of the key and sends the signal through it.
     *
     * @param pidfd a pidfd opened on {@code target.pid()}
     */
    SendResult sendThrough(int pidfd, ProcessKey target, Signal signal) {
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
        if (uncheckable(pidfd, target)) {
            return new SendResult(pid, false, signal, Outcome.NOT_PERMITTED, "cannot verify pid " + pid
                    + ": the pidfs inode of its pidfd cannot be read, so it cannot be told from a process that took"
                    + " its pid; nothing was sent");
        }
        String mismatch = identityMismatch(pidfd, target, now);
        if (mismatch != null) {
            return new SendResult(pid, false, signal, Outcome.PID_REUSED, mismatch);
        }
        SendResult zombie = zombie(now, signal);
        if (zombie != null) {
            return zombie;
        }
        int errno = nat.pidfdSendSignal(pidfd, signal);
        if (errno == 38) { // ENOSYS: pidfd_open without pidfd_send_signal cannot happen, but be sure
            return sendByKill(target, signal);
        }
        return result(pid, false, signal, errno, now.comm());
    }

    /**
     * @param pidfd a pidfd opened on the key's pid
     * @param key   the identity meant
     * @return whether the key has a pidfs inode, pidfds have inodes here, and this pidfd's cannot be read: the
     *         identity cannot be checked (the start time would not tell a newcomer of the same tick apart)
     */
    boolean uncheckable(int pidfd, ProcessKey key) {
        return key.pidfsInode().isPresent() && nat.pidfsInodes() && nat.pidfdInode(pidfd).isEmpty();
    }

    /**
     * @param pidfd a pidfd opened on the key's pid
     * @param key   the identity meant
     * @param now   {@code /proc/PID/stat} as read after the pidfd was opened
     * @return why the pidfd's process is not the key's, or null if it is
     */
    private String identityMismatch(int pidfd, ProcessKey key, ProcessInfo now) {
        if (key.pidfsInode().isPresent()) {
            OptionalLong ino = nat.pidfdInode(pidfd);
            if (ino.isPresent()) {
                if (ino.getAsLong() == key.pidfsInode().getAsLong()) {
                    return null;
                }
                return "pid " + key.pid() + " now belongs to another process (" + now.comm() + ", pidfs inode "
                        + ino.getAsLong() + ", not " + key.pidfsInode().getAsLong()
                        + "): the process meant has exited and its pid was reused; nothing was sent";
            }
        }
        if (now.startTimeTicks() != key.startTimeTicks()) {
            return "pid " + key.pid() + " now belongs to another process (" + now.comm() + ", started at tick "
                    + now.startTimeTicks() + ", not " + key.startTimeTicks()
                    + "): the process meant has exited and its pid was reused; nothing was sent";
        }
        return null;
    }

    /**
     * @param pidfd a pidfd opened on the key's pid
     * @param key   the identity meant
     * @return whether the pidfd names that process and it has not exited
     */
    boolean aliveThrough(int pidfd, ProcessKey key) {
        ProcessInfo now;
        try {
            now = table.process(key.pid(), Set.of());
        } catch (NoSuchProcessException e) {
            return false;
        } catch (ProcessAccessDeniedException e) {
            return !nat.pidfdExited(pidfd); // hidden from this user (hidepid): its end is still seen
        }
        return identityMismatch(pidfd, key, now) == null && !nat.pidfdExited(pidfd)
                && now.state() != ProcessState.ZOMBIE && now.state() != ProcessState.DEAD;
    }

    /** Without a pidfd: re-reads the start time, then {@code kill(2)}. */
    private SendResult sendByKill(ProcessKey target, Signal signal) {
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
        SendResult zombie = zombie(now, signal);
        if (zombie != null) {
            return zombie;
        }
        int errno = nat.kill(pid, signal);
        return result(pid, false, signal, errno, now.comm());
    }

    private static SendResult zombie(ProcessInfo now, Signal signal) {
        if (now.state() == ProcessState.ZOMBIE || now.state() == ProcessState.DEAD) {
            return new SendResult(now.pid(), false, signal, Outcome.NO_SUCH_PROCESS, "pid " + now.pid() + " ("
                    + now.comm() + ") has exited and is a zombie until its parent (pid " + now.ppid()
                    + ") reaps it; no signal can affect it, so nothing was sent");
        }
        return null;
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
        if (key.pidfsInode().isPresent()) {
            int fd = openPidfd(key.pid());
            if (fd == -NativeAccess.ESRCH) {
                return false;
            }
            if (fd >= 0) {
                try {
                    return aliveThrough(fd, key);
                } finally {
                    nat.close(fd);
                }
            }
        }
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
        requireSignallable(target, "stop");
        return new GracefulStop(this, nat, single(target), options, "process", null, usePidfd).run();
    }

    @Override
    public StopReport stop(Process child, StopOptions options) {
        Objects.requireNonNull(child, "child");
        Objects.requireNonNull(options, "options");
        ProcessKey key = keyOf(child);
        if (key == null) {
            return alreadyExited(child, options, "process ");
        }
        return new GracefulStop(this, nat, single(key), options, "process", child, usePidfd).run();
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
        return new GracefulStop(this, nat, group, options, "process group " + pgid, null, usePidfd).run();
    }

    @Override
    public StopReport stopTree(ProcessKey root, StopOptions options) {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(options, "options");
        requireSignallable(root, "stop the tree of");
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
            for (ProcessInfo a : ancestors()) {
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
        return new GracefulStop(this, nat, membership, options, "tree of", child, usePidfd).run();
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

    /**
     * Refuses what must not be signalled: this JVM, its ancestors, PID 1 of this PID namespace, kernel
     * threads. A process that is gone passes (the send then says it is gone).
     */
    private void requireSignallable(ProcessKey target, String action) {
        long pid = target.pid();
        if (!allowSelf && pid == nat.selfPid()) {
            throw new IllegalArgumentException("refusing to " + action + " pid " + pid
                    + ": it is this JVM itself; nothing was sent. Use Signals.allowingSelf() if that is meant");
        }
        ProcessInfo p;
        try {
            p = table.process(pid, Set.of());
        } catch (NoSuchProcessException | ProcessAccessDeniedException e) {
            return;
        }
        if (p.startTimeTicks() != target.startTimeTicks() || heldByAnother(target)) {
            return; // another process now: the send says so and sends nothing
        }
        if (isKernelThread(p)) {
            throw new IllegalArgumentException("refusing to " + action + " pid " + pid + " (" + p.comm()
                    + "): it is a kernel thread, not a process a signal can stop; nothing was sent");
        }
        if (pid == 1 && !allowInit) {
            throw new IllegalArgumentException("refusing to " + action + " pid 1 (" + p.comm() + "): it is the"
                    + " init of this PID namespace, and ending it ends every process in it (in a container, the"
                    + " container); nothing was sent. Use Signals.allowingInit() if that is meant");
        }
        if (!allowSelf) {
            List<ProcessInfo> chain = ancestors();
            for (ProcessInfo a : chain) {
                if (a.pid() == pid) {
                    throw new IllegalArgumentException("refusing to " + action + " pid " + pid + " (" + p.comm()
                            + "): it is an ancestor of this JVM (pid " + nat.selfPid() + "), such as the shell that"
                            + " started it; nothing was sent. Use Signals.allowingSelf() if that is meant");
                }
            }
        }
    }

    /**
     * @return whether the key's pid is held by a process whose pidfs inode differs from the key's: one that took
     *         the pid within the key's clock tick (false where either has no inode)
     */
    private boolean heldByAnother(ProcessKey key) {
        if (key.pidfsInode().isEmpty()) {
            return false;
        }
        int fd = openPidfd(key.pid());
        if (fd < 0) {
            return false;
        }
        try {
            OptionalLong ino = nat.pidfdInode(fd);
            return ino.isPresent() && ino.getAsLong() != key.pidfsInode().getAsLong();
        } finally {
            nat.close(fd);
        }
    }

    /** {@code PF_EXITING} of {@code linux/sched.h}: the task is in {@code do_exit}. */
    private static final long PF_EXITING = 0x4;

    /**
     * @return whether {@code p} is a kernel thread: {@code PF_KTHREAD}, a child of kthreadd, or a live task with
     *         no address space ({@link #hasNoMm})
     */
    private boolean isKernelThread(ProcessInfo p) {
        if (p.isKernelThread()) {
            return true;
        }
        if (p.ppid() == 2) {
            try {
                if (table.process(2, Set.of()).isKernelThread()) {
                    return true;
                }
            } catch (NoSuchProcessException | ProcessAccessDeniedException e) {
                // kthreadd is not shown here: the other evidence decides
            }
        }
        return hasNoMm(p);
    }

    /**
     * The kernel's third sign of a kernel thread, for where the flags and the parent say nothing (a kernel
     * without {@code PF_KTHREAD} in {@code stat}, a kernel thread shown with parent 0): it has no address space
     * ({@code mm} is NULL), which {@code /proc} shows as a {@code vsize} of 0, a {@code statm} of zeros and an
     * empty {@code cmdline}. A zombie or a dead task shows the same, having given its address space back, and is
     * not a kernel thread; so is a process on its way there, which gives its address space back in
     * {@code do_exit} after it has set {@code PF_EXITING} and before it shows as a zombie. Only a task with
     * {@code vsize} 0 costs the extra read of {@code cmdline}.
     */
    private boolean hasNoMm(ProcessInfo p) {
        if (p.vszBytes() != 0 || p.state() == ProcessState.ZOMBIE || p.state() == ProcessState.DEAD
                || (p.stat().flags() & PF_EXITING) != 0) {
            return false;
        }
        if (p.statm().isPresent() && (p.statm().get().sizeBytes() != 0 || p.statm().get().residentBytes() != 0)) {
            return false;
        }
        try {
            return table.cmdline(p.key()).isEmpty();
        } catch (NoSuchProcessException | ProcessAccessDeniedException e) {
            return false; // gone (the send says so) or hidden: no evidence either way
        }
    }

    /** @return the ancestors of this JVM, its parent first, as far up as this PID namespace shows them */
    private List<ProcessInfo> ancestors() {
        List<ProcessInfo> out = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        long pid = nat.selfPid();
        try {
            pid = table.process(pid, Set.of()).ppid();
            while (pid > 0 && seen.add(pid) && out.size() < 4096) {
                ProcessInfo a = table.process(pid, Set.of());
                out.add(a);
                pid = a.ppid();
            }
        } catch (NoSuchProcessException | ProcessAccessDeniedException e) {
            // the chain ends where it can no longer be read
        }
        return out;
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
        if (!allowSelf) {
            for (ProcessInfo a : ancestors()) {
                if (a.pgid() == pgid) {
                    throw new IllegalArgumentException("refusing to signal process group " + pgid + ": it holds pid "
                            + a.pid() + " (" + a.comm() + "), an ancestor of this JVM (pid " + nat.selfPid()
                            + "); nothing was sent. Use Signals.allowingSelf() if that is meant");
                }
            }
        }
    }

    @Override
    public String toString() {
        return "LinuxSignals[" + table + (allowSelf ? ", self allowed" : "") + (allowInit ? ", init allowed" : "")
                + "]";
    }
}
