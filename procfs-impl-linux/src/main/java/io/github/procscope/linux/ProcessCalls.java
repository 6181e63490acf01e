package io.github.procscope.linux;

import io.github.procscope.linux.internal.NativeAccess;
import io.github.procscope.api.NativeUnavailableException;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SignalsUnavailableException;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The process calls of the signal module ({@code io.github.procscope.linux.signals}: {@code LinuxSignals},
 * {@code ExitWaiter}, {@code GracefulStop}), whichever back end of the native wall carries them:
 * {@link NativeAccess} (jnr-posix, JDK 17 to 21) or {@link WallProcessCalls} over the FFM back end (JDK 22+).
 * Public only so that the signal package can reach it; this package is not API (the module exports it to
 * no one). Thread-safe.
 */
public interface ProcessCalls {
    /**
     * @return the process calls of this JVM, over the back end {@link NativeWalls#chosen()} names
     * @throws SignalsUnavailableException if the C library cannot be bound
     */
    static ProcessCalls get() {
        String backEnd;
        try {
            backEnd = NativeWalls.chosen();
        } catch (IllegalArgumentException e) {
            throw new SignalsUnavailableException(e.getMessage(), e);
        }
        if (NativeWalls.FFM.equals(backEnd)) {
            try {
                return WallProcessCalls.over(NativeWalls.get("kill"));
            } catch (NativeUnavailableException e) {
                throw new SignalsUnavailableException(e.getMessage(), e);
            }
        }
        return NativeAccess.get();
    }

    /** @return this JVM's pid */
    long selfPid();

    /** @return this JVM's process group id */
    long selfProcessGroup();

    /**
     * {@code kill(pid, signal)}, raw: callers have already refused pid &lt;= 0.
     *
     * @return 0 on success, else the errno
     */
    int kill(long pid, Signal signal);

    /** @return whether {@link #pidfdOpen(long)} may work on this platform */
    boolean pidfdPossible();

    /**
     * {@code pidfd_send_signal(pidfd, sig, NULL, 0)}: the signal goes to the process the pidfd was opened on,
     * or nowhere (ESRCH) if that process has exited, never to a process that took its pid since.
     *
     * @return 0 on success, else the errno ({@code ESRCH}: it has exited; {@code EPERM}: not permitted;
     *         {@code ENOSYS}: a kernel before 5.1)
     */
    int pidfdSendSignal(int pidfd, Signal signal);

    /**
     * @return whether a pidfd's inode number names its process uniquely: true where pidfds live on pidfs
     *         (Linux 6.9 and later), false where they share one anonymous inode or none can be opened
     */
    boolean pidfsInodes();

    /**
     * The inode number of a pidfd: on pidfs, unique to one process for the whole boot.
     *
     * @return the inode number, or empty where it does not name a process ({@link #pidfsInodes()} false) or
     *         cannot be read
     */
    OptionalLong pidfdInode(int pidfd);

    /** @return whether the pidfd's process has exited (the pidfd is readable), looking without waiting */
    boolean pidfdExited(int pidfd);

    /**
     * {@code pidfd_open(pid, 0)}.
     *
     * @return a file descriptor (&gt;= 0), or minus the errno
     */
    int pidfdOpen(long pid);

    /** Closes a descriptor from {@link #pidfdOpen(long)}. */
    void close(int fd);

    /**
     * Waits until one of the descriptors is readable or the timeout passes.
     *
     * @return how many are readable (0 on timeout or interruption by a signal)
     */
    int pollReadable(int[] fds, int count, int timeoutMs, boolean[] ready);

    /**
     * Looks at how a child of this JVM ended without reaping it.
     *
     * @return the exact exit status, if the pid is a child of this JVM that has ended and not been reaped
     */
    Optional<ExitStatus> peekChildExit(long pid);
}
