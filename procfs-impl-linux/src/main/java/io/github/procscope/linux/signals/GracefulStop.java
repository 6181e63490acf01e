package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport.Ending;
import io.github.procscope.api.signals.StopReport.StoppedProcess;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.sys.Errno;
import io.github.procscope.linux.sys.ProcessCalls;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One graceful stop: the polite signal to every member, a wait up to the grace period, KILL to the
 * survivors, a wait until they are gone. Members come from a {@link Membership}; one that re-scans
 * (a group, a tree) is asked again on the backoff until a scan finds no live member, so processes
 * forked during the shutdown get the same treatment (the polite signal during the grace period, KILL
 * after it). Not thread-safe: one per call.
 *
 * <p><b>One identity from the scan to every signal.</b> A scan reads {@code /proc}, which names a process by
 * (pid, start tick) only, and a process found there may exit and have its pid taken by another before anything
 * is done with it, within the same clock tick. So a process a scan found becomes a member only through a pidfd:
 * the pidfd is opened on its pid, its {@code /proc} entry is read again, the facts that make it a member are
 * checked on that reading (the caller's key for the target; for a tree, a parent that is a member still running,
 * or a group or session a member made), and then the pidfd is seen not to have exited, so that the reading was of
 * the pidfd's process. The member is keyed with the pidfd's pidfs inode (Linux 6.9 and later), and every signal
 * it gets goes through that pidfd. A member's relation to another member is checked through the other's pidfd,
 * after the reading: a parent whose pidfd has exited is not the parent the reading names, but a process that took
 * its pid. Where no pidfd can be had, the start time is checked instead, exact to one clock tick.
 */
final class GracefulStop {

    /** Who belongs to the target. */
    interface Membership {
        /**
         * @param known the identities of the members still being stopped, by (pid, start time)
         * @return the candidates now, those already known included, parents before their children; zombies may
         *         be among them. Each is checked ({@link #belongs}) before it becomes a member
         */
        List<ProcessInfo> scan(Set<ProcessKey> known);

        /** @return whether members can appear after the first scan (a group or a tree) */
        boolean rescans();

        /**
         * @return the process the caller named (a process stopped alone, or the root of a tree), listed first in
         *         the report, as {@link Ending#GONE} when it is not running when the stop starts; null for a
         *         process group
         */
        default ProcessKey target() {
            return null;
        }

        /**
         * Whether a process other than the target belongs. It is called after {@code now} was read, and every
         * relation to a member it relies on is checked through {@code members} afterwards; the caller then checks
         * that {@code now} was the reading of the process it holds a pidfd on.
         *
         * @param now     the candidate, read again after a pidfd was opened on it
         * @param members the members so far
         * @return whether it is a member, by the facts of {@code now}
         */
        boolean belongs(ProcessInfo now, Members members);
    }

    /** What a {@link Membership} may ask about the members found so far. */
    interface Members {
        /**
         * @param pid a process id read from a candidate ({@code ppid})
         * @return whether a member still running holds it, seen now: a member whose pidfd has not exited (or,
         *         without a pidfd, whose start time is still that pid's)
         */
        boolean running(long pid);

        /**
         * @param id      a process group or session id read from a candidate
         * @param session whether it is a session id
         * @return whether a member made that group (or session) and the id is still that one: the member is
         *         running, or no other process holds its pid now (the kernel gives a group's id to no other process
         *         while the group has members)
         */
        boolean ledByMember(long id, boolean session);
    }

    private static final class Member {
        /** The identity: with the pidfs inode of the member's pidfd where the kernel has one. */
        ProcessKey key;
        final String comm;
        final boolean childOfUs;
        /** Whether it led its process group, and its session, when it was found ({@link Members#ledByMember}). */
        boolean leadsGroup;
        boolean leadsSession;
        ExitWaiter.Watch watch;
        boolean politeSent;
        boolean killed;
        Ending ending;
        long endedAt;
        Optional<ExitStatus> exit = Optional.empty();

