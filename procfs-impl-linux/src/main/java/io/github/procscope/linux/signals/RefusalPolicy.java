package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.linux.sys.ProcessCalls;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What is never signalled, and why: PID 1 of this PID namespace (unless allowed), kernel threads, this JVM, its
 * ancestors and their process groups (unless allowed), group ids that {@code kill(2)} reads as something else (0,
 * negative, 1). A refusal is an {@link IllegalArgumentException} that says why and that nothing was sent. Thread-safe.
 */
final class RefusalPolicy {
    private final ProcessTable table;
    private final ProcessCalls nat;
    private final Identity identity;
    private final boolean allowSelf;
    private final boolean allowInit;

    RefusalPolicy(ProcessTable table, ProcessCalls nat, Identity identity, boolean allowSelf, boolean allowInit) {
        this.table = table;
        this.nat = nat;
        this.identity = identity;
        this.allowSelf = allowSelf;
        this.allowInit = allowInit;
    }

    /**
     * Refuses what must not be signalled: this JVM, its ancestors, PID 1 of this PID namespace, kernel
     * threads. A process that is gone passes (the send then says it is gone).
     */
    void requireSignallable(ProcessKey target, String action) {
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
        if (p.startTimeTicks() != target.startTimeTicks() || identity.heldByAnother(target)) {
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
    List<ProcessInfo> ancestors() {
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

    void requireGroup(long pgid) {
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
}
