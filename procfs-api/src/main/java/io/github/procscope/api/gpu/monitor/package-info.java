/**
 * Watching GPUs over time: {@link io.github.procscope.api.gpu.monitor.GpuMonitor} samples every GPU at an
 * interval and tells a {@link io.github.procscope.api.gpu.monitor.GpuMonitorListener}; summaries over a window
 * ({@link io.github.procscope.api.gpu.monitor.GpuSummary}), the rule that calls a GPU idle while it holds
 * memory ({@link io.github.procscope.api.gpu.monitor.IdleHoldingRule}), and the {@code nvidia-smi dmon} row
 * format ({@link io.github.procscope.api.gpu.monitor.DmonFormat}).
 */
package io.github.procscope.api.gpu.monitor;
