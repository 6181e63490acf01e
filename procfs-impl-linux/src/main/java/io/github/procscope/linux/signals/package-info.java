/**
 * Signals and stops on Linux: {@link io.github.procscope.linux.signals.LinuxSignals} (sending signals that
 * never reach a recycled pid, dispositions), {@code GracefulStop} (TERM, wait, KILL for one process, a group
 * or a tree), {@code ExitWaiter} (waiting on pidfds), and this JVM's own handlers:
 * {@link io.github.procscope.linux.signals.GuardInstaller} installs a
 * {@link io.github.procscope.api.signals.PreemptionGuard} through {@code sun.misc.Signal}.
 */
package io.github.procscope.linux.signals;
