package io.github.procscope.api.gpu;

import java.util.OptionalLong;

/**
 * Device memory (VRAM) of one GPU at one moment: {@code nvidia-smi}'s Memory-Usage. From
 * {@code nvmlDeviceGetMemoryInfo_v2} where the driver has it, else {@code nvmlDeviceGetMemoryInfo} (v1).
 *
 * <p>The two versions differ in what "used" means. Version 2 reports memory reserved by the driver and
 * firmware separately, and {@link #usedBytes()} is what processes allocated. Version 1 has no separate
 * figure: its "used" is reserved plus allocated, so an idle GPU shows a few hundred MiB used. Check
 * {@link #usedIncludesReserved()} before comparing figures from different drivers.
 *
 * @param totalBytes           total physical device memory, in bytes
 * @param usedBytes            allocated device memory in bytes; includes the reserved memory when
 *                             {@link #usedIncludesReserved()} is true
 * @param freeBytes            unallocated device memory, in bytes
 * @param reservedBytes        memory reserved for system use (driver, firmware), in bytes; empty with
 *                             the v1 query, which does not report it
 * @param usedIncludesReserved whether {@code usedBytes} counts the reserved memory too (v1)
 */
public record GpuMemory(long totalBytes, long usedBytes, long freeBytes, OptionalLong reservedBytes,
                        boolean usedIncludesReserved) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a figure is negative
     */
    public GpuMemory {
        if (totalBytes < 0 || usedBytes < 0 || freeBytes < 0) {
            throw new IllegalArgumentException("memory figures must not be negative: total " + totalBytes
                    + ", used " + usedBytes + ", free " + freeBytes);
        }
        if (reservedBytes == null) {
            throw new NullPointerException("reservedBytes");
        }
        if (reservedBytes.isPresent() && reservedBytes.getAsLong() < 0) {
            throw new IllegalArgumentException("reserved memory must not be negative: " + reservedBytes);
        }
    }

    /**
     * {@return used memory as a fraction of the total, 0.0 to 1.0 (0.0 when the total is 0)}
     */
    public double usedFraction() {
        return totalBytes == 0 ? 0.0 : (double) usedBytes / totalBytes;
    }
}
