package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NativeUnavailableException;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalsUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The process calls of the signal module ({@code io.github.procscope.linux.signals}: {@code LinuxSignals},
 * {@code ExitWaiter}, {@code GracefulStop}) and of the job supervisor ({@code io.github.procscope.linux.jobs}:
 * spawning in a new session, reaping, the child subreaper), whichever back end of the native wall carries them:
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

    /**
     * Reaps an ended child of this JVM ({@code waitid(P_PID, pid, WEXITED | WNOHANG)}). Only for children the
     * caller owns: never for those of {@link ProcessBuilder}, whose exit status the JDK waits for.
     *
     * @param pid a child's pid
     * @return its exit status, if it had ended and was reaped now
     */
    Optional<ExitStatus> reapChild(long pid);

    /**
     * Makes this JVM the child subreaper of its descendants, or stops it being one
     * ({@code prctl(PR_SET_CHILD_SUBREAPER, on)}): while it is one, an orphaned descendant is re-parented to
     * this JVM instead of to PID 1 (or the nearest subreaper above).
     *
     * @param on whether to be one
     * @return 0, or the errno
     */
    int setChildSubreaper(boolean on);

    /**
     * @return whether this JVM is the child subreaper of its descendants ({@code prctl(PR_GET_CHILD_SUBREAPER)})
     * @throws IllegalStateException if the kernel refuses to say
     */
    boolean childSubreaper();

    /**
     * Starts a program in a new session ({@code posix_spawnp} with {@code POSIX_SPAWN_SETSID}): its pid is its
     * session and process group id; it inherits this JVM's standard streams and working directory, and no other
     * descriptor open when it is spawned (each one {@link #descriptorsToClose()} lists is closed in the child, as
     * {@link ProcessBuilder} does; one opened by another thread during the call may slip through). It is a child
     * of this JVM that the JDK does not know, to be reaped with {@link #reapChild(long)}.
     *
     * @param argv the program (looked up on this JVM's {@code PATH} unless it holds a {@code /}) and its
     *             arguments, none holding NUL
     * @param env  its whole environment
     * @return the pid, or the error number ({@code ENOENT}: not found)
     */
    default Spawned spawnInNewSession(List<String> argv, Map<String, String> env) {
        return spawnInNewSession(argv, env, -1);
    }

    /**
     * {@link #spawnInNewSession(List, Map)}, with the child's standard output and error on a descriptor of this
     * JVM (the write end of a {@link #pipe(int[])}, say), which the child gets as its 1 and 2 and nothing else.
     *
     * @param outFd the descriptor, or -1 for this JVM's standard output and error
     */
    Spawned spawnInNewSession(List<String> argv, Map<String, String> env, int outFd);

    /**
     * {@code pipe2(fds, O_CLOEXEC)}: no program this JVM starts inherits either end unless it is handed over.
     *
     * @param fds receives the read end ({@code fds[0]}) and the write end ({@code fds[1]})
     * @return 0, or the errno
     */
    int pipe(int[] fds);

    /**
     * Makes a signal that this JVM ignores (as inherited from its parent: {@code trap '' TERM}, {@code nohup})
     * take its default action again, so that the JVM will install a handler for it when asked; a signal with a
     * handler or its default action is left as it is. Between this and the handler's installation the signal's
     * default action applies (for TERM: the JVM ends).
     *
     * @return whether it was ignored and now is not
     */
    boolean stopIgnoring(Signal signal);

    /**
     * Ignores a signal again, if it takes its default action now (no handler installed): the way back from
     * {@link #stopIgnoring(Signal)} once its handler is gone.
     *
     * @return whether it is ignored now
     */
    boolean ignoreIfDefault(Signal signal);

    /** What {@link #spawnInNewSession} gave: a pid, or an error number. */
    record Spawned(long pid, int errno) {
        /** {@code ENOENT}. */
        static final int ENOENT = 2;

        /** @return whether the program was not found */
        public boolean notFound() {
            return errno == ENOENT;
        }

        /** @return the error in words, as {@code strerror(3)} says it ("Permission denied"), with its number */
        public String reason() {
            String words;
            switch (errno) {
                case 1: words = "Operation not permitted"; break;
                case 2: words = "No such file or directory"; break;
                case 7: words = "Argument list too long"; break;
                case 8: words = "Exec format error"; break;
                case 11: words = "Resource temporarily unavailable"; break;
                case 12: words = "Cannot allocate memory"; break;
                case 13: words = "Permission denied"; break;
                case 20: words = "Not a directory"; break;
                case 21: words = "Is a directory"; break;
                case 23: words = "Too many open files in system"; break;
                case 24: words = "Too many open files"; break;
                case 26: words = "Text file busy"; break;
                case 36: words = "File name too long"; break;
                case 40: words = "Too many levels of symbolic links"; break;
                default: words = "error";
            }
            return words + " (errno " + errno + ")";
        }
    }

    /**
     * The descriptor rule of {@link #spawnInNewSession}, one for every back end.
     *
     * @return every descriptor above 2 this JVM has open now (read from {@code /proc/self/fd}), ascending
     */
    static int[] descriptorsToClose() {
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        if (fds == null) {
            return new int[0];
        }
        int[] out = new int[fds.length];
        int n = 0;
        for (java.io.File f : fds) {
            try {
                int fd = Integer.parseInt(f.getName());
                if (fd > 2) {
                    out[n++] = fd;
                }
            } catch (NumberFormatException e) {
                // not a descriptor entry
            }
        }
        int[] sorted = java.util.Arrays.copyOf(out, n);
        java.util.Arrays.sort(sorted);
        return sorted;
    }
}
