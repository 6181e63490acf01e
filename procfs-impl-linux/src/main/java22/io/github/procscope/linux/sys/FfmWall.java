package io.github.procscope.linux.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The native wall through the FFM API ({@code java.lang.foreign}, JDK 22+): downcall handles to the C
 * library this JVM already has loaded, {@code errno} captured by the linker. No {@code sun.misc.Unsafe}, no
 * generated classes, nothing extracted to disk. Its calls are restricted methods: a JVM started with
 * {@code --enable-native-access=ALL-UNNAMED} (or the jar manifest's {@code Enable-Native-Access}) makes
 * them without a warning. Handles are made on first use, per group of calls, so a program that only
 * signals never pays for the file calls. Compiled for release 22; loaded by {@link NativeWalls} only on a
 * JDK that has the API. See {@link NativeWall} for the contract.
 */
final class FfmWall implements NativeWall {
    private static final int CHUNK = 16 * 1024;
    private static final int PATH_MAX = 4096;
    private static final int ENAMETOOLONG = 36;

    static {
        NativeWalls.registerFfm(new Factory());
    }

    private final boolean pidfdPossible;
    private final ThreadLocal<Buffers> buffers = new PerThread();

    /*
     * Named classes rather than lambdas here: each lambda's first use spins a class, which a first
     * Signals.system() would wait for.
     */

    /** Each thread's buffers. */
    private static final class PerThread extends ThreadLocal<Buffers> {
        @Override
        protected Buffers initialValue() {
            return new Buffers();
        }
    }

    /**
     * Links the process and file calls ahead of their first use, then makes the calls of a first signal once, on
     * this JVM's own process and with signal 0 (which sends nothing): a handle's first invocation spins classes too,
     * and a caller that signals a moment later then finds them made.
     */
    private static final class Linking implements Runnable {
        private static final byte[] SELF_STAT = "/proc/self/stat\0".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        private final FfmWall wall;

        Linking(FfmWall wall) {
            this.wall = wall;
        }

        @Override
        public void run() {
            try {
                Proc.link();
                Files.link();
                long self = ProcessHandle.current().pid();
                wall.kill(self, 0);
                wall.getpgrp();
                int fd = wall.openat(AT_FDCWD, SELF_STAT, O_RDONLY | O_CLOEXEC);
                if (fd >= 0) {
                    wall.read(fd, new byte[512], 0, 512);
                    wall.close(fd);
                }
                if (wall.pidfdPossible()) {
                    int pidfd = wall.pidfdOpen(self);
                    if (pidfd >= 0) {
                        wall.fstat(pidfd, new FileStatus());
                        wall.poll(new int[] {pidfd}, POLLIN, new short[1], 1, 0);
                        wall.pidfdSendSignal(pidfd, 0);
                        wall.close(pidfd);
                    }
                }
            } catch (Throwable t) {
                // The caller's first call meets the same failure, in its own thread.
            }
        }
    }

    /** What {@link NativeWalls} calls to make this wall (registered when this class is initialised). */
    private static final class Factory implements NativeWalls.FfmFactory {
        @Override
        public NativeWall load(boolean pidfdPossible) {
            return FfmWall.load(pidfdPossible);
        }
    }

    /** What every group of handles needs: the linker, libc's symbols, errno's place in the call state. */
    private static final class Base {
        static final Linker LINKER = Linker.nativeLinker();
        static final SymbolLookup LIBC = LINKER.defaultLookup();
        static final StructLayout STATE = Linker.Option.captureStateLayout();
        static final int ERRNO_OFFSET = errnoOffset(STATE);
        static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

        @SuppressWarnings("restricted") // the one place the wall links a downcall; how access is granted: above
        static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
            MemorySegment symbol = LIBC.find(name).orElseThrow(() -> new IllegalStateException(
                    "the C library has no " + name + " (glibc 2.28 or newer is needed)"));
            return LINKER.downcallHandle(symbol, fd, options);
        }

        /**
         * errno's offset in the call state, from the struct's members: read through a byte buffer there, since a
         * VarHandle or a layout path ({@code byteOffset}) spins classes on first use, which a first
         * {@code Signals.system()} waited for (about 6 ms each).
         */
        static int errnoOffset(StructLayout state) {
            long offset = 0;
            for (MemoryLayout m : state.memberLayouts()) {
                if (m.name().isPresent() && m.name().get().equals("errno")) {
                    return Math.toIntExact(offset);
                }
                offset += m.byteSize();
            }
            throw new IllegalStateException("the JDK's call state layout has no errno: " + state);
        }
    }

    /** The process calls. */
    private static final class Proc {
        static final MethodHandle GETPID = Base.handle("getpid", FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle GETPGRP = Base.handle("getpgrp", FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle KILL = Base.handle("kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Base.CAPTURE);
        static final MethodHandle SYSCALL = Base.handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Base.CAPTURE, Linker.Option.firstVariadicArg(1));

        /** Makes the handles (by initialising this class) if no other thread has. */
        static void link() {
            // Reading a field runs the static initialiser once; a thread that needs a handle meanwhile waits
            // for that initialiser instead of linking a second time.
            if (KILL == null) {
                throw new AssertionError();
            }
        }
    }

    /** The file calls. */
    private static final class Files {
        static final MethodHandle OPENAT = Base.handle("openat",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Base.CAPTURE);
        static final MethodHandle READ = Base.handle("read",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Base.CAPTURE);
        static final MethodHandle CLOSE = Base.handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT),
                Base.CAPTURE);
        static final MethodHandle STATX = Base.handle("statx",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), Base.CAPTURE);

        /** Makes the handles (by initialising this class) if no other thread has. */
        static void link() {
            if (STATX == null) {
                throw new AssertionError();
            }
        }
    }

    /** The rest: waiting, process control, file systems. */
    private static final class Misc {
        static final MethodHandle POLL = Base.handle("poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Base.CAPTURE);
        static final MethodHandle WAITID = Base.handle("waitid",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Base.CAPTURE);
        static final MethodHandle IOCTL = Base.handle("ioctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
                Base.CAPTURE, Linker.Option.firstVariadicArg(2));
        static final MethodHandle PRCTL = Base.handle("prctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Base.CAPTURE, Linker.Option.firstVariadicArg(1));
        static final MethodHandle STATVFS = Base.handle("statvfs",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Base.CAPTURE);
        static final MethodHandle PIPE2 = Base.handle("pipe2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Base.CAPTURE);
        static final MethodHandle SIGACTION = Base.handle("sigaction",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), Base.CAPTURE);
    }

    /**
     * glibc's {@code struct sigaction} on 64-bit Linux (x86-64, arm64): the handler first (8 bytes), then the
     * 128-byte mask, the flags and the restorer: 152 bytes, allocated with a margin.
     */
    private static final long SIGACTION_BYTES = 256;

    /**
     * Spawning (the job supervisor's): {@code posix_spawnp} and the calls that build and destroy its file
     * actions and attributes. Each returns an error number itself; none sets {@code errno}.
     */
    private static final class Spawn {
        static final MethodHandle ACTIONS_INIT = Base.handle("posix_spawn_file_actions_init",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle ACTIONS_ADDCLOSE = Base.handle("posix_spawn_file_actions_addclose",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        static final MethodHandle ACTIONS_ADDDUP2 = Base.handle("posix_spawn_file_actions_adddup2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        static final MethodHandle ACTIONS_DESTROY = Base.handle("posix_spawn_file_actions_destroy",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle ATTR_INIT = Base.handle("posix_spawnattr_init",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle ATTR_SETFLAGS = Base.handle("posix_spawnattr_setflags",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_SHORT));
        static final MethodHandle ATTR_DESTROY = Base.handle("posix_spawnattr_destroy",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle SPAWNP = Base.handle("posix_spawnp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    }

    /**
     * Room for glibc's opaque {@code posix_spawn_file_actions_t} (80 bytes on 64-bit Linux) and
     * {@code posix_spawnattr_t} (336 bytes), with a wide margin.
     */
    private static final long SPAWN_STRUCT_BYTES = 1024;

    /** The socket calls (the process connector's netlink socket). */
    private static final class Net {
        static final MethodHandle SOCKET = Base.handle("socket",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Base.CAPTURE);
        static final MethodHandle SETSOCKOPT = Base.handle("setsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Base.CAPTURE);
        static final MethodHandle BIND = Base.handle("bind",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), Base.CAPTURE);
        static final MethodHandle SEND = Base.handle("send",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Base.CAPTURE);
        static final MethodHandle RECV = Base.handle("recv",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Base.CAPTURE);
    }

    /** One thread's native memory, freed by the garbage collector with the thread's buffers. */
    private static final class Buffers {
        final Arena arena = Arena.ofAuto();
        final MemorySegment state = arena.allocate(Base.STATE);
        final ByteBuffer stateView = state.asByteBuffer().order(ByteOrder.nativeOrder());
        final MemorySegment path = arena.allocate(PATH_MAX + 1);
        final MemorySegment chunk = arena.allocate(CHUNK);
        final MemorySegment statx = arena.allocate(FileStatus.STATX_ALLOC, 8);
        final ByteBuffer statxView = statx.asByteBuffer().order(ByteOrder.nativeOrder());
        final MemorySegment siginfo = arena.allocate(ChildState.SIGINFO_BYTES, 8);
        final ByteBuffer siginfoView = siginfo.asByteBuffer().order(ByteOrder.nativeOrder());
        MemorySegment pollfds = arena.allocate(8L * 16, 8);
        final MemorySegment pidfdInfo = arena.allocate(PidfdInfo.BYTES, 8);
        final ByteBuffer pidfdInfoView = pidfdInfo.asByteBuffer().order(ByteOrder.nativeOrder());

        int errno() {
            return -Math.max(1, stateView.getInt(Base.ERRNO_OFFSET));
        }

        /** Copies a C path (up to its first NUL) into {@link #path}; false if it is longer than {@code PATH_MAX}. */
        boolean setPath(byte[] p) {
            int n = NativeWalls.checkPath(p);
            if (n > PATH_MAX) {
                return false;
            }
            MemorySegment.copy(p, 0, path, JAVA_BYTE, 0, n + 1);
            return true;
        }
    }

    private FfmWall(boolean pidfdPossible) {
        this.pidfdPossible = pidfdPossible;
    }

    /**
     * Makes the wall after checking that the C library has every symbol it binds.
     *
     * @throws IllegalStateException naming the cause if the C library cannot be called here
     */
    static FfmWall load(boolean pidfdPossible) {
        try {
            for (String symbol : SYMBOLS) {
                if (Base.LIBC.find(symbol).isEmpty()) {
                    throw new IllegalStateException("the C library has no " + symbol
                            + " (glibc 2.28 or newer is needed)");
                }
            }
            // No call is made here: each group of handles is made on its first use, so that binding the
            // library costs a symbol look-up only. The JDK's first downcall handle costs far more than the
            // rest (it loads and spins the linker's machinery: about 100 ms on a cold JVM), so the process
            // calls and then the file calls, the ones a first signal needs (a pidfd, its inode, the target's
            // stat), are linked now on a daemon thread, which then makes a first signal's calls once with signal 0
            // on this JVM (Linking): a caller that signals a moment later finds them ready, one that signals at once
            // waits for the same initialiser rather than paying twice.
            FfmWall wall = new FfmWall(pidfdPossible);
            Thread linker = new Thread(new Linking(wall), "procscope-ffm-link");
            linker.setDaemon(true);
            linker.start();
            return wall;
        } catch (RuntimeException | LinkageError e) {
            Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException("cannot call the C library through java.lang.foreign (" + cause
                    + "); run with --enable-native-access=ALL-UNNAMED, or choose the jnr back end with -D"
                    + BACKEND_PROPERTY + "=jnr", cause);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    public String name() {
        return "ffm";
    }

    @Override
    public long getpid() {
        try {
            return (int) Proc.GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long getpgrp() {
        try {
            return (int) Proc.GETPGRP.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int kill(long pid, int signal) {
        Buffers b = buffers.get();
        try {
            int r = (int) Proc.KILL.invokeExact(b.state, Math.toIntExact(pid), signal);
            return r == 0 ? 0 : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean pidfdPossible() {
        return pidfdPossible;
    }

    private long syscall(long number, long a1, long a2, long a3, long a4) {
        Buffers b = buffers.get();
        try {
            long r = (long) Proc.SYSCALL.invokeExact(b.state, number, a1, a2, a3, a4);
            return r < 0 ? b.errno() : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int pidfdOpen(long pid) {
        return pidfdPossible ? (int) syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0) : -ENOSYS;
    }

    @Override
    public int pidfdSendSignal(int pidfd, int signal) {
        return pidfdPossible ? (int) syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, signal, 0, 0) : -ENOSYS;
    }

    @Override
    public int openat(int dirfd, byte[] path, int flags) {
        Buffers b = buffers.get();
        if (!b.setPath(path)) {
            return -ENAMETOOLONG;
        }
        try {
            int fd = (int) Files.OPENAT.invokeExact(b.state, dirfd, b.path, flags);
            return fd >= 0 ? fd : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long read(int fd, byte[] buf, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        Buffers b = buffers.get();
        try {
            long n = (long) Files.READ.invokeExact(b.state, fd, b.chunk, (long) Math.min(len, CHUNK));
            if (n < 0) {
                return b.errno();
            }
            MemorySegment.copy(b.chunk, JAVA_BYTE, 0, buf, off, (int) n);
            return n;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int close(int fd) {
        Buffers b = buffers.get();
        try {
            int r = (int) Files.CLOSE.invokeExact(b.state, fd);
            return r == 0 ? 0 : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int statx(int dirfd, byte[] path, int flags, int mask, FileStatus out) {
        Buffers b = buffers.get();
        if (!b.setPath(path)) {
            return -ENAMETOOLONG;
        }
        try {
            int r = (int) Files.STATX.invokeExact(b.state, dirfd, b.path, flags, mask, b.statx);
            if (r != 0) {
                return b.errno();
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        out.decode(b.statxView);
        return 0;
    }

    @Override
    public int poll(int[] fds, short events, short[] revents, int count, int timeoutMs) {
        Buffers b = buffers.get();
        if (b.pollfds.byteSize() < 8L * count) {
            b.pollfds = b.arena.allocate(8L * count, 8);
        }
        MemorySegment p = b.pollfds;
        for (int i = 0; i < count; i++) {
            p.set(JAVA_INT, 8L * i, fds[i]);
            p.set(JAVA_SHORT, 8L * i + 4, events);
            p.set(JAVA_SHORT, 8L * i + 6, (short) 0);
        }
        try {
            int n = (int) Misc.POLL.invokeExact(b.state, p, (long) count, timeoutMs);
            if (n < 0) {
                return b.errno();
            }
            for (int i = 0; i < count; i++) {
                revents[i] = p.get(JAVA_SHORT, 8L * i + 6);
            }
            return n;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int waitid(int idtype, long id, int options, ChildState out) {
        Buffers b = buffers.get();
        b.siginfo.fill((byte) 0);
        try {
            int r = (int) Misc.WAITID.invokeExact(b.state, idtype, Math.toIntExact(id), b.siginfo, options);
            if (r != 0) {
                return b.errno();
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        out.decode(b.siginfoView);
        return 0;
    }

    @Override
    public int pidfdGetInfo(int pidfd, long requestMask, PidfdInfo out) {
        Buffers b = buffers.get();
        b.pidfdInfo.fill((byte) 0);
        b.pidfdInfo.set(JAVA_LONG, 0, requestMask);
        try {
            int r = (int) Misc.IOCTL.invokeExact(b.state, pidfd, PidfdInfo.PIDFD_GET_INFO, b.pidfdInfo);
            if (r != 0) {
                return b.errno();
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        out.decode(b.pidfdInfoView);
        return 0;
    }

    @Override
    public long prctl(int option, long arg2, long arg3, long arg4, long arg5) {
        Buffers b = buffers.get();
        try {
            int r = (int) Misc.PRCTL.invokeExact(b.state, option, arg2, arg3, arg4, arg5);
            return r < 0 ? b.errno() : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int childSubreaper() {
        Buffers b = buffers.get();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment flag = call.allocate(JAVA_INT);
            int r = (int) Misc.PRCTL.invokeExact(b.state, PR_GET_CHILD_SUBREAPER, flag.address(), 0L, 0L, 0L);
            return r < 0 ? b.errno() : flag.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long spawnp(byte[] file, byte[][] argv, byte[][] envp, int outFd, int[] closeFds, short flags) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment fileZ = cString(call, file);
            MemorySegment argvZ = cStrings(call, argv);
            MemorySegment envpZ = cStrings(call, envp);
            MemorySegment pid = call.allocate(JAVA_INT);
            MemorySegment actions = call.allocate(SPAWN_STRUCT_BYTES, 16);
            MemorySegment attr = call.allocate(SPAWN_STRUCT_BYTES, 16);
            int r = (int) Spawn.ACTIONS_INIT.invokeExact(actions);
            if (r != 0) {
                return -r;
            }
            try {
                if (outFd >= 0) {
                    for (int std = 1; std <= 2; std++) {
                        r = (int) Spawn.ACTIONS_ADDDUP2.invokeExact(actions, outFd, std);
                        if (r != 0) {
                            return -r;
                        }
                    }
                }
                for (int fd : closeFds) {
                    r = (int) Spawn.ACTIONS_ADDCLOSE.invokeExact(actions, fd);
                    if (r != 0) {
                        return -r;
                    }
                }
                r = (int) Spawn.ATTR_INIT.invokeExact(attr);
                if (r != 0) {
                    return -r;
                }
                try {
                    r = (int) Spawn.ATTR_SETFLAGS.invokeExact(attr, flags);
                    if (r != 0) {
                        return -r;
                    }
                    r = (int) Spawn.SPAWNP.invokeExact(pid, fileZ, actions, attr, argvZ, envpZ);
                    return r != 0 ? -r : pid.get(JAVA_INT, 0);
                } finally {
                    int ignored = (int) Spawn.ATTR_DESTROY.invokeExact(attr);
                }
            } finally {
                int ignored = (int) Spawn.ACTIONS_DESTROY.invokeExact(actions);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int pipe2(int[] fds, int flags) {
        Buffers b = buffers.get();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment two = call.allocate(JAVA_INT, 2);
            int r = (int) Misc.PIPE2.invokeExact(b.state, two, flags);
            if (r != 0) {
                return b.errno();
            }
            fds[0] = two.get(JAVA_INT, 0);
            fds[1] = two.get(JAVA_INT, 4);
            return 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long sigaction(int signal, long disposition) {
        if (disposition != -1 && disposition != SIG_DFL && disposition != SIG_IGN) {
            throw new IllegalArgumentException("sigaction sets SIG_DFL or SIG_IGN only, not " + disposition);
        }
        Buffers b = buffers.get();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment old = call.allocate(SIGACTION_BYTES, 8);
            MemorySegment act = MemorySegment.NULL;
            if (disposition != -1) {
                act = call.allocate(SIGACTION_BYTES, 8);
                act.set(JAVA_LONG, 0, disposition);
            }
            int r = (int) Misc.SIGACTION.invokeExact(b.state, signal, act, old);
            return r != 0 ? b.errno() : old.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return a C string (the bytes up to the first NUL, and the NUL) in the call's memory */
    private static MemorySegment cString(Arena call, byte[] z) {
        int n = NativeWalls.checkPath(z);
        MemorySegment s = call.allocate(n + 1L);
        MemorySegment.copy(z, 0, s, JAVA_BYTE, 0, n);
        s.set(JAVA_BYTE, n, (byte) 0);
        return s;
    }

    /** @return a {@code NULL}-ended array of C strings in the call's memory */
    private static MemorySegment cStrings(Arena call, byte[][] zs) {
        MemorySegment array = call.allocate(ADDRESS, zs.length + 1L);
        for (int i = 0; i < zs.length; i++) {
            array.setAtIndex(ADDRESS, i, cString(call, zs[i]));
        }
        array.setAtIndex(ADDRESS, zs.length, MemorySegment.NULL);
        return array;
    }

    @Override
    public int statvfs(byte[] path, long[] out) {
        Buffers b = buffers.get();
        if (!b.setPath(path)) {
            return -ENAMETOOLONG;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment buf = call.allocate(128, 8);
            int r = (int) Misc.STATVFS.invokeExact(b.state, b.path, buf);
            if (r != 0) {
                return b.errno();
            }
            for (int i = 0; i < 11; i++) {
                out[i] = buf.get(JAVA_LONG, 8L * i);
            }
            return 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        Buffers b = buffers.get();
        try {
            int fd = (int) Net.SOCKET.invokeExact(b.state, domain, type, protocol);
            return fd >= 0 ? fd : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int setsockopt(int fd, int level, int name, byte[] value, int len) {
        java.util.Objects.checkFromIndexSize(0, len, value.length);
        Buffers b = buffers.get();
        int n = Math.min(len, CHUNK);
        MemorySegment.copy(value, 0, b.chunk, JAVA_BYTE, 0, n);
        try {
            int r = (int) Net.SETSOCKOPT.invokeExact(b.state, fd, level, name, b.chunk, n);
            return r == 0 ? 0 : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int bind(int fd, byte[] address, int len) {
        java.util.Objects.checkFromIndexSize(0, len, address.length);
        Buffers b = buffers.get();
        int n = Math.min(len, CHUNK);
        MemorySegment.copy(address, 0, b.chunk, JAVA_BYTE, 0, n);
        try {
            int r = (int) Net.BIND.invokeExact(b.state, fd, b.chunk, n);
            return r == 0 ? 0 : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long send(int fd, byte[] buf, int off, int len, int flags) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        Buffers b = buffers.get();
        int n = Math.min(len, CHUNK);
        MemorySegment.copy(buf, off, b.chunk, JAVA_BYTE, 0, n);
        try {
            long r = (long) Net.SEND.invokeExact(b.state, fd, b.chunk, (long) n, flags);
            return r >= 0 ? r : b.errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long recv(int fd, byte[] buf, int off, int len, int flags) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        Buffers b = buffers.get();
        try {
            long r = (long) Net.RECV.invokeExact(b.state, fd, b.chunk, (long) Math.min(len, CHUNK), flags);
            if (r < 0) {
                return b.errno();
            }
            MemorySegment.copy(b.chunk, JAVA_BYTE, 0, buf, off, (int) r);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The libc symbols this wall binds. */
    private static final List<String> SYMBOLS = List.of("getpid", "getpgrp", "kill", "syscall", "openat", "read",
            "close", "statx", "poll", "waitid", "ioctl", "prctl", "statvfs", "pipe2", "sigaction", "socket",
            "setsockopt", "bind", "send", "recv", "posix_spawnp", "posix_spawn_file_actions_init",
            "posix_spawn_file_actions_addclose", "posix_spawn_file_actions_adddup2",
            "posix_spawn_file_actions_destroy", "posix_spawnattr_init", "posix_spawnattr_setflags",
            "posix_spawnattr_destroy");

}
