package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.sys.Errno;
import io.github.procscope.linux.sys.ProcessCalls;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The identity of the process a {@link ProcessKey} names, checked through a pidfd: the exact key of a pid (with the
 * pidfs inode of a pidfd where the kernel has pidfs, Linux 6.9 and later), whether a pidfd names the key's process,
 * whether that process is alive. Without pidfds (before Linux 5.3, a seccomp filter, or {@link
 * LinuxSignals#withoutPidfd()}) the start time read from {@code /proc/PID/stat} is checked instead, exact to one
 * clock tick. It sends nothing: {@link CheckedSender} does, and {@link RefusalPolicy} says what must never be
 * signalled. Thread-safe; it holds no state but the table and the native calls.
 */
final class Identity {

    private final ProcessTable table;
    private final ProcessCalls nat;
    private final boolean usePidfd;

    Identity(ProcessTable table, ProcessCalls nat, boolean usePidfd) {
        this.table = table;
        this.nat = nat;
        this.usePidfd = usePidfd;
    }

    /** @return the process table identities are read from */
    ProcessTable table() {
        return table;
    }

    ProcessKey key(long pid) {
        Pids.requireValid(pid);
        int fd = openPidfd(pid);
        if (fd == -Errno.ESRCH) {
            throw new NoSuchProcessException(pid, "no such process: " + pid);
        }
        if (namesAThread(fd)) {
            throw new NoSuchProcessException(pid, "no such process: " + pid + " is the id of a thread");
        }
        if (fd < 0) {
            ProcessKey plain = plainKey(pid);
            if (isThread(table.process(pid, Set.of(Facet.STATUS)))) {
                throw new NoSuchProcessException(pid, "no such process: " + pid + " is the id of a thread");
            }
            return plain;
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
    ProcessKey plainKey(long pid) {
        return table instanceof LinuxProcfs procfs ? procfs.plainKey(pid) : table.key(pid).withoutInode();
    }

    ProcessKey key(ProcessHandle handle) {
        Objects.requireNonNull(handle, "handle");
        long pid = handle.pid();
        int fd = openPidfd(pid);
        if (fd == -Errno.ESRCH || !handle.isAlive()) {
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

    /**
     * @param openResult what {@link #openPidfd} returned
     * @return whether {@code pidfd_open} refused the pid as the id of a thread, not of a process (EINVAL, or ENOENT
     *         on newer kernels): the process a key of that pid meant is gone. The thread's {@code /proc/TID} reads like
     *         a process's, its start time may be the key's (taken within the same clock tick), and {@code kill(TID)}
     *         would signal the thread's whole process, so this is never a reason to fall back to the start time
     */
    static boolean namesAThread(int openResult) {
        return openResult == -Errno.ENOENT || openResult == -Errno.EINVAL;
    }

    /**
     * @param now a reading of a pid's {@code /proc} entry with {@link Facet#STATUS}
     * @return whether it is a thread's: its thread group (the {@code Tgid} of {@code status}) is another pid. The
     *         start-time check, without a pidfd, must not take it for the process of a key
     */
    static boolean isThread(ProcessInfo now) {
        return now.status().map(s -> s.tgid() != now.pid()).orElse(false);
    }

    /**
     * @return a pidfd on {@code pid}, or minus the errno ({@code -ESRCH}: gone; {@link #namesAThread}: a thread's id;
     *         other: no pidfd here)
     */
    int openPidfd(long pid) {
        if (!usePidfd || !nat.pidfdPossible()) {
            return -38; // ENOSYS
        }
        return nat.pidfdOpen(pid);
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
    String mismatch(int pidfd, ProcessKey key, ProcessInfo now) {
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
        return mismatch(pidfd, key, now) == null && !nat.pidfdExited(pidfd)
                && now.state() != ProcessState.ZOMBIE && now.state() != ProcessState.DEAD;
    }

    boolean isAlive(ProcessKey key) {
        Objects.requireNonNull(key, "key");
        if (key.pidfsInode().isPresent()) {
            int fd = openPidfd(key.pid());
            if (fd == -Errno.ESRCH || namesAThread(fd)) {
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
            ProcessInfo p = table.process(key.pid(), Set.of(Facet.STATUS));
            return p.startTimeTicks() == key.startTimeTicks() && !isThread(p) && p.state() != ProcessState.ZOMBIE
                    && p.state() != ProcessState.DEAD;
        } catch (NoSuchProcessException e) {
            return false;
        }
    }

    /**
     * @return whether the key's pid is held by a process whose pidfs inode differs from the key's: one that took
     *         the pid within the key's clock tick (false where either has no inode)
     */
    boolean heldByAnother(ProcessKey key) {
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
}
