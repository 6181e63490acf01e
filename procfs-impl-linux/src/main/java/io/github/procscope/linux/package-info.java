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
 * the native calls in {@code io.github.procscope.linux.internal}.
 *
 * <p>Parsers ({@code …Parser}) are package-private pure functions from a file's bytes to an API record; they
 * throw nothing but {@link io.github.procscope.api.ProcfsParseException} on malformed input.
 */
package io.github.procscope.linux;
