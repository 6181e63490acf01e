package io.github.procscope.api.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTable;

/**
 * Sends signals safely and stops processes gracefully: the {@code kill}, {@code kill -- -PGID} and
 * "TERM, wait, KILL" of a person, with identities checked. Implementations are thread-safe.
 *
 * <pre>{@code
 * Signals signals = Procscope.system().signals();
 * ProcessKey worker = Procscope.system().processes().key(4188);         // pid + start time (+ pidfs inode)
 * SendResult r = signals.send(worker, Signal.TERM);           // refused if pid 4188 was recycled
 * StopReport report = signals.stopTree(worker, StopOptions.defaults());
 * report.processes().forEach(p -> System.out.println(p));     // pid, comm, TERM/KILL/GONE, after ms
 * }</pre>
 *
 * <p><b>Identity.</b> Where the kernel has pidfds (Linux 5.3 and later), every action opens a pidfd on the
 * target, checks the identity through it, and signals through it ({@code pidfd_send_signal(2)}): the process
 * checked is the process signalled, even if it exits and its pid is taken in between. Where pidfds live on
 * pidfs (Linux 6.9 and later), a key from {@link #key(long)}, {@link #key(ProcessHandle)} or
 * {@code ProcessTable.key(pid)} carries the pidfd's inode number, and the check compares it: exact. Elsewhere,
 * and for a key from a listing ({@code ProcessInfo.key()}), the check compares start times, which cannot tell
 * apart two processes that took the same pid within one clock tick (see {@link ProcessKey}).
 *
 * <p><b>Stops</b> hold one identity from the key to every signal: the process named, and each process a scan
 * finds in its group or tree, becomes a member only through a pidfd, on a reading of its {@code /proc} entry taken
 * after that pidfd was opened (and seen to be its process's), and it gets every signal through that pidfd. A tree's
 * member is one whose parent, as that reading names it, is a member still running (checked through the parent's
 * pidfd), or that is in a group or session a member made; a process that took a member's pid is none of these. The
 * report lists the process named first, as {@link StopReport.Ending#GONE} when it was not running when the stop
 * started (gone, or its pid taken by another process), and never lists as gone a process that runs.
 *
 * <p><b>Refusals</b> (an {@link IllegalArgumentException} whose message says why and that nothing was sent):
 * <ul>
 *   <li>a pid or group id at or below 0 or above {@link io.github.procscope.api.core.Pids#PID_MAX_LIMIT};</li>
 *   <li>PID 1 of this JVM's PID namespace (its init: in a container, ending it ends the container), unless
 *       this instance came from {@link #allowingInit()};</li>
 *   <li>kernel threads ({@code PF_KTHREAD}, children of kthreadd, or tasks with no address space: a {@code vsize}
 *       of 0, no {@code statm} pages and an empty {@code cmdline}, zombies aside), always;</li>
 *   <li>this JVM's own pid, its ancestors (the shell or launcher that started it) and their process
 *       groups, and a tree that contains this JVM, unless this instance came from {@link #allowingSelf()}.</li>
 * </ul>
 */
public interface Signals {

    /**
     * {@return a sender like this one that may also signal this JVM, its ancestors, their process groups and
     * trees that contain it (for a program that stops itself, or tests)}
     */
    Signals allowingSelf();

    /**
     * {@return a sender like this one that may also signal PID 1 of this JVM's PID namespace (a supervisor
     * that means to end a container's init). Kernel threads stay refused}
     */
    Signals allowingInit();

    /**
     * The identity of a live process, as exact as this kernel allows: with its pidfs inode where pidfds
     * live on pidfs (Linux 6.9 and later), else pid and start time.
     *
     * @param pid a process id
     * @return its identity
     * @throws NoSuchProcessException   if it does not exist
     * @throws IllegalArgumentException if the pid is out of range
     */
    ProcessKey key(long pid);

    /**
     * The identity of a process this JVM holds a handle to. For a process this JVM started (a
     * {@link Process}'s {@link Process#toHandle() handle}) that has not been reaped, it is exact: its pid
     * cannot be reused before the JDK reaps it, and the identity is read while it is known to be alive. For
     * another process, the JDK's own start-time check of the handle guards the read.
     *
     * @param handle the process
     * @return its identity
     * @throws NoSuchProcessException if it has exited (or its pid names another process now)
     */
    ProcessKey key(ProcessHandle handle);

    /**
     * Sends a signal to one process. Its identity is checked immediately before the signal (through a
     * pidfd where the kernel has them, see above): if it differs from the key's, the pid was recycled and
     * nothing is sent.
     *
     * @param target the process
     * @param signal the signal
     * @return the outcome: {@link SendResult.Outcome#DELIVERED}, or why nothing was sent
     * @throws IllegalArgumentException if the target is refused (see above): PID 1, a kernel thread, this
     *                                  JVM or one of its ancestors
     */
    SendResult send(ProcessKey target, Signal signal);

