/**
 * The Linux implementation of the procscope API: readers of {@code /proc} and {@code /sys}, one
 * parser per kernel file, each rooted at a directory given to its constructor so that tests can read
 * fixture trees; and the POSIX signal module.
 *
 * <p>Entry points: {@link io.github.procscope.linux.LinuxProcfs} (processes),
 * {@link io.github.procscope.linux.LinuxSignals} (sending signals, graceful stops, dispositions;
 * {@code kill(2)} through jnr-posix, waiting on pidfds) and
 * {@link io.github.procscope.linux.PreemptionGuard} (checkpoint-on-preemption for JVM training loops,
 * through {@code sun.misc.Signal}). Parsers are package-private pure functions from a file's bytes to
 * an API record; they throw nothing but {@link io.github.procscope.api.ProcfsParseException} on
 * malformed input. Native calls are confined to the package-private {@code NativeAccess}.
 */
package io.github.procscope.linux;
