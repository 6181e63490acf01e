/**
 * NVIDIA NVML through JNA: the implementation of {@link io.github.procscope.api.gpu.Gpus}.
 *
 * <p>Three layers, as NVIDIA's own Go binding has them: a raw binding that mirrors {@code nvml.h}
 * (package-private: {@code NvmlNative} and the structures of {@code NvmlStructs}); a safe wrapper that owns
 * loading, symbol probing, reference-counted {@code nvmlInit_v2}/{@code nvmlShutdown}, the buffer-size
 * loops and the error translation ({@link io.github.procscope.nvml.NvmlGpus}); and the public types of
 * {@code io.github.procscope.api.gpu}, which know nothing of JNA.
 *
 * <p>Use {@link io.github.procscope.api.gpu.Gpus#open()}, or {@link io.github.procscope.nvml.NvmlGpus#builder()}
 * to name the library file or the procfs root explicitly.
 * {@link io.github.procscope.nvml.DeviceFileScanner} finds processes holding {@code /dev/nvidia*} open.
 */
package io.github.procscope.nvml;
