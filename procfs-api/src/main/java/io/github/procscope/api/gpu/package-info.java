/**
 * NVIDIA GPUs as typed, immutable values: what {@code nvidia-smi}, {@code nvidia-smi dmon} and
 * {@code nvidia-smi --query-compute-apps} show, read through NVML by an implementation module
 * ({@code nvml-binding}).
 *
 * <p>Entry point: {@link io.github.procscope.api.Procscope#openGpus()}, which returns an inventory of
 * {@link io.github.procscope.api.gpu.GpuDevice}s or throws
 * {@link io.github.procscope.api.gpu.GpuUnavailableException} with the reason (no library, driver not
 * loaded, driver/library mismatch, no permission, no devices).
 *
 * <p>What to read where:
 * <ul>
 *   <li>{@link io.github.procscope.api.gpu.GpuSample}: utilization, memory, temperature, power, energy,
 *       clocks, performance state, fan, clock event reasons, ECC counts. <b>Utilization is a duty
 *       cycle</b>: the fraction of time at least one kernel ran, not how much of the GPU the kernels
 *       used; {@link io.github.procscope.api.gpu.GpmMetrics} (Hopper and newer) measures SM activity
 *       and occupancy.</li>
 *   <li>{@link io.github.procscope.api.gpu.GpuProcesses}: who holds a GPU and how much memory each uses;
 *       {@link io.github.procscope.api.gpu.GpuUser} joins them with the process table to find the run
 *       each belongs to and ghosts whose parent is gone.</li>
 *   <li>{@link io.github.procscope.api.gpu.GpuMonitor}: sampling over a window, summaries, the
 *       idle-holding verdict, {@code dmon}-style rows ({@link io.github.procscope.api.gpu.DmonFormat}).</li>
 * </ul>
 *
 * <p>Watching over time: {@link io.github.procscope.api.gpu.GpuMonitor} samples every GPU at an interval and
 * tells a {@link io.github.procscope.api.gpu.GpuMonitorListener}; summaries over a window
 * ({@link io.github.procscope.api.gpu.GpuSummary}), the rule that calls a GPU idle while it holds memory
 * ({@link io.github.procscope.api.gpu.IdleHoldingRule}).
 *
 * <p>A metric the GPU or driver does not offer is empty, never {@code -1} or {@code 0}. NVML failures
 * other than "not supported" and "no permission" are {@link io.github.procscope.api.gpu.NvmlException}s
 * naming the function, the GPU, the code and NVML's message.
 */
package io.github.procscope.api.gpu;
