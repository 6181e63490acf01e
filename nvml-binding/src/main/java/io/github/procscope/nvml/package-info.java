/**
 * NVIDIA NVML through JNA: the implementation of {@link io.github.procscope.api.gpu.Gpus}.
 *
 * <p>Three layers, as NVIDIA's own Go binding has them. A raw binding that mirrors {@code nvml.h}
 * (package-private: {@code NvmlNative} and the structures of {@code NvmlStructs}). A safe wrapper
 * (package-private but for {@link io.github.procscope.nvml.NvmlGpus}): {@code NvmlLibrary} checks and loads
 * the library and reference-counts {@code nvmlInit_v2}/{@code nvmlShutdown}; {@code NvmlFunctions} resolves
 * each versioned symbol family once, at load, into a typed handle ({@code NvmlFunction}); each device is read
 * by one small part per concern (identity and the call discipline, sampling, processes with their buffer-size
 * loops, GPM). And the public types of {@code io.github.procscope.api.gpu}, which know nothing of JNA.
 *
 * <p>Reached through the front door only: {@code Procscope.openGpus()} finds {@code NvmlGpusProvider} through
 * {@link java.util.ServiceLoader}. {@code WindowedGpuMonitor} runs the monitor that
 * {@link io.github.procscope.api.gpu.Gpus#monitor} hands out, on a daemon thread of its own.
 * {@link io.github.procscope.nvml.DeviceFileScanner} finds processes holding {@code /dev/nvidia*} open, through
 * {@link io.github.procscope.api.files.OpenFiles}.
 */
package io.github.procscope.nvml;
