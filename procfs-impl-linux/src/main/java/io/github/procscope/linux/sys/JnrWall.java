package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.JffiStub;
import io.github.procscope.linux.sys.internal.WallLibC;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.util.DefaultPOSIXHandler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The native wall through jnr, for JDK 17 to 21: jnr-posix's native POSIX binding (never its pure-Java
 * fallback, which fakes or refuses most calls) for the calls it has with the wall's meaning ({@code getpid},
 * {@code getpgrp}, {@code kill}, {@code close}), and jnr-ffi ({@link WallLibC}) for the rest: the calls
 * jnr-posix lacks ({@code statx}, {@code pidfd_open}, {@code poll}, {@code waitid}, {@code ioctl}, {@code prctl},
 * {@code statvfs}, {@code pipe2}, {@code sigaction}, the socket calls) and those that take a path or a command
 * line, which the wall passes as C strings (jnr-posix takes Java strings and encodes them itself). Both are
 * bound once, by {@link NativeWalls} only, each generating its bytecode with jffi's native stub
 * ({@link JffiStub}). The native memory a call needs is kept per thread. See {@link NativeWall} for the
 * contract.
 */
final class JnrWall implements NativeWall {
    private static final int CHUNK = 16 * 1024;
    /** The per-thread native buffer for a path: {@code PATH_MAX}. */
    private static final int PATH_BYTES = 4096;
    /** A path's bytes read eight at a time, in the machine's order, as they are written to native memory. */
    private static final VarHandle PATH_WORDS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    /**
     * Room for glibc's opaque {@code posix_spawn_file_actions_t} (80 bytes on 64-bit Linux) and
     * {@code posix_spawnattr_t} (336 bytes), with a wide margin.
     */
    private static final int SPAWN_STRUCT_BYTES = 1024;

    private final POSIX posix;
    private final WallLibC libc;
    private final jnr.ffi.Runtime runtime;
    private final boolean pidfdPossible;
    private final ThreadLocal<Buffers> buffers;

    /** The per-thread native memory, and Java arrays to decode it from. */
    private static final class Buffers {
        final Pointer chunk;
        /** A path of at most {@link #PATH_BYTES} bytes, its NUL included, for the calls that take one. */
        final Pointer path;
        final Pointer statx;
        final Pointer siginfo;
        final byte[] statxBytes = new byte[FileStatus.STATX_BYTES];
        final byte[] siginfoBytes = new byte[ChildState.SIGINFO_BYTES];
        final Pointer pidfdInfo;
        final byte[] pidfdInfoBytes = new byte[PidfdInfo.BYTES];

        Buffers(jnr.ffi.Runtime rt) {
            chunk = Memory.allocateDirect(rt, CHUNK);
            path = Memory.allocateDirect(rt, PATH_BYTES);
            statx = Memory.allocateDirect(rt, FileStatus.STATX_ALLOC);
            siginfo = Memory.allocateDirect(rt, ChildState.SIGINFO_BYTES);
            pidfdInfo = Memory.allocateDirect(rt, PidfdInfo.BYTES);
        }
    }

    private JnrWall(POSIX posix, WallLibC libc, boolean pidfdPossible) {
        this.posix = posix;
        this.libc = libc;
        this.runtime = jnr.ffi.Runtime.getRuntime(libc);
        this.pidfdPossible = pidfdPossible;
        this.buffers = ThreadLocal.withInitial(() -> new Buffers(runtime));
    }

