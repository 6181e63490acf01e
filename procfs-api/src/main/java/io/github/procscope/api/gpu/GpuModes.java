package io.github.procscope.api.gpu;

import java.util.Objects;
import java.util.Optional;

/**
 * The operating modes of a GPU, read at one moment. Each is empty when the GPU does not have the mode
 * (no ECC memory, no MIG, ...) or NVML withholds it. A "pending" mode takes effect at the next reboot or
 * GPU reset.
 *
 * @param persistenceEnabled whether persistence mode is on ({@code nvmlDeviceGetPersistenceMode}): the
 *                           driver stays loaded with no client, so NVML calls are fast and volatile ECC
 *                           counts survive between jobs
 * @param eccEnabled         whether ECC is on now ({@code nvmlDeviceGetEccMode}, current)
 * @param eccPendingEnabled  whether ECC will be on after the next reboot (pending)
 * @param migEnabled         whether MIG (Multi-Instance GPU) is on now ({@code nvmlDeviceGetMigMode}, current)
 * @param migPendingEnabled  whether MIG will be on after the next GPU reset (pending)
 */
public record GpuModes(Optional<Boolean> persistenceEnabled, Optional<Boolean> eccEnabled,
                       Optional<Boolean> eccPendingEnabled, Optional<Boolean> migEnabled,
                       Optional<Boolean> migPendingEnabled) {
    /** Checks that no component is null. */
    public GpuModes {
        Objects.requireNonNull(persistenceEnabled, "persistenceEnabled");
        Objects.requireNonNull(eccEnabled, "eccEnabled");
        Objects.requireNonNull(eccPendingEnabled, "eccPendingEnabled");
        Objects.requireNonNull(migEnabled, "migEnabled");
        Objects.requireNonNull(migPendingEnabled, "migPendingEnabled");
    }
}
