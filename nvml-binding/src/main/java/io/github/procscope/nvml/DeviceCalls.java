package io.github.procscope.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The call discipline of one GPU or MIG device, shared by the parts that read it (identity, sampling,
 * processes, GPM). Every public call runs under the inventory's read lock ({@link #guarded}) and never on a
 * device reported lost; every return code is judged here: success, "not available here"
 * ({@code NVML_ERROR_NOT_SUPPORTED}, {@code NVML_ERROR_NO_PERMISSION}, {@code NVML_ERROR_FUNCTION_NOT_FOUND}:
 * an empty metric), or an {@link NvmlException} naming the function, the device, the code and NVML's text.
 * {@code NVML_ERROR_GPU_IS_LOST} marks the device lost (for a MIG device, its parent GPU). Thread-safe.
 */
final class DeviceCalls {
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int RC_GPU_IS_LOST = NvmlReturn.GPU_IS_LOST.code();

    private final NvmlGpus owner;
    private final NvmlLibrary library;
    private final NvmlFunctions functions;
    private final Pointer handle;
    private final Optional<DeviceCalls> parent;
    private volatile String label;
    private volatile boolean lost;

    /**
     * @param owner  the inventory
     * @param handle the device's {@code nvmlDevice_t}
     * @param parent the parent GPU's calls, for a MIG device
     * @param label  the device as a person names it until its identity is read
     */
    DeviceCalls(NvmlGpus owner, Pointer handle, Optional<DeviceCalls> parent, String label) {
        this.owner = owner;
        this.library = owner.library();
        this.functions = library.functions();
        this.handle = handle;
        this.parent = parent;
        this.label = label;
    }

    NvmlGpus owner() {
        return owner;
    }

    NvmlFunctions functions() {
        return functions;
    }

    Pointer handle() {
        return handle;
    }

    /** @return the device as a person names it, for messages: {@code GPU 0 (GPU-...)} */
    String label() {
        return label;
    }

    /** Names the device by its identity, once that is read (before the device is shared). */
    void identified(String fullLabel) {
        this.label = fullLabel;
    }

    boolean isLost() {
        return lost || parent.map(DeviceCalls::isLost).orElse(false);
    }

    private void markLost() {
        if (parent.isPresent()) {
            parent.get().markLost();
        } else {
            lost = true;
        }
    }

    /**
     * Runs a body under the inventory's read lock, unless the device is lost.
     *
     * @param function the function named if the device is lost
     * @throws NvmlException         with {@code NVML_ERROR_GPU_IS_LOST} if the device was reported lost
     * @throws IllegalStateException if the inventory is closed
     */
    @SuppressWarnings("try") // the guard holds the read lock; the body needs no reference to it
    <T> T guarded(String function, Supplier<T> body) {
        try (NvmlGpus.Guard g = owner.enter()) {
            if (isLost()) {
                throw new NvmlException(function, RC_GPU_IS_LOST, library.errorString(RC_GPU_IS_LOST),
                        Optional.of(label() + ", reported lost earlier"));
            }
            return body.get();
        }
    }

    /**
     * @return whether the call succeeded; false when the metric is unavailable here
     * @throws NvmlException for any other code (marking the device lost for GPU_IS_LOST)
     */
    boolean ok(int rc, String function) {
        if (rc == RC_SUCCESS) {
            return true;
        }
        if (NvmlGpus.isUnavailable(rc)) {
            return false;
        }
        throw failure(rc, function);
    }

    /** @return the exception for a failed call (marking the device lost for GPU_IS_LOST) */
    NvmlException failure(int rc, String function) {
        if (rc == RC_GPU_IS_LOST) {
            markLost();
        }
        return new NvmlException(function, rc, library.errorString(rc), Optional.of(label()));
    }

    /** @return an {@code unsigned int} (or enum) the function writes; empty if absent or unavailable here */
    OptionalInt uint(NvmlFunction<NvmlFunctions.DeviceInt> function) {
        if (!function.isPresent()) {
            return OptionalInt.empty();
        }
        IntByReference v = new IntByReference();
        return ok(function.call().call(handle, v), function.name()) ? OptionalInt.of(v.getValue()) : OptionalInt.empty();
    }

    /** @return the text the function writes; empty if absent or unavailable here */
    Optional<String> string(NvmlFunction<NvmlFunctions.DeviceString> function, int size) {
        if (!function.isPresent()) {
            return Optional.empty();
        }
        byte[] buffer = new byte[size];
        return ok(function.call().call(handle, buffer, size), function.name()) ? Optional.of(NvmlGpus.cString(buffer))
                : Optional.empty();
    }

    /**
     * @return the text the function writes
     * @throws NvmlException for any code but success: the device cannot be used without it (it is left out of
     *                       the inventory, not marked lost)
     */
    String requiredString(NvmlFunction<NvmlFunctions.DeviceString> function, int size) {
        byte[] buffer = new byte[size];
        int rc = function.call().call(handle, buffer, size);
        if (rc != RC_SUCCESS) {
            throw new NvmlException(function.name(), rc, library.errorString(rc), Optional.of(label()));
        }
        return NvmlGpus.cString(buffer);
    }
}