    /**
     * Binds the C library; called by {@link NativeWalls} alone.
     *
     * @throws IllegalStateException naming the cause if it cannot be bound here
     */
    static JnrWall load(boolean pidfdPossible) {
        POSIX posix;
        WallLibC libc;
        try {
            JffiStub.prepare(); // jffi's stub from a private cache, not java.io.tmpdir
            posix = POSIXFactory.getNativePOSIX(new DefaultPOSIXHandler());
            libc = LibraryLoader.create(WallLibC.class).failImmediately().load("c");
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException("cannot load the native C library through jnr-posix and jnr-ffi (" + e
                    + "). jnr-ffi needs its jffi native stub for " + System.getProperty("os.arch")
                    + ", extracted to java.io.tmpdir (" + System.getProperty("java.io.tmpdir")
                    + "), which must allow executing files (not mounted noexec); check also the"
                    + " jnr.ffi.provider and jffi.boot.library.path system properties", e);
        }
        if (posix == null || !posix.isNative()) {
            throw new IllegalStateException("jnr-posix offered no native POSIX implementation for "
                    + System.getProperty("os.arch") + "; its pure-Java fallback is not used");
        }
        JnrWall wall = new JnrWall(posix, libc, pidfdPossible);
        long pid = wall.getpid();
        long ffiPid = libc.getpid();
        if (pid != ProcessHandle.current().pid() || ffiPid != pid) {
            throw new IllegalStateException("jnr-posix's getpid() returned " + pid + " and jnr-ffi's " + ffiPid
                    + " but this JVM is pid " + ProcessHandle.current().pid() + ": the native binding is not usable");
        }
        return wall;
    }

    private int errno() {
        return -Math.max(1, runtime.getLastError());
    }

    @Override
    public String name() {
        return "jnr";
    }

    /** @return minus the errno of jnr-posix's last failed call on this thread (at least 1) */
    private int posixErrno() {
        return -Math.max(1, posix.errno());
    }

    @Override
    public long getpid() {
        return posix.getpid();
    }

    @Override
    public long getpgrp() {
        return posix.getpgrp();
    }

    @Override
    public int kill(long pid, int signal) {
        return posix.kill(Math.toIntExact(pid), signal) == 0 ? 0 : posixErrno();
    }

    @Override
    public boolean pidfdPossible() {
        return pidfdPossible;
    }

