package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.NativeLibc;

import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalsUnavailableException;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.posix.POSIX;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Native calls for processes, over the bindings {@link NativeLibc} loads: {@code kill(2)}, {@code getpid},
 * {@code getpgrp}, {@code posix_spawnp} through jnr-posix's native POSIX (never its pure-Java fallback), and
 * the few calls jnr-posix lacks through jnr-ffi: {@code pidfd_open(2)} (by {@code syscall(2)}), {@code poll(2)},
 * {@code waitid(2)}, {@code prctl(2)}. The {@link ProcessCalls} of JDK 17 to 21, where
 * {@code ProcessCalls.get()} chooses the jnr back end. Nothing of jnr leaves this class. Thread-safe:
 * {@code errno} is saved per thread.
 *
 * <p>Loaded once per JVM, on first use (never in a static initializer of a public class); a failure is
 * remembered and reported as {@link SignalsUnavailableException} on every later attempt.
 */
@SuppressWarnings("exports") // exported for jnr-ffi's generated stubs alone (package-info): not API
public final class NativeAccess implements ProcessCalls {
    /** {@code errno} values of the generic Linux ABI. */
    public static final int EPERM = 1;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;

    /** {@code pidfd_open} in the unified syscall table (x86-64, i386, arm, arm64, riscv, ppc, s390...). */
    private static final long SYS_PIDFD_OPEN = 434;
    /** {@code pidfd_send_signal} in the unified syscall table (Linux 5.1 and later). */
    private static final long SYS_PIDFD_SEND_SIGNAL = 424;
    /** {@code f_type} of the pidfs file system (Linux 6.9 and later), where each process has its own inode. */
    private static final long PIDFS_MAGIC = 0x50494446L;
    private static final int STATFS_SIZE = 256;
    private static final Set<String> UNIFIED_SYSCALL_ARCHES = Set.of("amd64", "x86_64", "x86", "i386", "i686",
            "aarch64", "arm", "riscv64", "ppc64le", "ppc64", "s390x", "loongarch64");

    private static final short POLLIN = 0x1;
    private static final int P_PID = 1;
    private static final int O_CLOEXEC = 02000000;
    private static final int WEXITED = 4;
    private static final int WNOHANG = 1;
    private static final int WNOWAIT = 0x01000000;
    private static final int CLD_EXITED = 1;
    private static final int CLD_KILLED = 2;
    private static final int CLD_DUMPED = 3;
    private static final int SIGINFO_SIZE = 128;
    private static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int PR_GET_CHILD_SUBREAPER = 37;
    /** glibc's {@code POSIX_SPAWN_SETSID} (since 2.26): the child calls {@code setsid()} before exec. */
    private static final short POSIX_SPAWN_SETSID = 0x80;

    private static final Object LOCK = new Object();
    private static NativeAccess instance;
    private static SignalsUnavailableException failure;

    private final POSIX posix;
    private final NativeLibc.LibC libc;
    private final jnr.ffi.Runtime runtime;
    private final boolean pidfdSyscallKnown;
    private final long selfPid;
    /** Whether pidfds live on pidfs with an inode per process: null until asked. */
    private volatile Boolean pidfs;

    private NativeAccess(POSIX posix, NativeLibc.LibC libc, boolean pidfdSyscallKnown) {
        this.posix = posix;
        this.libc = libc;
        this.runtime = libc == null ? null : jnr.ffi.Runtime.getRuntime(libc);
        this.pidfdSyscallKnown = pidfdSyscallKnown && libc != null;
        this.selfPid = posix.getpid();
    }

    /**
     * @return the native access of this JVM
     * @throws SignalsUnavailableException if the C library cannot be bound
     */
    public static NativeAccess get() {
        synchronized (LOCK) {
            if (instance != null) {
                return instance;
            }
            if (failure != null) {
                throw new SignalsUnavailableException(failure.getMessage(), failure.getCause());
            }
            try {
                instance = load();
                return instance;
            } catch (SignalsUnavailableException e) {
                failure = e;
                throw e;
            }
        }
    }

    private static NativeAccess load() {
        NativeLibc.Loaded loaded;
        try {
            loaded = NativeLibc.get("kill");
        } catch (io.github.procscope.api.core.NativeUnavailableException e) {
            throw new SignalsUnavailableException(e.getMessage(), e);
        }
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return new NativeAccess(loaded.posix(), loaded.libc(), UNIFIED_SYSCALL_ARCHES.contains(arch));
    }

