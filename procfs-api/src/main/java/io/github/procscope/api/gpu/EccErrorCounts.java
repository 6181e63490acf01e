package io.github.procscope.api.gpu;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * ECC memory error counts of one GPU ({@code nvmlDeviceGetTotalEccErrors}). Each count is empty when the
 * GPU does not keep it (no ECC, ECC off, or the counter type is not supported). Corrected errors are
 * single-bit errors; uncorrected ones are double-bit errors, which usually end the running job.
 *
 * @param volatileCorrected      corrected errors since the driver last loaded
 * @param volatileUncorrected    uncorrected errors since the driver last loaded
 * @param aggregateCorrected     corrected errors over the device's lifetime
 * @param aggregateUncorrected   uncorrected errors over the device's lifetime
 */
public record EccErrorCounts(OptionalLong volatileCorrected, OptionalLong volatileUncorrected,
                             OptionalLong aggregateCorrected, OptionalLong aggregateUncorrected) {
    /** Checks that no component is null. */
    public EccErrorCounts {
        Objects.requireNonNull(volatileCorrected, "volatileCorrected");
        Objects.requireNonNull(volatileUncorrected, "volatileUncorrected");
        Objects.requireNonNull(aggregateCorrected, "aggregateCorrected");
        Objects.requireNonNull(aggregateUncorrected, "aggregateUncorrected");
    }

    /** {@return whether no count is known} */
    public boolean isEmpty() {
        return volatileCorrected.isEmpty() && volatileUncorrected.isEmpty()
                && aggregateCorrected.isEmpty() && aggregateUncorrected.isEmpty();
    }
}
