package io.github.procscope.api.gpu;

import io.github.procscope.api.core.ProcscopeException;

import java.util.Objects;
import java.util.Optional;

/**
 * No GPU can be used through NVML on this machine, and {@link #reason()} says why: the normal outcome
 * of {@link io.github.procscope.api.Procscope#openGpus()} on a machine without an NVIDIA GPU or driver. The message names what was tried
 * (the library path and where it came from) and what the user can do.
 */
public class GpuUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** Why no GPU is available. */
    public enum Reason {
        /**
         * No GPU implementation ({@code nvml-binding}) is on the class path or module path, so NVML was not
         * even looked for.
         */
        BINDING_ABSENT,
        /**
         * {@code libnvidia-ml.so.1} was not found: no NVIDIA driver is installed, or the file named by
         * the system property {@code procscope.nvml.library} or the environment variable
         * {@code PROCSCOPE_NVML_LIBRARY} does not exist.
         */
        LIBRARY_NOT_FOUND,
        /** A file was found but could not be loaded as a shared library (not ELF, wrong architecture). */
        LIBRARY_NOT_LOADABLE,
        /** The library lacks a function every supported NVML has ({@code nvmlInit_v2} ...): it is too old. */
        LIBRARY_TOO_OLD,
        /** {@code nvmlInit_v2} returned {@code NVML_ERROR_DRIVER_NOT_LOADED}: the kernel module is not loaded. */
        DRIVER_NOT_LOADED,
        /**
         * {@code nvmlInit_v2} returned {@code NVML_ERROR_LIB_RM_VERSION_MISMATCH}: the library and the
         * loaded kernel module come from different driver versions (typically after an upgrade
         * without a reboot).
         */
        DRIVER_LIBRARY_MISMATCH,
        /**
         * NVML may not talk to the driver ({@code NVML_ERROR_NO_PERMISSION} from {@code nvmlInit_v2}),
         * or every GPU refused this user.
         */
        NO_PERMISSION,
        /** NVML works but reports no GPU. */
        NO_DEVICES,
        /** {@code nvmlInit_v2} failed with another code; see {@link #nvmlReturn()}. */
        INIT_FAILED
    }

    /** Why no GPU is available. */
    private final Reason reason;
    /** The NVML code behind the failure; null when NVML could not even be loaded. */
    private final NvmlReturn nvmlReturn;

    /**
     * Creates the exception.
     * @param reason  why no GPU is available
     * @param message what was tried and what the user can do
     */
    public GpuUnavailableException(Reason reason, String message) {
        super(Objects.requireNonNull(reason, "reason") + ": " + Objects.requireNonNull(message, "message"));
        this.reason = reason;
        this.nvmlReturn = null;
    }

    /**
     * Creates the exception.
     * @param reason     why no GPU is available
     * @param message    what was tried and what the user can do
     * @param nvmlReturn the NVML code behind it
     */
    public GpuUnavailableException(Reason reason, String message, NvmlReturn nvmlReturn) {
        super(Objects.requireNonNull(reason, "reason") + ": " + Objects.requireNonNull(message, "message"));
        this.reason = reason;
        this.nvmlReturn = Objects.requireNonNull(nvmlReturn, "nvmlReturn");
    }

    /**
     * Creates the exception.
     * @param reason  why no GPU is available
     * @param message what was tried and what the user can do
     * @param cause   the underlying failure (such as the loader's error)
     */
    public GpuUnavailableException(Reason reason, String message, Throwable cause) {
        super(Objects.requireNonNull(reason, "reason") + ": " + Objects.requireNonNull(message, "message"),
                Objects.requireNonNull(cause, "cause"));
        this.reason = reason;
        this.nvmlReturn = null;
    }

    /** {@return why no GPU is available} */
    public Reason reason() {
        return reason;
    }

    /** {@return the NVML code behind the failure; empty when NVML could not even be loaded} */
    public Optional<NvmlReturn> nvmlReturn() {
        return Optional.ofNullable(nvmlReturn);
    }
}