        Member(ProcessKey key, String comm, boolean childOfUs) {
            this.key = key;
            this.comm = comm;
            this.childOfUs = childOfUs;
        }

        boolean active() {
            return ending == null;
        }
    }

    /** The command name of a target that was gone before the stop could read it. */
    static final String UNKNOWN_COMM = "?";

    private final Identity identity;
    private final Sender sender;
    private final ProcessCalls nat;
    private final Membership membership;
    private final StopOptions options;
    private final String what;
    private final Process jdkChild;
    private final boolean usePidfd;
    private final ProcessKey target;
    /** Every member in the order found, the target first. */
    private final List<Member> members = new ArrayList<>();
    private final Map<Long, List<Member>> byPid = new HashMap<>();
    private final Map<ExitWaiter.Watch, Member> byWatch = new IdentityHashMap<>();
    private final Members view = new MembersView();
    /** Whether the target has been admitted or found gone. */
    private boolean targetSettled;

    /**
     * @param what the target in words: {@code "process"} or {@code "tree of"}, followed by the target's pid (and
     *             its command name when it was found running); for a group, the whole description
     */
    GracefulStop(Identity identity, Sender sender, ProcessCalls nat, Membership membership, StopOptions options,
                 String what, Process jdkChild, boolean usePidfd) {
        this.identity = identity;
        this.sender = sender;
        this.nat = nat;
        this.membership = membership;
        this.options = options;
        this.what = what;
        this.jdkChild = jdkChild;
        this.usePidfd = usePidfd && nat.pidfdPossible();
        this.target = membership.target();
        this.targetSettled = target == null;
    }

