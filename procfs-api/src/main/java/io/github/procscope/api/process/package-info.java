/**
 * Processes and threads as {@code ps}, {@code top} and {@code pstree} show them: the
 * {@link io.github.procscope.api.process.ProcessTable} reader ({@code Procscope.processes()}), one process
 * ({@link io.github.procscope.api.process.ProcessInfo}: stat, statm, status, io, owner and cgroup), a
 * consistent {@link io.github.procscope.api.process.ProcessSnapshot} with its
 * {@link io.github.procscope.api.process.ProcessTree} (orphans, zombies, adopted processes), CPU usage between
 * two snapshots ({@link io.github.procscope.api.process.CpuUsage}), threads and resource limits.
 *
 * <p>What a reader reads beyond {@code stat} and {@code statm} is chosen with
 * {@link io.github.procscope.api.process.Facet}s: each costs one more file per process.
 */
package io.github.procscope.api.process;
