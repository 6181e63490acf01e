package io.github.procscope.linux.sys.internal;

import io.github.procscope.api.core.NativeUnavailableException;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.Variadic;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.util.DefaultPOSIXHandler;

import java.util.Locale;

/**
 * The jnr side of the native wall (JDK 17 to 21; see {@code io.github.procscope.linux.sys.NativeWall} for the contract both back ends
 * keep): it loads, once per JVM and on first use, jnr-posix's
 * native POSIX binding (never its pure-Java fallback, which fakes or refuses most calls) and a jnr-ffi
 * binding of the few libc calls jnr-posix lacks. {@code NativeAccess} (processes and signals),
 * {@code NativeFs} (file systems) and {@code NativeProcFiles} (the snapshot's reads) are its only users, and
 * no jnr type leaves those four classes.
 *
 * <p>A loading failure is remembered and reported on every later use as a
 * {@link NativeUnavailableException} naming the cause (an unsupported platform, a {@code noexec}
 * temporary directory that jffi cannot extract its stub to, ...). Thread-safe.
 */
@SuppressWarnings("exports") // exported for jnr-ffi's generated stubs alone (package-info): not API
public final class NativeLibc {
    /** The libc calls jnr-posix does not offer. */
    public interface LibC {
        /**
         * {@code long syscall(long number, ...)}, with four arguments: calls that take fewer ignore the rest
         * ({@code pidfd_open(pid, flags)} passes 0, 0), calls that take four get them all
         * ({@code pidfd_send_signal(pidfd, sig, info, flags)}).
         *
         * @param number the system call number
         * @param arg1   first argument
         * @param arg2   second argument
         * @param arg3   third argument
         * @param arg4   fourth argument
         * @return the result, or -1 with errno set
         */
        @Variadic(fixedCount = 1)
        long syscall(long number, long arg1, long arg2, long arg3, long arg4);

        /**
         * {@code int fstatfs(int fd, struct statfs *buf)}: {@code f_type}, a {@code long} on 64-bit Linux, is
         * its first field.
         *
         * @param fd  a descriptor
         * @param buf at least 120 bytes
         * @return 0, or -1 with errno set
         */
        int fstatfs(int fd, @Out Pointer buf);

        /**
         * {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}.
         *
         * @param fds     the array of {@code struct pollfd}
         * @param nfds    its length
         * @param timeout milliseconds, -1 for none
         * @return the number of ready descriptors, 0 on timeout, -1 with errno set
         */
        int poll(Pointer fds, long nfds, int timeout);

        /**
         * {@code int waitid(idtype_t idtype, id_t id, siginfo_t *infop, int options)}.
         *
         * @param idtype  P_PID
         * @param id      the pid
         * @param infop   a 128-byte siginfo_t
         * @param options WEXITED | WNOHANG | WNOWAIT
         * @return 0, or -1 with errno set
         */
        int waitid(int idtype, int id, Pointer infop, int options);

        /**
         * {@code int prctl(int option, unsigned long arg2, ...)}.
         *
         * @param option the operation, such as {@code PR_SET_CHILD_SUBREAPER}
         * @param arg2   its first argument
         * @param arg3   0
         * @param arg4   0
         * @param arg5   0
         * @return 0 (or a value the operation defines), or -1 with errno set
         */
        int prctl(int option, long arg2, long arg3, long arg4, long arg5);

        /**
         * {@code int statvfs(const char *path, struct statvfs *buf)}.
         *
         * @param path a path
         * @param buf  a {@code struct statvfs}
         * @return 0, or -1 with errno set
         */
        int statvfs(String path, @Out Pointer buf);

        /**
         * {@code int pipe2(int fds[2], int flags)}.
         *
         * @param fds   receives the read end and the write end
         * @param flags {@code O_CLOEXEC} and the like
         * @return 0, or -1 with errno set
         */
        int pipe2(@Out int[] fds, int flags);

        /**
         * {@code int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)}.
         *
         * @param sig    the signal
         * @param act    the new disposition, or null to only read
         * @param oldact receives the disposition before
         * @return 0, or -1 with errno set
         */
        int sigaction(int sig, Pointer act, Pointer oldact);
    }

    /**
     * The calls of the native snapshot reader ({@code NativeProcFiles}): file descriptors relative to the procfs
     * root, paths as NUL-terminated bytes so that no string is converted per call. Bound apart from
     * {@link LibC} because {@code statx} needs glibc 2.28: a libc without it loses this reader only (the
     * snapshot then reads through the JDK), never the other native calls.
     */
    public interface ProcLibC {
        /**
         * {@code int openat(int dirfd, const char *path, int flags)}.
         *
         * @param dirfd a directory descriptor
         * @param path  a NUL-terminated relative path
         * @param flags open flags
         * @return a descriptor, or -1 with errno set
         */
        int openat(int dirfd, @In byte[] path, int flags);

        /**
         * {@code ssize_t read(int fd, void *buf, size_t count)}.
         *
         * @param fd    a descriptor
         * @param buf   native memory of at least {@code count} bytes
         * @param count how many bytes at most
         * @return the bytes read, 0 at end of file, -1 with errno set
         */
        long read(int fd, Pointer buf, long count);

        /**
         * {@code int close(int fd)}.
         *
         * @param fd a descriptor
         * @return 0, or -1 with errno set
         */
        int close(int fd);

