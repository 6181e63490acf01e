package io.github.procscope.linux.signals;

import io.github.procscope.linux.ProcessCalls;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessState;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.api.signals.StopReport.Ending;
import io.github.procscope.api.signals.StopReport.StoppedProcess;
import io.github.procscope.linux.internal.NativeAccess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One graceful stop: the polite signal to every member, a wait up to the grace period, KILL to the
 * survivors, a wait until they are gone. Members come from a {@link Membership}; one that re-scans
 * (a group, a tree) is asked again on the backoff until a scan finds no live member, so processes
 * forked during the shutdown get the same treatment (the polite signal during the grace period, KILL
 * after it). Not thread-safe: one per call.
 */
final class GracefulStop {

    /** Who belongs to the target. */
    interface Membership {
        /**
         * @param known the identities already being stopped (or ended)
         * @return the members now, those already known included; zombies may be among them
         */
        List<ProcessInfo> scan(Set<ProcessKey> known);

        /** @return whether members can appear after the first scan (a group or a tree) */
        boolean rescans();

        /**
         * @param p a member found by {@link #scan}
         * @return the identity to check it by: the caller's own key (with its pidfs inode, when it has one)
         *         for the process the caller named, else the (pid, start time) of the scan
         */
        default ProcessKey exactKey(ProcessInfo p) {
            return p.key();
        }
    }

    private static final class Member {
        /** The identity, completed with the pidfs inode of the member's pidfd once that was checked. */
        ProcessKey key;
        final String comm;
        final boolean childOfUs;
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

    private final LinuxSignals signals;
    private final ProcessCalls nat;
    private final Membership membership;
    private final StopOptions options;
    private final String description;
    private final Process jdkChild;
    private final boolean usePidfd;
    private final Map<ProcessKey, Member> members = new LinkedHashMap<>();

    GracefulStop(LinuxSignals signals, ProcessCalls nat, Membership membership, StopOptions options,
                 String description, Process jdkChild, boolean usePidfd) {
        this.signals = signals;
        this.nat = nat;
        this.membership = membership;
        this.options = options;
        this.description = description;
        this.jdkChild = jdkChild;
        this.usePidfd = usePidfd;
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
        try (ExitWaiter waiter = new ExitWaiter(nat, signals, usePidfd, options.pollInitial().toNanos(),
                maxScanInterval)) {
            while (true) {
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                long now = System.nanoTime();
                boolean foundNew = false;
                boolean scannedNow = false;
                if (!scanned || (membership.rescans() && now - nextScan >= 0)) {
                    foundNew = admit(waiter, membership.scan(members.keySet()), killPhase, start);
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
                    for (Member m : members.values()) {
                        if (m.active()) {
                            kill(m, now - start);
                        }
                    }
                    continue;
                }
                if (killPhase && now - killEnd >= 0) {
                    for (Member m : members.values()) {
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
                    Member m = members.get(w.key.withoutInode());
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
        for (Member m : members.values()) {
            out.add(new StoppedProcess(m.key, m.comm, m.ending, Duration.ofNanos(m.endedAt), m.exit));
        }
        return new StopReport(description, options.signal(), options.gracePeriod(), out,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * A member found by scanning is known by (pid, start time) only. Once its watch's pidfd has been checked
     * against that (the pidfd names the process the scan saw, still running), the pidfd's pidfs inode completes
     * the key, so that every later check of this member, and the report, use the identity the rest of the
     * library uses: a process that takes the pid afterwards, even within the same clock tick, is not this one.
     */
    private ProcessKey withInode(ProcessKey key, ExitWaiter.Watch watch) {
        if (key.pidfsInode().isPresent() || watch.fd < 0) {
            return key;
        }
        java.util.OptionalLong ino = nat.pidfdInode(watch.fd);
        return ino.isPresent() ? new ProcessKey(key.pid(), key.startTimeTicks(), ino) : key;
    }

    /** Adds the new members of a scan and signals them. @return whether any live one was new */
    private boolean admit(ExitWaiter waiter, List<ProcessInfo> found, boolean killPhase, long start) {
        boolean anyNew = false;
        for (ProcessInfo p : found) {
            ProcessKey key = membership.exactKey(p);
            if (members.containsKey(key.withoutInode())) {
                continue;
            }
            boolean child = p.ppid() == nat.selfPid() || (jdkChild != null && jdkChild.pid() == p.pid());
            Member m = new Member(key, p.comm(), child);
            members.put(key.withoutInode(), m);
            long elapsed = System.nanoTime() - start;
            if (p.state() == ProcessState.ZOMBIE || p.state() == ProcessState.DEAD) {
                end(m, Ending.GONE, elapsed);
                continue;
            }
            m.watch = waiter.watch(key);
            if (m.watch == null) {
                end(m, Ending.GONE, elapsed);
                continue;
            }
            m.key = withInode(key, m.watch);
            anyNew = true;
            if (killPhase) {
                kill(m, elapsed);
            } else {
                SendResult r = send(m, options.signal());
                m.politeSent = r.delivered();
                if (!afterSend(m, r, elapsed)) {
                    waiter.closeWatch(m.watch);
                    continue;
                }
                if (p.state() == ProcessState.STOPPED) {
                    // A stopped process keeps the polite signal pending until it runs again.
                    send(m, Signal.CONT);
                }
            }
        }
        return anyNew;
    }

    private void kill(Member m, long elapsed) {
        m.killed = true;
        SendResult r = send(m, Signal.KILL);
        afterSend(m, r, elapsed);
    }

    /**
     * Sends through the member's own pidfd, opened when it was found and checked then: the signal reaches
     * that process or none. Without a pidfd, the identity is checked again before {@code kill(2)}.
     */
    private SendResult send(Member m, Signal signal) {
        if (m.watch != null && m.watch.fd >= 0) {
            return signals.sendThrough(m.watch.fd, m.key, signal);
        }
        return signals.sendChecked(m.key, signal);
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
        for (Member m : members.values()) {
            if (m.active()) {
                out.add(m.watch);
            }
        }
        return out;
    }
}
