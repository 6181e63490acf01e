/**
 * The Linux implementation of the procscope API: readers of {@code /proc} and {@code /sys}, one
 * parser per kernel file, each rooted at a directory given to its constructor so that tests can read
 * fixture trees; and the POSIX signal module.
 *
 * <p>Entry points: {@link io.github.procscope.linux.LinuxProcfs} (processes),
 * {@link io.github.procscope.linux.LinuxProcessMemory} (maps, smaps, totals),
 * {@link io.github.procscope.linux.LinuxOpenFiles} (descriptors, deleted-but-open files),
 * {@link io.github.procscope.linux.LinuxSystemResources} (meminfo, cgroup memory, mounts, statvfs, du,
 * diskstats), {@link io.github.procscope.linux.LinuxSignals} (sending signals, graceful stops,
 * dispositions; {@code kill(2)} through jnr-posix, waiting on pidfds),
 * {@link io.github.procscope.linux.PreemptionGuard} (checkpoint-on-preemption for JVM training loops,
 * through {@code sun.misc.Signal}), {@link io.github.procscope.linux.LinuxKernelLog} (OOM kills) and
 * {@link io.github.procscope.linux.LinuxDoctor} (diagnosis).
 *
 * <p>Parsers are package-private pure functions from a file's bytes to an API record; they throw nothing
 * but {@link io.github.procscope.api.ProcfsParseException} on malformed input. Native calls the JDK lacks
 * are confined to the package-private {@code NativeAccess}.
 */
package io.github.procscope.linux;
