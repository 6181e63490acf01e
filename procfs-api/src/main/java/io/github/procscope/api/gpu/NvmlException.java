package io.github.procscope.api.gpu;

import io.github.procscope.api.core.ProcscopeException;

import java.util.Objects;
import java.util.Optional;

/**
 * An NVML function returned an error that is not a plain "this metric is not available here"
 * ({@link NvmlReturn#NOT_SUPPORTED} and {@link NvmlReturn#NO_PERMISSION} make a metric empty instead).
 * The message names the function, the GPU, the return code by name and number, NVML's own text
 * ({@code nvmlErrorString}) and what the user can do.
 *
 * <p>{@link NvmlReturn#GPU_IS_LOST} is reported for the one GPU that fell off the bus: that
 * {@link GpuDevice} stays lost ({@link GpuDevice#isLost()}) while the others keep working.
 */
public class NvmlException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /** The NVML function that failed. */
    private final String function;
    /** The return code by name. */
    private final NvmlReturn nvmlReturn;
    /** The value the function returned. */
    private final int rawCode;
    /** NVML's text for the code. */
    private final String nvmlMessage;
    /** The GPU the function was called for; null for system-wide functions. */
    private final String device;

    /**
     * Creates the exception.
     * @param function    the NVML function that failed, such as {@code nvmlDeviceGetPowerUsage}
     * @param rawCode     the value it returned
     * @param nvmlMessage NVML's text for the value ({@code nvmlErrorString})
     * @param device      the GPU it was called for, as a person would name it ({@code GPU 0 (GPU-...)});
     *                    empty for system-wide functions
     */
    public NvmlException(String function, int rawCode, String nvmlMessage, Optional<String> device) {
        super(message(function, rawCode, nvmlMessage, device));
        this.function = Objects.requireNonNull(function, "function");
        this.nvmlReturn = NvmlReturn.of(rawCode);
        this.rawCode = rawCode;
        this.nvmlMessage = Objects.requireNonNull(nvmlMessage, "nvmlMessage");
        this.device = Objects.requireNonNull(device, "device").orElse(null);
    }

    private static String message(String function, int rawCode, String nvmlMessage, Optional<String> device) {
        NvmlReturn r = NvmlReturn.of(rawCode);
        StringBuilder sb = new StringBuilder();
        sb.append(function).append(" failed");
        device.ifPresent(d -> sb.append(" on ").append(d));
        sb.append(": ").append(r == NvmlReturn.UNRECOGNIZED ? "NVML return code" : r.cName())
                .append(" (").append(rawCode).append(')');
        if (!nvmlMessage.isEmpty()) {
            sb.append(" \"").append(nvmlMessage).append('"');
        }
        if (!r.hint().isEmpty()) {
            sb.append(": ").append(r.hint());
        }
        return sb.toString();
    }

    /** {@return the NVML function that failed} */
    public String function() {
        return function;
    }

    /** {@return the return code by name; {@link NvmlReturn#UNRECOGNIZED} for a value newer than this library} */
    public NvmlReturn nvmlReturn() {
        return nvmlReturn;
    }

    /** {@return the numeric value the function returned} */
    public int rawCode() {
        return rawCode;
    }

    /** {@return NVML's own text for the code ({@code nvmlErrorString})} */
    public String nvmlMessage() {
        return nvmlMessage;
    }

    /** {@return the GPU the function was called for; empty for system-wide functions} */
    public Optional<String> device() {
        return Optional.ofNullable(device);
    }
}