    StopReport run() {
        long start = System.nanoTime();
        long graceEnd = start + options.gracePeriod().toNanos();
        long killEnd = Long.MAX_VALUE;
        boolean killPhase = false;
        boolean interrupted = false;
        long scanInterval = options.pollInitial().toNanos();
        long maxScanInterval = options.pollMax().toNanos();
        long nextScan = start;
        boolean scanned = false;
        try (ExitWaiter waiter = new ExitWaiter(nat, identity, options.pollInitial().toNanos(),
                maxScanInterval)) {
            while (true) {
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                long now = System.nanoTime();
                boolean foundNew = false;
                boolean scannedNow = false;
                if (!scanned || (membership.rescans() && now - nextScan >= 0)) {
                    foundNew = admit(waiter, membership.scan(runningKeys()), killPhase, start);
                    if (!scanned) {
                        // The grace period runs from the polite signal, not from the start of a slow first scan.
                        graceEnd = System.nanoTime() + options.gracePeriod().toNanos();
                    }
                    scanned = true;
                    scannedNow = true;
                    if (foundNew) {
                        scanInterval = options.pollInitial().toNanos();
                        waiter.resetBackoff();
                    } else {
                        scanInterval = Math.min(maxScanInterval, scanInterval * 2);
                    }
                    nextScan = System.nanoTime() + scanInterval;
                }
                List<ExitWaiter.Watch> live = liveWatches();
                if (live.isEmpty()) {
                    if (!membership.rescans() || (scannedNow && !foundNew)) {
                        break;
                    }
                    nextScan = System.nanoTime(); // confirm with a fresh scan that nothing is left
                    continue;
                }
                now = System.nanoTime();
                if (!killPhase && (now - graceEnd >= 0 || interrupted)) {
                    killPhase = true;
                    killEnd = now + options.killWait().toNanos();
                    for (Member m : members) {
                        if (m.active()) {
                            kill(m, now - start);
                        }
                    }
                    continue;
                }
                if (killPhase && now - killEnd >= 0) {
                    for (Member m : members) {
                        if (m.active()) {
                            end(m, Ending.SURVIVED, now - start);
                        }
                    }
                    break;
                }
                long until = killPhase ? killEnd : graceEnd;
                if (membership.rescans() && nextScan - until < 0) {
                    until = nextScan;
                }
                for (ExitWaiter.Watch w : waiter.await(live, until - now)) {
                    Member m = byWatch.get(w);
                    if (m != null && m.active()) {
                        end(m, m.killed ? Ending.KILL : Ending.TERM, System.nanoTime() - start);
                        waiter.closeWatch(w);
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        List<StoppedProcess> out = new ArrayList<>(members.size());
        for (Member m : members) {
            out.add(new StoppedProcess(m.key, m.comm, m.ending, Duration.ofNanos(m.endedAt), m.exit));
        }
        return new StopReport(description(), options.signal(), options.gracePeriod(), out,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** @return the target in words, with its command name where it was found */
    private String description() {
        if (target == null) {
            return what;
        }
        Member t = members.isEmpty() ? null : members.get(0);
        boolean seen = t != null && t.key.pid() == target.pid() && !UNKNOWN_COMM.equals(t.comm);
        return what + " " + target.pid() + (seen ? " (" + t.comm + ")" : "");
    }

    /** @return the (pid, start time) of the members still being stopped: the scan follows them */
    private Set<ProcessKey> runningKeys() {
        Set<ProcessKey> out = new LinkedHashSet<>();
        for (Member m : members) {
            if (m.active()) {
                out.add(m.key.withoutInode());
            }
        }
        return out;
    }

    /**
     * At the first scan, once the target's candidate (if any) was checked: a target that was not admitted is listed
     * first, as gone before anything was sent (its pid is free, or names another process). If no process holds its
     * pid, the group and session with that id, if any still has members, are those it led (as
     * {@link io.github.procscope.linux.proc.TreeMembers#rootLedItsPid()} counts them).
     */
    private void settleTarget(long start) {
        if (targetSettled) {
            return;
        }
        targetSettled = true;
        Member m = new Member(target, UNKNOWN_COMM, false);
        boolean free = pidFree(target.pid());
        m.leadsGroup = free;
        m.leadsSession = free;
        add(0, m);
        end(m, Ending.GONE, System.nanoTime() - start);
    }

    /** @return whether no process holds the pid now */
    private boolean pidFree(long pid) {
        if (usePidfd) {
            int fd = nat.pidfdOpen(pid);
            if (fd >= 0) {
                nat.close(fd);
                return false;
            }
            if (fd == -Errno.ESRCH) {
                return true;
            }
        }
        return reread(pid) == null;
    }

    private void add(int index, Member m) {
        members.add(index, m);
        byPid.computeIfAbsent(m.key.pid(), k -> new ArrayList<>(1)).add(m);
    }

    /**
     * Adds the members among a scan's candidates, then signals them: the target first (or, if it is not running, it
     * is listed as gone before the others are looked at, since they may belong through it), then the others in
     * the order found. Every candidate is checked before any is signalled, so that a parent's end caused by the
     * stop does not hide its children (re-parented away, they would no longer read as its). @return whether any
     * live one was new
     */
    private boolean admit(ExitWaiter waiter, List<ProcessInfo> found, boolean killPhase, long start) {
        List<Member> admitted = new ArrayList<>();
        List<ProcessInfo> as = new ArrayList<>();
        ProcessInfo targetFound = null;
        if (!targetSettled) {
            for (ProcessInfo p : found) {
                if (p.pid() == target.pid() && p.startTimeTicks() == target.startTimeTicks()) {
                    targetFound = p;
                    Member m = usePidfd ? checkThroughPidfd(p, true, OptionalLong.empty(), waiter, start)
                            : checkByStartTime(p, true, waiter, start);
                    targetSettled = m != null;
                    admitted.add(m);
                    as.add(p);
                    break;
                }
            }
            settleTarget(start);
        }
        for (ProcessInfo p : found) {
            if (p == targetFound) {
                continue;
            }
            OptionalLong endedTwin = OptionalLong.empty();
            Member twin = twin(p);
            if (twin != null) {
                if (twin.active() || !usePidfd || twin.key.pidfsInode().isEmpty() || !nat.pidfsInodes()) {
                    continue; // being stopped already, or a process no check here could tell apart from it
                }
                endedTwin = twin.key.pidfsInode(); // an ended member: the pidfd's inode tells a newcomer apart
            }
            admitted.add(usePidfd ? checkThroughPidfd(p, false, endedTwin, waiter, start)
                    : checkByStartTime(p, false, waiter, start));
            as.add(p);
        }
        boolean anyNew = false;
        for (int i = 0; i < admitted.size(); i++) {
            anyNew |= signalNew(admitted.get(i), as.get(i), waiter, killPhase, start);
        }
        return anyNew;
    }

    /** Sends a member just found its first signal. @return whether it is a live member */
    private boolean signalNew(Member m, ProcessInfo p, ExitWaiter waiter, boolean killPhase, long start) {
        if (m == null || !m.active()) {
            return false;
        }
        long elapsed = System.nanoTime() - start;
        if (killPhase) {
            kill(m, elapsed);
            return true;
        }
        SendResult r = send(m, options.signal());
        m.politeSent = r.delivered();
        if (!afterSend(m, r, elapsed)) {
            waiter.closeWatch(m.watch);
            return true;
        }
        if (p.state() == ProcessState.STOPPED) {
            // A stopped process keeps the polite signal pending until it runs again.
            send(m, Signal.CONT);
        }
        return true;
    }

    /** @return the latest member with the candidate's pid and start time, or null */
    private Member twin(ProcessInfo p) {
        List<Member> same = byPid.get(p.pid());
        if (same == null) {
            return null;
        }
        for (int i = same.size() - 1; i >= 0; i--) {
            Member m = same.get(i);
            if (m.key.startTimeTicks() == p.startTimeTicks()) {
                return m;
            }
        }
        return null;
    }

    /**
     * Checks a candidate through a pidfd: opened on its pid, then its {@code /proc} entry read again, its identity
     * (the target's key) or membership checked on that reading, and last the pidfd seen not to have exited, so that
     * the reading was the pidfd's process's.
     *
     * @param endedTwin the pidfs inode of an ended member with the same pid and start time, if any
     * @return the member, active and watched through its pidfd, or ended ({@link Ending#GONE}); null if the
     *         candidate is not a member (or is gone, and not the target)
     */
    private Member checkThroughPidfd(ProcessInfo p, boolean isTarget, OptionalLong endedTwin, ExitWaiter waiter,
                                     long start) {
        int fd = nat.pidfdOpen(p.pid());
        if (fd == -Errno.ESRCH || Identity.namesAThread(fd)) {
            // gone (its pid free, or a thread's id now): the target is then listed as gone once the first scan is
            // through
            return null;
        }
        if (fd < 0) {
            return checkByStartTime(p, isTarget, waiter, start); // no pidfd for this one (no descriptors left)
        }
        boolean keep = false;
        try {
            ProcessInfo now;
            try {
                now = table().process(p.pid(), Set.of());
            } catch (NoSuchProcessException e) {
                return null;
            } catch (ProcessAccessDeniedException e) {
                return isTarget ? admitted(target, p.comm(), p, Ending.NOT_PERMITTED, start) : null;
            }
            if (now.startTimeTicks() != p.startTimeTicks()) {
                return null; // another process holds the pid now: the next scan sees it for what it is
            }
            OptionalLong ino = nat.pidfdInode(fd);
            if (isTarget && identity.uncheckable(fd, target)) {
                // Left alone: no check here could tell it from a newcomer of the same tick.
                return admitted(target, UNKNOWN_COMM, now, Ending.NOT_PERMITTED, start);
            }
            if (isTarget && target.pidfsInode().isPresent() && ino.isPresent()
                    && ino.getAsLong() != target.pidfsInode().getAsLong()) {
                return null; // a newcomer within the same tick: the target is gone
            }
            if (endedTwin.isPresent() && (ino.isEmpty() || ino.getAsLong() == endedTwin.getAsLong())) {
                return null; // the member that ended, or a process that cannot be told apart from it
            }
            if (!isTarget && !membership.belongs(now, view)) {
                return null;
            }
            ProcessKey key = isTarget ? withInode(target, ino)
                    : ino.isPresent() ? new ProcessKey(p.pid(), now.startTimeTicks(), ino) : now.key();
            if (nat.pidfdExited(fd)) {
                // Ended (a zombie): listed as gone if the reading was its own; else not the process checked.
                if (now.state() == ProcessState.ZOMBIE || now.state() == ProcessState.DEAD) {
                    return admitted(key, now.comm(), now, Ending.GONE, start);
                }
                return null;
            }
            Member m = admitted(key, now.comm(), now, null, start);
            m.watch = waiter.adopt(key, fd);
            byWatch.put(m.watch, m);
            keep = true;
            return m;
        } finally {
            if (!keep) {
                nat.close(fd);
            }
        }
    }

    /**
     * Without a pidfd (a kernel before 5.3, a seccomp filter, no descriptors left): the candidate read again and
     * checked by its start time, exact to one clock tick, as the JDK's {@link ProcessHandle#destroy()} checks.
     */
    private Member checkByStartTime(ProcessInfo p, boolean isTarget, ExitWaiter waiter, long start) {
        ProcessInfo now;
        try {
            now = table().process(p.pid(), Set.of(Facet.STATUS));
        } catch (NoSuchProcessException e) {
            return null;
        } catch (ProcessAccessDeniedException e) {
            return isTarget ? admitted(target, p.comm(), p, Ending.NOT_PERMITTED, start) : null;
        }
        if (now.startTimeTicks() != p.startTimeTicks() || Identity.isThread(now)
                || (!isTarget && !membership.belongs(now, view))) {
            return null;
        }
        ProcessKey key = isTarget ? target : now.key();
        if (now.state() == ProcessState.ZOMBIE || now.state() == ProcessState.DEAD) {
            return admitted(key, now.comm(), now, Ending.GONE, start);
        }
        ExitWaiter.Watch w = waiter.watchWithoutPidfd(key);
        if (w == null) {
            return null;
        }
        Member m = admitted(key, now.comm(), now, null, start);
        m.watch = w;
        byWatch.put(w, m);
        return m;
    }

    /** Records a member found by a check; {@code ending} null for one to be stopped. */
    private Member admitted(ProcessKey key, String comm, ProcessInfo now, Ending ending, long start) {
        boolean child = now.ppid() == nat.selfPid() || (jdkChild != null && jdkChild.pid() == now.pid());
        Member m = new Member(key, comm, child);
        m.leadsGroup = now.pgid() == now.pid();
        m.leadsSession = now.sid() == now.pid();
        add(members.size(), m);
        if (ending != null) {
            end(m, ending, System.nanoTime() - start);
        }
        return m;
    }

    /** @return the key completed with the pidfd's inode, where it had none */
    private static ProcessKey withInode(ProcessKey key, OptionalLong ino) {
        return key.pidfsInode().isPresent() || ino.isEmpty() ? key
                : new ProcessKey(key.pid(), key.startTimeTicks(), ino);
    }

    private io.github.procscope.api.process.ProcessTable table() {
        return identity.table();
    }

    /** @return the process holding the pid now, or null if there is none (or it cannot be read) */
    private ProcessInfo reread(long pid) {
        try {
            return table().process(pid, Set.of());
        } catch (NoSuchProcessException | ProcessAccessDeniedException e) {
            return null;
        }
    }

    /** The members as a {@link Membership} sees them. */
    private final class MembersView implements Members {
        @Override
        public boolean running(long pid) {
            List<Member> same = byPid.get(pid);
            if (same == null) {
                return false;
            }
            for (Member m : same) {
                if (m.active() && m.watch != null && stillRunning(m)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean ledByMember(long id, boolean session) {
            List<Member> same = byPid.get(id);
            if (same == null) {
                return false;
            }
            for (int i = same.size() - 1; i >= 0; i--) {
                Member m = same.get(i);
                if (session ? m.leadsSession : m.leadsGroup) {
                    if (m.active() && m.watch != null && stillRunning(m)) {
                        return true;
                    }
                    return heldByNoOtherProcess(m);
                }
            }
            return false;
        }

        private boolean stillRunning(Member m) {
            if (m.watch.fd >= 0) {
                return !nat.pidfdExited(m.watch.fd);
            }
            try {
                return identity.isAlive(m.key);
            } catch (ProcessAccessDeniedException e) {
                return true;
            }
        }

        /** @return whether the member's pid is free, or still the member's own (a zombie) */
        private boolean heldByNoOtherProcess(Member m) {
            long pid = m.key.pid();
            if (usePidfd) {
                int fd = nat.pidfdOpen(pid);
                if (fd == -Errno.ESRCH) {
                    return true;
                }
                if (fd >= 0) {
                    try {
                        OptionalLong ino = nat.pidfdInode(fd);
                        if (ino.isPresent() && m.key.pidfsInode().isPresent()) {
                            return ino.getAsLong() == m.key.pidfsInode().getAsLong();
                        }
                    } finally {
                        nat.close(fd);
                    }
                }
            }
            ProcessInfo holder = reread(pid);
            return holder == null || holder.startTimeTicks() == m.key.startTimeTicks();
        }
    }

    private void kill(Member m, long elapsed) {
        m.killed = true;
        SendResult r = send(m, Signal.KILL);
        afterSend(m, r, elapsed);
    }

    /**
     * Sends through the member's own pidfd, opened and checked when it was found: the signal reaches that
     * process or none. Without a pidfd, the identity is checked again before {@code kill(2)}.
     */
    private SendResult send(Member m, Signal signal) {
        if (m.watch != null && m.watch.fd >= 0) {
            return sender.sendThrough(m.watch.fd, m.key, signal);
        }
        return sender.sendChecked(m.key, signal);
    }

    /** @return whether the member is still to be waited for */
    private boolean afterSend(Member m, SendResult r, long elapsed) {
        switch (r.outcome()) {
            case DELIVERED:
                return true;
            case NOT_PERMITTED:
                end(m, Ending.NOT_PERMITTED, elapsed);
                return false;
            case NO_SUCH_PROCESS:
            case PID_REUSED:
            default:
                // Gone before this signal: if the polite one had reached it, that is what ended it.
                end(m, m.politeSent ? Ending.TERM : Ending.GONE, elapsed);
                return false;
        }
    }

    private void end(Member m, Ending ending, long elapsedNanos) {
        m.ending = ending;
        m.endedAt = elapsedNanos;
        if (ending == Ending.SURVIVED || ending == Ending.NOT_PERMITTED) {
            return;
        }
        if (m.childOfUs) {
            m.exit = nat.peekChildExit(m.key.pid());
            if (jdkChild != null && jdkChild.pid() == m.key.pid()) {
                // Let the JDK reap it, so that the caller's Process is done when the stop returns.
                Optional<ExitStatus> jdk = jdkExitStatus();
                if (m.exit.isEmpty()) {
                    m.exit = jdk;
                }
            }
        }
    }

    private Optional<ExitStatus> jdkExitStatus() {
        try {
            if (jdkChild.waitFor(5, TimeUnit.SECONDS)) {
                return Optional.of(ExitStatus.fromShellStatus(jdkChild.exitValue() & 0xff));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    private List<ExitWaiter.Watch> liveWatches() {
        List<ExitWaiter.Watch> out = new ArrayList<>();
        for (Member m : members) {
            if (m.active()) {
                out.add(m.watch);
            }
        }
        return out;
    }
}
