package io.github.procscope.api.memory;

/** Where a process's {@link MemoryTotals} came from. */
public enum TotalsSource {
    /** {@code /proc/PID/smaps_rollup} (Linux 4.14+): the kernel summed the regions in one pass. */
    ROLLUP,
    /**
     * The regions of {@code /proc/PID/smaps}, summed here: the fallback for kernels without
     * {@code smaps_rollup}. The per-kind PSS split ({@code Pss_Anon}, {@code Pss_File}, {@code Pss_Shmem})
     * is not available this way.
     */
    SUMMED_SMAPS
}
