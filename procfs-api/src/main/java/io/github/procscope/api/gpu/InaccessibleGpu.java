package io.github.procscope.api.gpu;

import java.util.Objects;

/**
 * A GPU that NVML counts but this process may not open ({@code nvmlDeviceGetHandleByIndex_v2} failed),
 * typically {@code NVML_ERROR_NO_PERMISSION} when a container or cgroup hides the device file.
 *
 * @param index      the NVML index of the GPU
 * @param nvmlReturn the code NVML returned for it
 * @param message    what went wrong and what the user can do
 */
public record InaccessibleGpu(int index, NvmlReturn nvmlReturn, String message) {
    /** Checks that no component is null. */
    public InaccessibleGpu {
        Objects.requireNonNull(nvmlReturn, "nvmlReturn");
        Objects.requireNonNull(message, "message");
    }
}
