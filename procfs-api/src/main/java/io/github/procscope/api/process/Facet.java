package io.github.procscope.api.process;

/**
 * Extra facts a snapshot may read per process, beyond {@code /proc/PID/stat}, {@code /proc/PID/statm}
 * and the owner. Each facet asked for costs one more file read per process.
 */
public enum Facet {
    /** {@code /proc/PID/cmdline}: the full argument vector ({@link ProcessInfo#cmdline()}). */
    CMDLINE,
    /**
     * {@code /proc/PID/status}: RSS split into anonymous, file and shared memory, swap, signal masks,
     * namespace pids, ids, context switches ({@link ProcessInfo#status()}).
     */
    STATUS,
    /**
     * {@code /proc/PID/cgroup}: the cgroup paths, v2 and per v1 controller, and the container, pod, Slurm job
     * or systemd unit they name ({@link ProcessInfo#cgroup()}, {@link ProcessInfo#owner()}).
     */
    CGROUP,
    /**
     * {@code /proc/PID/io}: the process's I/O counters ({@link ProcessInfo#io()}); readable only for the caller's
     * own processes unless it is root, absent for the others.
     */
    IO,
    /**
     * The number of entries of {@code /proc/PID/fd}: how many file descriptors the process holds open
     * ({@link ProcessInfo#openFds()}). No link is read: on Linux 6.2+ the count is the size the kernel gives the
     * directory, elsewhere the directory is listed; the caller's own processes unless it is root.
     */
    FDS,
    /**
     * {@code /proc/PID/task/TID/wchan}, for {@link ProcessTable#threads(long, java.util.Set)} only: the kernel
     * function each thread sleeps in ({@link ThreadInfo#wchan()}). A process snapshot does not read it.
     */
    WCHAN
}
