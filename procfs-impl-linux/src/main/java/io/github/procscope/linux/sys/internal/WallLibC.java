package io.github.procscope.linux.sys.internal;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.Variadic;

/**
 * The libc calls of the jnr back end of the native wall ({@code io.github.procscope.linux.sys.JnrWall}) that it
 * makes through jnr-ffi (the others it makes through jnr-posix), as jnr-ffi binds them; {@code getpid} only to
 * check that both bindings see this JVM. Here, in the package exported for jnr-ffi's generated stubs, because those stubs must
 * see the interface they implement. Not API.
 */
@SuppressWarnings("exports") // exported for jnr-ffi's generated stubs alone (package-info): not API
public interface WallLibC {
    int getpid();

    @Variadic(fixedCount = 1)
    long syscall(long number, long arg1, long arg2, long arg3, long arg4);

    int openat(int dirfd, Pointer path, int flags);

    long read(int fd, Pointer buf, long count);

    int statx(int dirfd, Pointer path, int flags, int mask, @Out Pointer buf);

    int poll(Pointer fds, long nfds, int timeout);

    int waitid(int idtype, int id, Pointer infop, int options);

    @Variadic(fixedCount = 2)
    int ioctl(int fd, long request, Pointer arg);

    @Variadic(fixedCount = 1)
    int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    int statvfs(@In byte[] path, @Out Pointer buf);

    int posix_spawn_file_actions_init(Pointer actions);

    int posix_spawn_file_actions_addclose(Pointer actions, int fd);

    int posix_spawn_file_actions_adddup2(Pointer actions, int fd, int newfd);

    int posix_spawn_file_actions_destroy(Pointer actions);

    int pipe2(@Out int[] fds, int flags);

    int sigaction(int signal, Pointer act, Pointer oldact);

    int posix_spawnattr_init(Pointer attr);

    int posix_spawnattr_setflags(Pointer attr, short flags);

    int posix_spawnattr_destroy(Pointer attr);

    int posix_spawnp(@Out int[] pid, @In byte[] file, Pointer actions, Pointer attr, Pointer argv, Pointer envp);

    int socket(int domain, int type, int protocol);

    int setsockopt(int fd, int level, int name, @In byte[] value, int len);

    int bind(int fd, @In byte[] address, int len);

    long send(int fd, @In byte[] buf, long len, int flags);

    long recv(int fd, Pointer buf, long len, int flags);
}
