/**
 * Signals as actions and as facts: sending a signal to a process identified by pid and start time,
 * stopping a process, a process group or a whole tree gracefully (TERM, a grace period, then KILL),
 * decoding why a process ended ({@link io.github.procscope.api.signals.ExitStatus}), and reading how a
 * process will react to a signal ({@link io.github.procscope.api.signals.Dispositions}).
 *
 * <p>Entry points: {@link io.github.procscope.api.Procscope#signals()} (the Linux implementation is in
 * {@code procfs-impl-linux}), and {@link io.github.procscope.api.Procscope#preemptionGuard} for this JVM's own
 * TERM ({@link io.github.procscope.api.signals.PreemptionGuard}).
 *
 * <p>Safety rules every implementation keeps:
 * <ul>
 *   <li>A process is named by its {@link io.github.procscope.api.core.ProcessKey} (pid and start time, and
 *       where the kernel gives one, its pidfs inode). Its identity is checked immediately before each
 *       signal, through the same pidfd the signal is then sent through where the kernel has pidfds; when
 *       it differs, the pid was recycled and nothing is sent
 *       ({@link io.github.procscope.api.signals.SendResult.Outcome#PID_REUSED}).</li>
 *   <li>A pid or process group id at or below 0 is refused with {@link IllegalArgumentException}:
 *       {@code kill(0, sig)} signals the caller's own group and {@code kill(-1, sig)} every process the
 *       caller may signal.</li>
 *   <li>The calling JVM itself, its ancestors, and a process group or tree that contains one of them, is
 *       refused unless the {@link io.github.procscope.api.signals.Signals} was obtained through
 *       {@link io.github.procscope.api.signals.Signals#allowingSelf()}; PID 1 of the caller's PID namespace
 *       unless through {@link io.github.procscope.api.signals.Signals#allowingInit()}; kernel threads
 *       always.</li>
 * </ul>
 */
package io.github.procscope.api.signals;
