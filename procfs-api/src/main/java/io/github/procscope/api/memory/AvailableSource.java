package io.github.procscope.api.memory;

/** Where {@link SystemMemory#availableBytes()} came from. */
public enum AvailableSource {
    /** The kernel's own estimate, {@code MemAvailable} in {@code /proc/meminfo} (Linux 3.14+). */
    KERNEL,
    /**
     * Estimated here because the kernel lacks {@code MemAvailable}, the way procps-ng 3.3 {@code free}
     * estimates it: free memory, plus the page cache and reclaimable slab minus what the kernel keeps back,
     * with the low watermark taken as 5/4 of {@code /proc/sys/vm/min_free_kbytes}:
     * <pre>
     * available = MemFree - low
     *           + (Active(file) + Inactive(file)) - min((Active(file) + Inactive(file)) / 2, low)
     *           + SReclaimable - min(SReclaimable / 2, low)          (at least 0)
     * </pre>
     */
    ESTIMATED,
    /**
     * {@code MemFree} alone: the kernel lacks {@code MemAvailable} and the figures the estimate needs
     * ({@code Active(file)}, {@code Inactive(file)} or {@code min_free_kbytes}) could not be read. This
     * understates what is available, as {@code free} does on such kernels.
     */
    FREE
}
