package io.github.procscope.api.core;

import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTable;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The identity of a process: its pid together with its start time, and, where the kernel gives one, the
 * inode number of its pidfd. A pid alone is not an identity, since the kernel reuses pids. Every action
 * procscope takes on a process checks the identity first and refuses to act when it differs (the pid was
 * recycled).
 *
 * <p><b>How exact it is.</b>
 * <ul>
 *   <li>With a {@link #pidfsInode() pidfs inode} (Linux 6.9 and later, where pidfds live on the pidfs file
 *       system): exact. The kernel gives every process its own inode number, never reused during one
 *       boot, and an action compares it, not the start time.</li>
 *   <li>Without one: the start time has the resolution of a clock tick (10 ms at the usual
 *       {@code USER_HZ} of 100). Two processes that got the same pid within one tick of each other (a
 *       process that exited and was reaped, and a newcomer that took its pid at once, as happens when the
 *       pid space is small or cycled deliberately, e.g. in a PID namespace) have equal keys, and
 *       this key cannot tell them apart.</li>
 * </ul>
 * A key read from a listing ({@link ProcessInfo#key()}) has no inode: reading one costs a pidfd per process.
 * {@link ProcessTable#key(long)} (on the live system), {@code Signals.key(pid)} and
 * {@code Signals.key(ProcessHandle)} read the exact form.
 *
 * <p>Two keys are equal when all three components are: a key with an inode and the same process's key
 * without one are not equal; compare {@link #pid()} and {@link #startTimeTicks()} to match them.
 *
 * @param pid            the process id, between 1 and {@link Pids#PID_MAX_LIMIT}
 * @param startTimeTicks when the process started, in clock ticks after boot ({@code /proc/PID/stat}
 *                       field 22, {@code starttime}); compare only keys read on the same machine
 * @param pidfsInode     the inode number of a pidfd of the process on pidfs ({@code stx_ino} of
 *                       {@code statx(2)} on a pidfd), unique to it for the whole boot; empty where the
 *                       kernel has no pidfs (before 6.9) or the key was read without a pidfd
 */
public record ProcessKey(long pid, long startTimeTicks, OptionalLong pidfsInode) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if the pid is out of range, the start time negative or the inode
     *                                  not positive
     */
    public ProcessKey {
        Pids.requireValid(pid);
        if (startTimeTicks < 0) {
            throw new IllegalArgumentException("start time must not be negative: " + startTimeTicks);
        }
        Objects.requireNonNull(pidfsInode, "pidfsInode");
        if (pidfsInode.isPresent() && pidfsInode.getAsLong() <= 0) {
            throw new IllegalArgumentException("a pidfs inode number is positive: " + pidfsInode.getAsLong());
        }
    }

    /**
     * A key without a pidfs inode: exact only up to the start time's clock tick.
     *
     * @param pid            the process id
     * @param startTimeTicks when it started, in clock ticks after boot
     * @throws IllegalArgumentException if the pid is out of range or the start time negative
     */
    public ProcessKey(long pid, long startTimeTicks) {
        this(pid, startTimeTicks, OptionalLong.empty());
    }

    /** {@return this key without its pidfs inode: the (pid, start time) form a listing gives} */
    public ProcessKey withoutInode() {
        return pidfsInode.isEmpty() ? this : new ProcessKey(pid, startTimeTicks);
    }

    /**
     * {@return whether both keys can name one process: the same pid and start time, and the same pidfs inode
     * where both carry one (so a listing's key, without an inode, matches the exact key of its process)}
     *
     * @param other another key
     */
    public boolean matches(ProcessKey other) {
        Objects.requireNonNull(other, "other");
        return pid == other.pid && startTimeTicks == other.startTimeTicks
                && (pidfsInode.isEmpty() || other.pidfsInode.isEmpty()
                || pidfsInode.getAsLong() == other.pidfsInode.getAsLong());
    }

    /**
     * Checks that a key read now names the same process as this one: the check behind every read that
     * takes a {@code ProcessKey}. Where both keys carry a pidfs inode, the inodes decide; else the start times.
     *
     * @param current the key of the process that holds this pid now
     * @throws NoSuchProcessException   if it started at another time: the process this key names is gone
     *                                  and its pid was reused
     * @throws IllegalArgumentException if {@code current} is for another pid
     */
    public void requireSameAs(ProcessKey current) {
        if (current.pid != pid) {
            throw new IllegalArgumentException("keys of different pids compared: " + this + " and " + current);
        }
        if (pidfsInode.isPresent() && current.pidfsInode.isPresent()
                && pidfsInode.getAsLong() != current.pidfsInode.getAsLong()) {
            throw new NoSuchProcessException(pid, "no such process: pid " + pid + " now belongs to another process"
                    + " (pidfs inode " + current.pidfsInode.getAsLong() + ", not " + pidfsInode.getAsLong()
                    + "): the pid was reused");
        }
        if (current.startTimeTicks != startTimeTicks) {
            throw new NoSuchProcessException(pid, "no such process: pid " + pid
                    + " now belongs to a process started at tick " + current.startTimeTicks
                    + ", not the one started at tick " + startTimeTicks + " (the pid was reused)");
        }
    }

    /**
     * Describes the key for a person, such as {@code pid 13405 (started at tick 4586012 after boot)}. The format
     * is for reading, not for parsing: a program uses the accessors.
     *
     * @return the pid, the start time in clock ticks after boot, and the pidfs inode when there is one
     */
    @Override
    public String toString() {
        return "pid " + pid + " (started at tick " + startTimeTicks + " after boot"
                + (pidfsInode.isPresent() ? ", pidfs inode " + pidfsInode.getAsLong() : "") + ")";
    }
}