    /**
     * Sends a signal to every process of a process group at once ({@code kill(-pgid, sig)}): a shell
     * job, or a launcher started with {@code setsid}. A group id cannot be recycled while any member
     * lives, so no start time is needed.
     *
     * @param pgid   the process group id (the pid of its leader, which may have exited)
     * @param signal the signal
     * @return the outcome; {@link SendResult.Outcome#NO_SUCH_PROCESS} when the group has no member
     * @throws IllegalArgumentException if the id is at or below 0 or too large, or this JVM or one of its
     *                                  ancestors is in that group and self-signalling was not allowed
     */
    SendResult sendToGroup(long pgid, Signal signal);

    /**
     * {@return whether that process still runs: its pid exists with the same start time and it is not a
     * zombie (exited, waiting to be reaped)}
     *
     * @param key a process identity
     * @throws ProcessAccessDeniedException if the kernel hides the pid's {@code stat} from this user
     *                                      ({@code hidepid}), so that it cannot be told
     */
    boolean isAlive(ProcessKey key);

    /**
     * {@return how the process and each of its threads will react to signals}
     *
     * @param key a process identity
     * @throws NoSuchProcessException       if the process is gone or its pid now names another process
     * @throws ProcessAccessDeniedException if the kernel will not show its status
     */
    Dispositions dispositions(ProcessKey key);

    /**
     * {@return how the process and each of its threads will react to signals}
     *
     * @param pid a process id
     * @throws NoSuchProcessException       if the process is gone
     * @throws ProcessAccessDeniedException if the kernel will not show its status
     * @throws IllegalArgumentException     if the pid is out of range
     */
    Dispositions dispositions(long pid);

    /**
     * Stops one process gracefully: the polite signal, the grace period, KILL, and a wait until it is
     * gone. Its children are not signalled (see {@link #stopTree(ProcessKey, StopOptions)}).
     *
     * @param target  the process
     * @param options signal, grace period and backoff
     * @return the report, with one entry: {@link StopReport.Ending#GONE} if the process was not running when the
     *         stop started (its pid free, or taken by another process, which gets nothing)
     * @throws IllegalArgumentException if the target is refused (see above); nothing was sent
     */
    StopReport stop(ProcessKey target, StopOptions options);

    /**
     * Stops a child this JVM started; the report carries its exit status ({@link Process#exitValue()},
     * read by the shell convention, or exact when the implementation could read the wait status first).
     * When the report says the child is gone, the {@link Process} has exited too: its
     * {@link Process#exitValue()} is there to read. A child that had already exited yields a report with
     * no entries.
     *
     * @param child   the child
     * @param options signal, grace period and backoff
     * @return the report, with one entry
     */
    StopReport stop(Process child, StopOptions options);

    /**
     * Stops every member of a process group; the group is re-scanned until no member is left, so
     * processes the members fork during the shutdown are stopped too.
     *
     * @param pgid    the process group id
     * @param options signal, grace period and backoff
     * @return the report, one entry per member found
     * @throws IllegalArgumentException if the id is out of range, or this JVM is in that group and
     *                                  self-signalling was not allowed
     */
    StopReport stopGroup(long pgid, StopOptions options);

    /**
     * Stops a process and all its descendants. The tree is re-scanned until it is empty, so that
     * children forked during the shutdown are caught, and so are orphans that were re-parented away
     * from it (to PID 1 or a subreaper) but stay in a process group or session that the root or another
     * member leads, and started after the root. A root that has already exited still names its group
     * and session, so its leftovers can be stopped. Every member gets the polite signal; the survivors
     * of the grace period get KILL. A process that left both the tree and its group and session (its
     * own {@code setsid}) cannot be told apart from any other and is not stopped.
     *
     * @param root    the root of the tree
     * @param options signal, grace period and backoff
     * @return the report, the root first (as {@link StopReport.Ending#GONE} if it was not running when the stop
     *         started), then one entry per other member found
     * @throws IllegalArgumentException if the root is refused (see above), or the tree contains this JVM and
     *                                  self-signalling was not allowed; nothing was sent
     */
    StopReport stopTree(ProcessKey root, StopOptions options);

    /**
     * Stops a child this JVM started and all its descendants, as {@link #stopTree(ProcessKey, StopOptions)};
     * the child's entry carries its exit status.
     *
     * @param child   the child at the root of the tree
     * @param options signal, grace period and backoff
     * @return the report, one entry per process found
     */
    StopReport stopTree(Process child, StopOptions options);
}
