/**
 * Signals and stops on Linux: {@link io.github.procscope.linux.signals.LinuxSignals} (sending signals that
 * never reach a recycled pid, dispositions), {@code GracefulStop} (TERM, wait, KILL for one process, a group
 * or a tree) and {@code ExitWaiter} (waiting on pidfds). The JVM-side guard,
 * {@link io.github.procscope.api.signals.PreemptionGuard}, lives in the API for now (its handlers are installed
 * through {@code sun.misc.Signal}).
 */
package io.github.procscope.linux.signals;
