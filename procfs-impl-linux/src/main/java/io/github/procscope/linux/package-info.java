/**
 * The Linux implementation of the procscope API: readers of {@code /proc} and {@code /sys}, one
 * parser per kernel file, each rooted at a directory given to its constructor so that tests can read
 * fixture trees.
 *
 * <p>Entry points: {@link io.github.procscope.linux.LinuxProcfs} (processes),
 * {@link io.github.procscope.linux.LinuxProcessMemory} (maps, smaps, totals),
 * {@link io.github.procscope.linux.LinuxOpenFiles} (descriptors, deleted-but-open files) and
 * {@link io.github.procscope.linux.LinuxSystemResources} (meminfo, cgroup memory, mounts, statvfs, du,
 * diskstats). Native calls the JDK lacks ({@code statvfs}, {@code stat} with block counts) go through one
 * package-private class, {@code NativeFs}, that wraps jnr-posix and jnr-ffi. Parsers are package-private pure
 * functions from a file's bytes to an API record; they throw nothing but
 * {@link io.github.procscope.api.ProcfsParseException} on malformed input.
 */
package io.github.procscope.linux;
