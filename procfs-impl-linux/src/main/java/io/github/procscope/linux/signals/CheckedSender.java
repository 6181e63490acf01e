package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.SendResult.Outcome;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.sys.Errno;
import io.github.procscope.linux.sys.ProcessCalls;
import java.util.Objects;
import java.util.Set;

/**
 * The one way this package signals a process: through a pidfd whose process was checked against the key
 * ({@link Identity}), or, where no pidfd can be had, by {@code kill(2)} right after the start time was checked. It
 * applies no refusal ({@link RefusalPolicy} does, before). Thread-safe.
 */
final class CheckedSender implements Sender {
    private final Identity identity;
    private final ProcessCalls nat;

    CheckedSender(Identity identity, ProcessCalls nat) {
        this.identity = identity;
        this.nat = nat;
    }

    /**
     * Sends after the refusals: opens a pidfd, checks the identity through it and signals through it; where
     * no pidfd can be had, checks the start time and calls {@code kill(2)}.
     */
    @Override
    public SendResult sendChecked(ProcessKey target, Signal signal) {
        int fd = identity.openPidfd(target.pid());
        if (fd == -Errno.ESRCH) {
            return new SendResult(target.pid(), false, signal, Outcome.NO_SUCH_PROCESS, "no such process: pid "
                    + target.pid() + " has exited; nothing was sent");
        }
        if (Identity.namesAThread(fd)) {
            return new SendResult(target.pid(), false, signal, Outcome.PID_REUSED, "pid " + target.pid()
                    + " is now the id of a thread of another process: the process meant has exited and its pid was"
                    + " reused; nothing was sent");
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

    /**
     * Checks that a pidfd names the process of the key and sends the signal through it.
     *
     * @param pidfd a pidfd opened on {@code target.pid()}
     */
    @Override
    public SendResult sendThrough(int pidfd, ProcessKey target, Signal signal) {
        long pid = target.pid();
        ProcessInfo now;
        try {
            now = identity.table().process(pid, Set.of());
        } catch (NoSuchProcessException e) {
            return new SendResult(pid, false, signal, Outcome.NO_SUCH_PROCESS, "no such process: pid " + pid
                    + " has exited; nothing was sent");
        } catch (ProcessAccessDeniedException e) {
            return new SendResult(pid, false, signal, Outcome.NOT_PERMITTED, "cannot verify pid " + pid
                    + ": its /proc entry is hidden from this user (hidepid), so nothing was sent");
        }
        if (identity.uncheckable(pidfd, target)) {
            return new SendResult(pid, false, signal, Outcome.NOT_PERMITTED, "cannot verify pid " + pid
                    + ": the pidfs inode of its pidfd cannot be read, so it cannot be told from a process that took"
                    + " its pid; nothing was sent");
        }
        String mismatch = identity.mismatch(pidfd, target, now);
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

    /** Without a pidfd: re-reads the start time, and that the pid is a process's, then {@code kill(2)}. */
    private SendResult sendByKill(ProcessKey target, Signal signal) {
        long pid = target.pid();
        ProcessInfo now;
        try {
            now = identity.table().process(pid, Set.of(Facet.STATUS));
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
        if (Identity.isThread(now)) {
            return new SendResult(pid, false, signal, Outcome.PID_REUSED, "pid " + pid + " is now the id of a thread"
                    + " of process " + now.status().orElseThrow().tgid() + " (" + now.comm()
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

    private SendResult result(long target, boolean group, Signal signal, int errno, String comm) {
        String what = group ? "process group " + target : "pid " + target + (comm == null ? "" : " (" + comm + ")");
        if (errno == 0) {
            return new SendResult(target, group, signal, Outcome.DELIVERED, signal + " delivered to " + what);
        }
        if (errno == Errno.ESRCH) {
            return new SendResult(target, group, signal, Outcome.NO_SUCH_PROCESS, "no such "
                    + (group ? "process group: " + target + " has no member" : "process: " + what + " has exited")
                    + "; nothing was sent");
        }
        if (errno == Errno.EPERM) {
            return new SendResult(target, group, signal, Outcome.NOT_PERMITTED, "not permitted to send " + signal
                    + " to " + what + ": it belongs to another user; run as that user or as root (CAP_KILL)");
        }
        throw new IllegalStateException("kill(" + (group ? -target : target) + ", " + signal.number()
                + ") failed with errno " + errno);
    }

    /** Sends to a process group, once {@link RefusalPolicy#requireGroup} let it: {@code kill(-pgid)}. */
    SendResult sendToGroup(long pgid, Signal signal) {
        Objects.requireNonNull(signal, "signal");
        int errno = nat.kill(-pgid, signal);
        return result(pgid, true, signal, errno, null);
    }
}
