/**
 * The Linux implementation of the procscope API, kernel-file layer: readers of {@code /proc} and
 * {@code /sys}, one parser per kernel file, each reader rooted at a directory given to it so that tests
 * can read fixture trees. Users reach these readers through {@link io.github.procscope.api.Procscope};
 * this package is not exported by the module.
 *
 * <p>Readers: {@link io.github.procscope.linux.LinuxProcfs} (processes),
 * {@link io.github.procscope.linux.LinuxProcessMemory} (maps, smaps, totals),
 * {@link io.github.procscope.linux.LinuxOpenFiles} (descriptors, deleted-but-open files),
 * {@link io.github.procscope.linux.LinuxSystemResources} (meminfo, cgroup memory, mounts, statvfs, du,
 * diskstats) and {@link io.github.procscope.linux.LinuxKernelLog} (OOM kills). Signals and stops are in
 * {@code io.github.procscope.linux.signals}, the doctor's checks in {@code io.github.procscope.linux.doctor},
 * the jnr bindings in {@code io.github.procscope.linux.internal}.
 *
 * <p>Parsers ({@code …Parser}) are package-private pure functions from a file's bytes to an API record; they
 * throw nothing but {@link io.github.procscope.api.ProcfsParseException} on malformed input.
 *
 * <p>This package also holds the native wall: one contract, {@code NativeWall}, with two back ends chosen at
 * run time ({@code NativeWalls}): the FFM API on JDK 22+ ({@code FfmWall}, compiled for release 22 from
 * {@code src/main/java22}) and jnr-posix/jnr-ffi on JDK 17 to 21 ({@code JnrWall}); the system property
 * {@code procscope.native.backend} ({@code ffm} or {@code jnr}) forces one. Above it sit the call sets the
 * readers use, each with a jnr implementation in {@code io.github.procscope.linux.internal} and one over the
 * wall here: {@code ProcessCalls} ({@code NativeAccess} / {@code WallProcessCalls}, public so that the
 * signal package reaches it), {@code FsCalls} ({@code NativeFs} / {@code WallFs}) and the procfs readers
 * ({@code NativeProcFiles} / {@code WallProcFiles}). Nothing here is API: the module exports this package to
 * no one.
 */
package io.github.procscope.linux;
