package io.github.procscope.api.gpu;

/** The kind of context a process holds on a GPU: which of NVML's three process lists it appears in. */
public enum GpuProcessType {
    /** A compute context, such as a CUDA program ({@code nvmlDeviceGetComputeRunningProcesses}); {@code C} in {@code nvidia-smi}. */
    COMPUTE,
    /** A graphics context, such as OpenGL or Vulkan ({@code nvmlDeviceGetGraphicsRunningProcesses}); {@code G}. */
    GRAPHICS,
    /** A compute context under the Multi-Process Service ({@code nvmlDeviceGetMPSComputeRunningProcesses}); {@code M}. */
    MPS_COMPUTE
}