    /** @return this JVM's pid */
    @Override
    public long selfPid() {
        return selfPid;
    }

    /** @return this JVM's process group id ({@code getpgrp()}) */
    @Override
    public long selfProcessGroup() {
        return posix.getpgid(0);
    }

    /**
     * {@code kill(pid, signal)}, raw: callers have already refused pid &lt;= 0.
     *
     * @return 0 on success, else the errno
     */
    @Override
    public int kill(long pid, Signal signal) {
        if (pid == 0 || pid == -1 || pid == Integer.MIN_VALUE || pid > Integer.MAX_VALUE || pid < Integer.MIN_VALUE) {
            throw new IllegalStateException("refusing kill(" + pid + "): not a process or group id");
        }
        int rc = posix.kill(pid, signal.number());
        return rc == 0 ? 0 : Math.max(1, posix.errno());
    }

    /** @return whether {@link #pidfdOpen(long)} may work on this platform */
    @Override
    public boolean pidfdPossible() {
        return pidfdSyscallKnown;
    }

    /**
     * {@code pidfd_open(pid, 0)}.
     *
     * @return a file descriptor (&gt;= 0), or minus the errno ({@code -ESRCH}: no such process;
     *         {@code -ENOSYS}, {@code -EPERM} under seccomp, {@code -EMFILE}...: no pidfd to be had)
     */
    @Override
    public int pidfdOpen(long pid) {
        if (!pidfdSyscallKnown) {
            return -38; // ENOSYS
        }
        long fd = libc.syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0);
        if (fd < 0) {
            return -Math.max(1, runtime.getLastError());
        }
        return (int) fd;
    }

    /**
     * {@code pidfd_send_signal(pidfd, sig, NULL, 0)}: the signal goes to the process the pidfd was opened on,
     * or nowhere (ESRCH) if that process has exited, never to a process that took its pid since.
     *
     * @param pidfd  a descriptor from {@link #pidfdOpen(long)}
     * @param signal the signal
     * @return 0 on success, else the errno ({@code ESRCH}: it has exited; {@code EPERM}: not permitted;
     *         {@code ENOSYS}: a kernel before 5.1)
     */
    @Override
    public int pidfdSendSignal(int pidfd, Signal signal) {
        if (!pidfdSyscallKnown) {
            return 38; // ENOSYS
        }
        long rc = libc.syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, signal.number(), 0, 0);
        return rc == 0 ? 0 : Math.max(1, runtime.getLastError());
    }

    /**
     * @return whether a pidfd's inode number names its process uniquely: true where pidfds live on pidfs
     *         (Linux 6.9 and later), false where they share one anonymous inode or none can be opened
     */
    @Override
    public boolean pidfsInodes() {
        Boolean known = pidfs;
        if (known == null) {
            known = false;
            int fd = pidfdOpen(selfPid);
            if (fd >= 0) {
                try {
                    Pointer buf = Memory.allocateDirect(runtime, STATFS_SIZE);
                    known = libc.fstatfs(fd, buf) == 0 && buf.getLong(0) == PIDFS_MAGIC;
                } finally {
                    close(fd);
                }
            }
            pidfs = known;
        }
        return known;
    }

    /**
     * The inode number of a pidfd ({@code st_ino} of {@code fstat(2)}, the same as {@code stx_ino} of
     * {@code statx(2)} with {@code AT_EMPTY_PATH}): on pidfs, unique to one process for the whole boot.
     *
     * @param pidfd a descriptor from {@link #pidfdOpen(long)}
     * @return the inode number, or empty where it does not name a process ({@link #pidfsInodes()} false) or
     *         cannot be read
     */
    @Override
    public OptionalLong pidfdInode(int pidfd) {
        if (!pidfsInodes()) {
            return OptionalLong.empty();
        }
        try {
            long ino = posix.fstat(pidfd).ino();
            return ino > 0 ? OptionalLong.of(ino) : OptionalLong.empty();
        } catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * @param pidfd a descriptor from {@link #pidfdOpen(long)}
     * @return whether its process has exited (the pidfd is readable), looking without waiting
     */
    @Override
    public boolean pidfdExited(int pidfd) {
        boolean[] ready = new boolean[1];
        pollReadable(new int[] {pidfd}, 1, 0, ready);
        return ready[0];
    }

    /** Closes a descriptor from {@link #pidfdOpen(long)}. */
    @Override
    public void close(int fd) {
        posix.close(fd);
    }

    /**
     * Waits until one of the descriptors is readable (a pidfd becomes readable when its process exits)
     * or the timeout passes.
     *
     * @param fds       pidfds
     * @param count     how many of {@code fds} to watch
     * @param timeoutMs the longest wait in milliseconds (0: just look)
     * @param ready     set to true for each readable descriptor
     * @return how many are readable (0 on timeout or interruption by a signal)
     */
    @Override
    public int pollReadable(int[] fds, int count, int timeoutMs, boolean[] ready) {
        Pointer p = Memory.allocateDirect(runtime, 8 * Math.max(1, count));
        for (int i = 0; i < count; i++) {
            p.putInt(8L * i, fds[i]);
            p.putShort(8L * i + 4, POLLIN);
            p.putShort(8L * i + 6, (short) 0);
        }
        int n = libc.poll(p, count, timeoutMs);
        if (n < 0) {
            int errno = runtime.getLastError();
            if (errno == EINTR) {
                return 0;
            }
            throw new IllegalStateException("poll(2) on " + count + " pidfds failed with errno " + errno);
        }
        int readyCount = 0;
        for (int i = 0; i < count; i++) {
            short revents = p.getShort(8L * i + 6);
            ready[i] = revents != 0;
            if (ready[i]) {
                readyCount++;
            }
        }
        return readyCount;
    }

    /**
     * Looks at how a child of this JVM ended without reaping it ({@code waitid(P_PID, pid, WEXITED |
     * WNOHANG | WNOWAIT)}): the child stays a zombie for its owner (the JDK's reaper, or whoever
     * started it) to collect.
     *
     * @param pid a pid
     * @return the exact exit status, if the pid is a child of this JVM that has ended and not been
     *         reaped yet
     */
    @Override
    public Optional<ExitStatus> peekChildExit(long pid) {
        if (libc == null || pid > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        Pointer info = Memory.allocateDirect(runtime, SIGINFO_SIZE);
        info.setMemory(0, SIGINFO_SIZE, (byte) 0);
        int rc = libc.waitid(P_PID, (int) pid, info, WEXITED | WNOHANG | WNOWAIT);
        if (rc != 0) {
            return Optional.empty(); // ECHILD: not our child, or already reaped
        }
        // siginfo_t: si_signo, si_errno, si_code (ints), then the union, aligned to the pointer size:
        // for SIGCHLD { si_pid, si_uid, si_status }.
        int unionOffset = runtime.addressSize() == 8 ? 16 : 12;
        int siPid = info.getInt(unionOffset);
        if (siPid != pid) {
            return Optional.empty(); // WNOHANG and still running
        }
        int code = info.getInt(8);
        int status = info.getInt(unionOffset + 8);
        switch (code) {
            case CLD_EXITED:
                return Optional.of(ExitStatus.exited(status & 0xff));
            case CLD_KILLED:
            case CLD_DUMPED:
                if (status >= 1 && status <= Signal.MAX_NUMBER) {
                    return Optional.of(ExitStatus.killedBy(Signal.of(status), code == CLD_DUMPED));
                }
                return Optional.empty();
            default:
                return Optional.empty();
        }
    }

    @Override
    public int setChildSubreaper(boolean on) {
        int rc = libc.prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0);
        return rc == 0 ? 0 : Math.max(1, runtime.getLastError());
    }

    @Override
    public boolean childSubreaper() {
        Pointer flag = Memory.allocateDirect(runtime, 8);
        flag.putInt(0, 0);
        int rc = libc.prctl(PR_GET_CHILD_SUBREAPER, flag.address(), 0, 0, 0);
        if (rc != 0) {
            throw new IllegalStateException("prctl(PR_GET_CHILD_SUBREAPER) failed with errno "
                    + Math.max(1, runtime.getLastError()));
        }
        return flag.getInt(0) != 0;
    }

    /**
     * {@inheritDoc} Through jnr-posix's {@code posix_spawnp}.
     */
    @Override
    public Spawned spawnInNewSession(List<String> argv, Map<String, String> env, int outFd) {
        List<CharSequence> envp = new ArrayList<>();
        env.forEach((k, v) -> envp.add(k + "=" + v));
        List<jnr.posix.SpawnFileAction> close = new ArrayList<>();
        if (outFd >= 0) {
            // Before the closes, so that the descriptor may be among them.
            close.add(jnr.posix.SpawnFileAction.dup(outFd, 1));
            close.add(jnr.posix.SpawnFileAction.dup(outFd, 2));
        }
        for (int fd : ProcessCalls.descriptorsToClose()) {
            // glibc ignores a close action on a descriptor that was closed meanwhile.
            close.add(jnr.posix.SpawnFileAction.close(fd));
        }
        long pid = posix.posix_spawnp(argv.get(0), close,
                List.of(jnr.posix.SpawnAttribute.flags(POSIX_SPAWN_SETSID)), new ArrayList<>(argv), envp);
        if (pid <= 0) {
            return new Spawned(-1, Math.max(1, posix.errno()));
        }
        return new Spawned(pid, 0);
    }

    @Override
    public int pipe(int[] fds) {
        int[] two = new int[2];
        if (libc.pipe2(two, O_CLOEXEC) != 0) {
            return Math.max(1, runtime.getLastError());
        }
        fds[0] = two[0];
        fds[1] = two[1];
        return 0;
    }

    /**
     * glibc's {@code struct sigaction} on 64-bit Linux (x86-64, arm64): the handler first (8 bytes), then the
     * 128-byte mask, the flags and the restorer: 152 bytes, allocated with a margin.
     */
    private static final int SIGACTION_BYTES = 256;
    private static final long SIG_DFL = 0;
    private static final long SIG_IGN = 1;

    /** @return the disposition before ({@code SIG_DFL}, {@code SIG_IGN}, or a handler), or -1 on failure */
    private long sigaction(int signal, long set) {
        Pointer old = Memory.allocateDirect(runtime, SIGACTION_BYTES);
        old.setMemory(0, SIGACTION_BYTES, (byte) 0);
        Pointer act = null;
        if (set >= 0) {
            act = Memory.allocateDirect(runtime, SIGACTION_BYTES);
            act.setMemory(0, SIGACTION_BYTES, (byte) 0);
            act.putLong(0, set);
        }
        return libc.sigaction(signal, act, old) == 0 ? old.getLong(0) : -1;
    }

    @Override
    public boolean stopIgnoring(Signal signal) {
        if (sigaction(signal.number(), -1) != SIG_IGN) {
            return false;
        }
        return sigaction(signal.number(), SIG_DFL) == SIG_IGN;
    }

    @Override
    public boolean ignoreIfDefault(Signal signal) {
        long now = sigaction(signal.number(), -1);
        if (now == SIG_IGN) {
            return true;
        }
        return now == SIG_DFL && sigaction(signal.number(), SIG_IGN) == SIG_DFL;
    }

    @Override
    public Optional<ExitStatus> reapChild(long pid) {
        return waitChild(pid, WEXITED | WNOHANG);
    }

    private Optional<ExitStatus> waitChild(long pid, int options) {
        if (libc == null || pid <= 0 || pid > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        Pointer info = Memory.allocateDirect(runtime, SIGINFO_SIZE);
        info.setMemory(0, SIGINFO_SIZE, (byte) 0);
        int rc = libc.waitid(P_PID, (int) pid, info, options);
        if (rc != 0) {
            return Optional.empty();
        }
        int unionOffset = runtime.addressSize() == 8 ? 16 : 12;
        if (info.getInt(unionOffset) != pid) {
            return Optional.empty();
        }
        int code = info.getInt(8);
        int status = info.getInt(unionOffset + 8);
        if (code == CLD_EXITED) {
            return Optional.of(ExitStatus.exited(status & 0xff));
        }
        if ((code == CLD_KILLED || code == CLD_DUMPED) && status >= 1 && status <= Signal.MAX_NUMBER) {
            return Optional.of(ExitStatus.killedBy(Signal.of(status), code == CLD_DUMPED));
        }
        return Optional.empty();
    }
}