    @Override
    public int pidfdOpen(long pid) {
        if (!pidfdPossible) {
            return -ENOSYS;
        }
        long fd = libc.syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0);
        return fd < 0 ? errno() : (int) fd;
    }

    @Override
    public int pidfdSendSignal(int pidfd, int signal) {
        if (!pidfdPossible) {
            return -ENOSYS;
        }
        return libc.syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, signal, 0, 0) == 0 ? 0 : errno();
    }

    @Override
    public int openat(int dirfd, byte[] path, int flags) {
        Pointer p = nativePath(path, buffers.get());
        int fd = libc.openat(dirfd, p, flags);
        Reference.reachabilityFence(p); // memory of its own for a long path is freed once unreachable
        return fd >= 0 ? fd : errno();
    }

    /**
     * Copies a path, its NUL included, into native memory: the per-thread buffer when it fits (eight bytes at a
     * time, through jnr's memory access, where passing the array would cost jffi a copy of its own and a
     * heavier call), else memory of its own. A call that takes only numbers and addresses is jffi's fastest.
     */
    private Pointer nativePath(byte[] path, Buffers b) {
        int n = NativeWalls.checkPath(path) + 1;
        if (n > PATH_BYTES) {
            Pointer own = Memory.allocateDirect(runtime, n);
            own.put(0, path, 0, n);
            return own;
        }
        Pointer p = b.path;
        int i = 0;
        for (; i + Long.BYTES <= n; i += Long.BYTES) {
            p.putLong(i, (long) PATH_WORDS.get(path, i));
        }
        for (; i < n; i++) {
            p.putByte(i, path[i]);
        }
        return p;
    }

    @Override
    public long read(int fd, byte[] buf, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        Pointer chunk = buffers.get().chunk;
        long n = libc.read(fd, chunk, Math.min(len, CHUNK));
        if (n < 0) {
            return errno();
        }
        chunk.get(0, buf, off, (int) n);
        return n;
    }

    @Override
    public int close(int fd) {
        return posix.close(fd) == 0 ? 0 : posixErrno();
    }

    @Override
    public int statx(int dirfd, byte[] path, int flags, int mask, FileStatus out) {
        Buffers b = buffers.get();
        Pointer p = nativePath(path, b);
        int r = libc.statx(dirfd, p, flags, mask, b.statx);
        Reference.reachabilityFence(p);
        if (r != 0) {
            return errno();
        }
        b.statx.get(0, b.statxBytes, 0, b.statxBytes.length);
        out.decode(ByteBuffer.wrap(b.statxBytes).order(ByteOrder.nativeOrder()));
        return 0;
    }

    @Override
    public int poll(int[] fds, short events, short[] revents, int count, int timeoutMs) {
        Pointer p = Memory.allocateDirect(runtime, 8 * Math.max(1, count));
        for (int i = 0; i < count; i++) {
            p.putInt(8L * i, fds[i]);
            p.putShort(8L * i + 4, events);
            p.putShort(8L * i + 6, (short) 0);
        }
        int n = libc.poll(p, count, timeoutMs);
        if (n < 0) {
            return errno();
        }
        for (int i = 0; i < count; i++) {
            revents[i] = p.getShort(8L * i + 6);
        }
        return n;
    }

    @Override
    public int waitid(int idtype, long id, int options, ChildState out) {
        Buffers b = buffers.get();
        b.siginfo.setMemory(0, ChildState.SIGINFO_BYTES, (byte) 0);
        if (libc.waitid(idtype, Math.toIntExact(id), b.siginfo, options) != 0) {
            return errno();
        }
        b.siginfo.get(0, b.siginfoBytes, 0, b.siginfoBytes.length);
        out.decode(ByteBuffer.wrap(b.siginfoBytes).order(ByteOrder.nativeOrder()));
        return 0;
    }

    @Override
    public int pidfdGetInfo(int pidfd, long requestMask, PidfdInfo out) {
        Buffers b = buffers.get();
        b.pidfdInfo.setMemory(0, PidfdInfo.BYTES, (byte) 0);
        b.pidfdInfo.putLong(0, requestMask);
        if (libc.ioctl(pidfd, PidfdInfo.PIDFD_GET_INFO, b.pidfdInfo) != 0) {
            return errno();
        }
        b.pidfdInfo.get(0, b.pidfdInfoBytes, 0, PidfdInfo.BYTES);
        out.decode(ByteBuffer.wrap(b.pidfdInfoBytes).order(ByteOrder.nativeOrder()));
        return 0;
    }

    @Override
    public long prctl(int option, long arg2, long arg3, long arg4, long arg5) {
        int r = libc.prctl(option, arg2, arg3, arg4, arg5);
        return r < 0 ? errno() : r;
    }

    @Override
    public int childSubreaper() {
        Pointer flag = Memory.allocateDirect(runtime, 8);
        flag.putInt(0, 0);
        int r = libc.prctl(PR_GET_CHILD_SUBREAPER, flag.address(), 0, 0, 0);
        return r < 0 ? errno() : flag.getInt(0);
    }

    @Override
    public long spawnp(byte[] file, byte[][] argv, byte[][] envp, int outFd, int[] closeFds, short flags) {
        NativeWalls.checkPath(file);
        java.util.List<Pointer> strings = new java.util.ArrayList<>(); // kept reachable until the call returns
        Pointer argvZ = cStrings(argv, strings);
        Pointer envpZ = cStrings(envp, strings);
        Pointer actions = Memory.allocateDirect(runtime, SPAWN_STRUCT_BYTES);
        Pointer attr = Memory.allocateDirect(runtime, SPAWN_STRUCT_BYTES);
        int r = libc.posix_spawn_file_actions_init(actions);
        if (r != 0) {
            return -r;
        }
        try {
            if (outFd >= 0) {
                for (int std = 1; std <= 2; std++) {
                    r = libc.posix_spawn_file_actions_adddup2(actions, outFd, std);
                    if (r != 0) {
                        return -r;
                    }
                }
            }
            for (int fd : closeFds) {
                r = libc.posix_spawn_file_actions_addclose(actions, fd);
                if (r != 0) {
                    return -r;
                }
            }
            r = libc.posix_spawnattr_init(attr);
            if (r != 0) {
                return -r;
            }
            try {
                r = libc.posix_spawnattr_setflags(attr, flags);
                if (r != 0) {
                    return -r;
                }
                int[] pid = new int[1];
                r = libc.posix_spawnp(pid, file, actions, attr, argvZ, envpZ);
                return r != 0 ? -r : pid[0];
            } finally {
                libc.posix_spawnattr_destroy(attr);
            }
        } finally {
            libc.posix_spawn_file_actions_destroy(actions);
            java.lang.ref.Reference.reachabilityFence(strings);
        }
    }

    @Override
    public int pipe2(int[] fds, int flags) {
        int[] two = new int[2];
        if (libc.pipe2(two, flags) != 0) {
            return errno();
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

    @Override
    public long sigaction(int signal, long disposition) {
        if (disposition != -1 && disposition != SIG_DFL && disposition != SIG_IGN) {
            throw new IllegalArgumentException("sigaction sets SIG_DFL or SIG_IGN only, not " + disposition);
        }
        Pointer old = Memory.allocateDirect(runtime, SIGACTION_BYTES);
        old.setMemory(0, SIGACTION_BYTES, (byte) 0);
        Pointer act = null;
        if (disposition != -1) {
            act = Memory.allocateDirect(runtime, SIGACTION_BYTES);
            act.setMemory(0, SIGACTION_BYTES, (byte) 0);
            act.putLong(0, disposition);
        }
        if (libc.sigaction(signal, act, old) != 0) {
            return errno();
        }
        return old.getLong(0);
    }

    /** @return a {@code NULL}-ended array of C strings in native memory, each string added to {@code keep} */
    private Pointer cStrings(byte[][] zs, java.util.List<Pointer> keep) {
        Pointer array = Memory.allocateDirect(runtime, 8L * (zs.length + 1));
        for (int i = 0; i < zs.length; i++) {
            int n = NativeWalls.checkPath(zs[i]);
            Pointer s = Memory.allocateDirect(runtime, n + 1);
            s.put(0, zs[i], 0, n);
            s.putByte(n, (byte) 0);
            keep.add(s);
            array.putPointer(8L * i, s);
        }
        array.putAddress(8L * zs.length, 0L);
        keep.add(array);
        return array;
    }

    @Override
    public int statvfs(byte[] path, long[] out) {
        NativeWalls.checkPath(path);
        Pointer buf = Memory.allocateDirect(runtime, 128);
        if (libc.statvfs(path, buf) != 0) {
            return errno();
        }
        for (int i = 0; i < 11; i++) {
            out[i] = buf.getLong(8L * i);
        }
        return 0;
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        int fd = libc.socket(domain, type, protocol);
        return fd >= 0 ? fd : errno();
    }

    @Override
    public int setsockopt(int fd, int level, int name, byte[] value, int len) {
        java.util.Objects.checkFromIndexSize(0, len, value.length);
        return libc.setsockopt(fd, level, name, value, len) == 0 ? 0 : errno();
    }

    @Override
    public int bind(int fd, byte[] address, int len) {
        java.util.Objects.checkFromIndexSize(0, len, address.length);
        return libc.bind(fd, address, len) == 0 ? 0 : errno();
    }

    @Override
    public long send(int fd, byte[] buf, int off, int len, int flags) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        byte[] part = java.util.Arrays.copyOfRange(buf, off, off + Math.min(len, CHUNK));
        long n = libc.send(fd, part, part.length, flags);
        return n >= 0 ? n : errno();
    }

    @Override
    public long recv(int fd, byte[] buf, int off, int len, int flags) {
        java.util.Objects.checkFromIndexSize(off, len, buf.length);
        Pointer chunk = buffers.get().chunk;
        long n = libc.recv(fd, chunk, Math.min(len, CHUNK), flags);
        if (n < 0) {
            return errno();
        }
        chunk.get(0, buf, off, (int) n);
        return n;
    }
}
