package io.github.procscope.api.gpu;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The XID errors (critical errors the driver reports, such as 79 "GPU has fallen off the bus" or 48 "double-bit
 * ECC error") one GPU raised while procscope watched it. NVML reports an XID only as an event
 * ({@code nvmlEventTypeXidCriticalError}), at the moment it happens: nothing counts them for later. So the count
 * starts when watching starts (see {@link GpuDevice#xidErrors()}), and errors raised before are not seen; the
 * kernel log ({@code NVRM: Xid}) keeps those.
 *
 * @param count   XID errors seen since watching started
 * @param lastXid the last XID seen; present exactly when {@code count > 0}
 * @param lastAt  when the last one was seen (wall clock); present exactly when {@code count > 0}
 */
public record XidErrors(long count, OptionalLong lastXid, Optional<Instant> lastAt) {
    /** Checks the count and that the last error is known exactly when there was one. */
    public XidErrors {
        Objects.requireNonNull(lastXid, "lastXid");
        Objects.requireNonNull(lastAt, "lastAt");
        if (count < 0) {
            throw new IllegalArgumentException("the XID count must not be negative: " + count);
        }
        if ((count > 0) != lastXid.isPresent() || (count > 0) != lastAt.isPresent()) {
            throw new IllegalArgumentException("the last XID and its time are known exactly when the count ("
                    + count + ") is above 0");
        }
    }

    /** {@return no XID error seen} */
    public static XidErrors none() {
        return new XidErrors(0, OptionalLong.empty(), Optional.empty());
    }
}