        /**
         * {@code int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf)}:
         * its layout is the same on every architecture, unlike {@code struct stat}.
         *
         * @param dirfd a directory descriptor
         * @param path  a NUL-terminated relative path
         * @param flags {@code AT_*} flags
         * @param mask  the {@code STATX_*} fields wanted
         * @param buf   at least 256 bytes
         * @return 0, or -1 with errno set
         */
        int statx(int dirfd, @In byte[] path, int flags, int mask, @Out Pointer buf);
    }

    /** What a successful load gives. */
    public record Loaded(POSIX posix, LibC libc, jnr.ffi.Runtime runtime) {
    }

    private static final class Holder {
        static final Object RESULT = load();
    }

    /**
     * The snapshot reader's binding: {@code null} until loaded, then the binding, or {@link #PROC_FAILED}.
     * Loading it generates code and takes a few hundred milliseconds, more than a whole snapshot of a
     * small machine, so a process table asks for it in the background ({@link #startLoadingProcLibC}) from the
     * second reader a JVM opens and reads through the JDK until it is there: a one-shot tool never loads it, a
     * monitor gets it from its third or fourth snapshot on.
     */
    private static volatile Object procState;
    private static final Object PROC_FAILED = new Object();
    private static final java.util.concurrent.atomic.AtomicBoolean PROC_STARTED =
            new java.util.concurrent.atomic.AtomicBoolean();

    private NativeLibc() {
    }

    /**
     * @param call the system call the caller needs, for the message
     * @return the loaded bindings
     * @throws NativeUnavailableException if they could not be loaded on this machine
     */
    public static Loaded get(String call) {
        Object r = Holder.RESULT;
        if (r instanceof Loaded) {
            return (Loaded) r;
        }
        RuntimeException failure = (RuntimeException) r;
        throw new NativeUnavailableException(call, failure.getMessage(), failure.getCause());
    }

    /**
     * @return the binding of the snapshot reader's calls if it has been loaded, else {@code null} (not yet,
     *         or it cannot be loaded here: no native access at all, or a libc without {@code statx});
     *         callers then read through the JDK
     */
    public static ProcLibC procLibCIfLoaded() {
        Object s = procState;
        return s instanceof ProcLibC ? (ProcLibC) s : null;
    }

    /** Starts loading the snapshot reader's binding on a daemon thread, once per JVM; returns at once. */
    public static void startLoadingProcLibC() {
        if (PROC_STARTED.compareAndSet(false, true)) {
            Thread t = new Thread(NativeLibc::loadProcLibC, "procscope-native-loader");
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Loads the snapshot reader's binding now, in the calling thread, if no one has yet.
     *
     * @return the binding, or {@code null} if it cannot be loaded here
     */
    public static ProcLibC loadProcLibC() {
        synchronized (PROC_STARTED) {
            PROC_STARTED.set(true);
            if (procState == null) {
                ProcLibC lib = loadProc();
                procState = lib != null ? lib : PROC_FAILED;
            }
        }
        return procLibCIfLoaded();
    }

    /** @return the runtime of the loaded {@link ProcLibC}, which must not be {@code null} */
    public static jnr.ffi.Runtime procRuntime() {
        return jnr.ffi.Runtime.getRuntime(procLibCIfLoaded());
    }

    private static ProcLibC loadProc() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || !"64".equals(System.getProperty("sun.arch.data.model"))) {
            return null;
        }
        try {
            JffiStub.prepare();
            return LibraryLoader.create(ProcLibC.class).failImmediately().load("c");
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static Object load() {
        try {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            if (!os.contains("linux")) {
                return new IllegalStateException("procscope's native calls need Linux; this JVM runs on "
                        + System.getProperty("os.name"));
            }
            if (!"64".equals(System.getProperty("sun.arch.data.model"))) {
                return new IllegalStateException("procscope supports 64-bit JVMs only (this one is "
                        + System.getProperty("sun.arch.data.model") + "-bit)");
            }
            JffiStub.prepare();
            POSIX posix = POSIXFactory.getNativePOSIX(new DefaultPOSIXHandler());
            if (posix == null || !posix.isNative()) {
                return new IllegalStateException("jnr-posix offered no native POSIX implementation for "
                        + System.getProperty("os.arch") + "; its pure-Java fallback is not used");
            }
            long pid = posix.getpid();
            if (pid != ProcessHandle.current().pid()) {
                return new IllegalStateException("jnr-posix's getpid() returned " + pid + " but this JVM is pid "
                        + ProcessHandle.current().pid() + ": the native binding is not usable");
            }
            LibC libc = LibraryLoader.create(LibC.class).failImmediately().load("c");
            return new Loaded(posix, libc, jnr.ffi.Runtime.getRuntime(libc));
        } catch (RuntimeException | LinkageError e) {
            return new IllegalStateException("cannot load the native C library through jnr-posix/jnr-ffi (" + e
                    + "). jnr-ffi needs its jffi native stub for " + System.getProperty("os.arch")
                    + ", extracted to java.io.tmpdir (" + System.getProperty("java.io.tmpdir")
                    + "), which must allow executing files (not mounted noexec); check also the"
                    + " jnr.ffi.provider and jffi.boot.library.path system properties", e);
        }
    }
}
