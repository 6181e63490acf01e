package io.github.procscope.api;

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
    CGROUP
}
