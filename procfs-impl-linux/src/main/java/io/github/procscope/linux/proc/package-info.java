/**
 * The readers of {@code /proc} and {@code /sys}, each rooted at a directory given to it so that tests can read
 * fixture trees: {@link io.github.procscope.linux.proc.LinuxProcfs} (processes, threads, process trees),
 * {@link io.github.procscope.linux.proc.LinuxProcessMemory} (maps, smaps, totals),
 * {@link io.github.procscope.linux.proc.LinuxOpenFiles} (descriptors, deleted-but-open files),
 * {@link io.github.procscope.linux.proc.LinuxSystemResources} (meminfo, cgroup memory, mounts, statvfs, du,
 * diskstats) and {@link io.github.procscope.linux.proc.LinuxKernelLog} (OOM kills), with their helpers (job
 * trees, descriptor counts, user and terminal names). They read through the {@code sys} floor and parse with
 * the {@code parse} floor.
 */
package io.github.procscope.linux.proc;
