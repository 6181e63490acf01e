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
 * dispositions; {@code kill(2)} and pidfds through the native wall),
 * {@link io.github.procscope.linux.PreemptionGuard} (checkpoint-on-preemption for JVM training loops,
 * through {@code sun.misc.Signal}), {@link io.github.procscope.linux.LinuxKernelLog} (OOM kills) and
 * {@link io.github.procscope.linux.LinuxDoctor} (diagnosis).
 *
 * <p>Parsers are package-private pure functions from a file's bytes to an API record; they throw nothing
 * but {@link io.github.procscope.api.ProcfsParseException} on malformed input. Native calls the JDK lacks
 * go through one package-private contract, {@code NativeWall}, with two back ends chosen at run time: the
 * FFM API on JDK 22+ ({@code FfmWall}, compiled for release 22) and jnr-posix/jnr-ffi on JDK 17 to 21
 * ({@code JnrWall}, {@code NativeAccess}, {@code NativeFs}, {@code NativeProcFiles}); the system property
 * {@code procscope.native.backend} ({@code ffm} or {@code jnr}) forces one.
 */
package io.github.procscope.linux;
