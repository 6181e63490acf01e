package io.github.procscope.api.gpu;

import java.util.HashMap;
import java.util.Map;

/**
 * Every return code of NVML's {@code nvmlReturn_t} ({@code nvml.h}), by name, with its numeric value.
 * {@link #UNRECOGNIZED} stands for a value this version does not know (a newer driver); the raw value
 * is then kept by {@link NvmlException#rawCode()}.
 */
public enum NvmlReturn {
    /** {@code NVML_SUCCESS} (0): the operation was successful. */
    SUCCESS(0, "NVML_SUCCESS", ""),
    /** {@code NVML_ERROR_UNINITIALIZED} (1): NVML was not initialized with {@code nvmlInit}. */
    UNINITIALIZED(1, "NVML_ERROR_UNINITIALIZED", "NVML was used outside an open inventory"),
    /** {@code NVML_ERROR_INVALID_ARGUMENT} (2): a supplied argument is invalid. */
    INVALID_ARGUMENT(2, "NVML_ERROR_INVALID_ARGUMENT", "the handle or argument was refused by the driver"),
    /** {@code NVML_ERROR_NOT_SUPPORTED} (3): the operation is not available on this device. */
    NOT_SUPPORTED(3, "NVML_ERROR_NOT_SUPPORTED", "this GPU or driver does not offer it"),
    /** {@code NVML_ERROR_NO_PERMISSION} (4): the current user does not have permission. */
    NO_PERMISSION(4, "NVML_ERROR_NO_PERMISSION",
            "run as root or as a user allowed to open the /dev/nvidia* device files"),
    /** {@code NVML_ERROR_ALREADY_INITIALIZED} (5): deprecated; initialization is reference counted. */
    ALREADY_INITIALIZED(5, "NVML_ERROR_ALREADY_INITIALIZED", ""),
    /** {@code NVML_ERROR_NOT_FOUND} (6): a query to find an object was unsuccessful. */
    NOT_FOUND(6, "NVML_ERROR_NOT_FOUND", ""),
    /** {@code NVML_ERROR_INSUFFICIENT_SIZE} (7): an input argument is not large enough. */
    INSUFFICIENT_SIZE(7, "NVML_ERROR_INSUFFICIENT_SIZE", ""),
    /** {@code NVML_ERROR_INSUFFICIENT_POWER} (8): the device's external power cables are not attached. */
    INSUFFICIENT_POWER(8, "NVML_ERROR_INSUFFICIENT_POWER", "check the GPU's power cables"),
    /** {@code NVML_ERROR_DRIVER_NOT_LOADED} (9): the NVIDIA driver is not loaded. */
    DRIVER_NOT_LOADED(9, "NVML_ERROR_DRIVER_NOT_LOADED",
            "load the nvidia kernel module (is there a GPU on this machine?)"),
    /** {@code NVML_ERROR_TIMEOUT} (10): a timeout passed. */
    TIMEOUT(10, "NVML_ERROR_TIMEOUT", ""),
    /** {@code NVML_ERROR_IRQ_ISSUE} (11): the kernel detected an interrupt issue with a GPU. */
    IRQ_ISSUE(11, "NVML_ERROR_IRQ_ISSUE", "check the kernel log for NVRM messages"),
    /** {@code NVML_ERROR_LIBRARY_NOT_FOUND} (12): a shared library NVML needs could not be loaded. */
    LIBRARY_NOT_FOUND(12, "NVML_ERROR_LIBRARY_NOT_FOUND", ""),
    /** {@code NVML_ERROR_FUNCTION_NOT_FOUND} (13): this NVML does not implement the function. */
    FUNCTION_NOT_FOUND(13, "NVML_ERROR_FUNCTION_NOT_FOUND", "the driver is older than the function"),
    /** {@code NVML_ERROR_CORRUPTED_INFOROM} (14): the infoROM is corrupted. */
    CORRUPTED_INFOROM(14, "NVML_ERROR_CORRUPTED_INFOROM", "the GPU's infoROM needs service"),
    /** {@code NVML_ERROR_GPU_IS_LOST} (15): the GPU has fallen off the bus or is otherwise inaccessible. */
    GPU_IS_LOST(15, "NVML_ERROR_GPU_IS_LOST",
            "the GPU fell off the bus: look for Xid errors in the kernel log, then reset the GPU or reboot"),
    /** {@code NVML_ERROR_RESET_REQUIRED} (16): the GPU requires a reset before it can be used again. */
    RESET_REQUIRED(16, "NVML_ERROR_RESET_REQUIRED", "reset the GPU (nvidia-smi -r) or reboot"),
    /** {@code NVML_ERROR_OPERATING_SYSTEM} (17): the GPU control device was blocked by the OS or cgroups. */
    OPERATING_SYSTEM(17, "NVML_ERROR_OPERATING_SYSTEM",
            "a cgroup or the operating system blocks the /dev/nvidia* devices"),
    /** {@code NVML_ERROR_LIB_RM_VERSION_MISMATCH} (18): the driver and the library versions differ. */
    LIB_RM_VERSION_MISMATCH(18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
            "the user-space library and the loaded kernel module come from different driver versions:"
                    + " reboot after a driver upgrade, or reload the nvidia module"),
    /** {@code NVML_ERROR_IN_USE} (19): the GPU is in use. */
    IN_USE(19, "NVML_ERROR_IN_USE", ""),
    /** {@code NVML_ERROR_MEMORY} (20): insufficient memory. */
    MEMORY(20, "NVML_ERROR_MEMORY", ""),
    /** {@code NVML_ERROR_NO_DATA} (21): no data. */
    NO_DATA(21, "NVML_ERROR_NO_DATA", ""),
    /** {@code NVML_ERROR_VGPU_ECC_NOT_SUPPORTED} (22): the vGPU operation is unavailable because ECC is on. */
    VGPU_ECC_NOT_SUPPORTED(22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", ""),
    /** {@code NVML_ERROR_INSUFFICIENT_RESOURCES} (23): ran out of critical resources other than memory. */
    INSUFFICIENT_RESOURCES(23, "NVML_ERROR_INSUFFICIENT_RESOURCES", ""),
    /** {@code NVML_ERROR_FREQ_NOT_SUPPORTED} (24): the frequency is not supported. */
    FREQ_NOT_SUPPORTED(24, "NVML_ERROR_FREQ_NOT_SUPPORTED", ""),
    /** {@code NVML_ERROR_ARGUMENT_VERSION_MISMATCH} (25): the structure version is invalid or unsupported. */
    ARGUMENT_VERSION_MISMATCH(25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", ""),
    /** {@code NVML_ERROR_DEPRECATED} (26): the functionality has been deprecated. */
    DEPRECATED(26, "NVML_ERROR_DEPRECATED", ""),
    /** {@code NVML_ERROR_NOT_READY} (27): the system is not ready for the request. */
    NOT_READY(27, "NVML_ERROR_NOT_READY", "try again shortly"),
    /** {@code NVML_ERROR_GPU_NOT_FOUND} (28): no GPUs were found. */
    GPU_NOT_FOUND(28, "NVML_ERROR_GPU_NOT_FOUND", ""),
    /** {@code NVML_ERROR_INVALID_STATE} (29): a resource is not in the state the operation needs. */
    INVALID_STATE(29, "NVML_ERROR_INVALID_STATE", ""),
    /** {@code NVML_ERROR_RESET_TYPE_NOT_SUPPORTED} (30): the reset type is not supported. */
    RESET_TYPE_NOT_SUPPORTED(30, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", ""),
    /** {@code NVML_ERROR_UNKNOWN} (999): an internal driver error occurred. */
    UNKNOWN(999, "NVML_ERROR_UNKNOWN", "check the kernel log for NVRM or Xid messages"),
    /**
     * A value that is none of the above: a code added by a newer driver. Its number is kept by
     * {@link NvmlException#rawCode()}; {@link #code()} is not meaningful for it.
     */
    UNRECOGNIZED(Integer.MIN_VALUE, "unrecognized NVML return code", "");

    private static final Map<Integer, NvmlReturn> BY_CODE = new HashMap<>();

    static {
        for (NvmlReturn r : values()) {
            if (r != UNRECOGNIZED) {
                BY_CODE.put(r.code, r);
            }
        }
    }

    private final int code;
    private final String cName;
    private final String hint;

    NvmlReturn(int code, String cName, String hint) {
        this.code = code;
        this.cName = cName;
        this.hint = hint;
    }

    /**
     * {@return its constant, or {@link #UNRECOGNIZED} when the value is not one of {@code nvml.h}'s}
     *
     * @param code a value of {@code nvmlReturn_t}
     */
    public static NvmlReturn of(int code) {
        return BY_CODE.getOrDefault(code, UNRECOGNIZED);
    }

    /** {@return the numeric value in {@code nvml.h}} */
    public int code() {
        return code;
    }

    /** {@return the name in {@code nvml.h}, such as {@code NVML_ERROR_GPU_IS_LOST}} */
    public String cName() {
        return cName;
    }

    /** {@return what the user can do about this code; empty when there is nothing general to say} */
    public String hint() {
        return hint;
    }
}
