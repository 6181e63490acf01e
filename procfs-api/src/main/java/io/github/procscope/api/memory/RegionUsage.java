package io.github.procscope.api.memory;

import java.util.List;
import java.util.Objects;

/**
 * What one region holds, from its block of lines in {@code /proc/PID/smaps}.
 *
 * @param kernelPageSizeBytes {@code KernelPageSize}: the page size the kernel uses for the region
 *                            (larger than the base page for hugetlbfs regions)
 * @param mmuPageSizeBytes    {@code MMUPageSize}: the page size the MMU uses for it
 * @param counters            the region's memory counters ({@code Rss}, {@code Pss}, ...)
 * @param vmFlags             {@code VmFlags}: the kernel's two-letter flags of the region, in the kernel's
 *                            order ({@code rd}, {@code wr}, {@code ex}, {@code sh}, {@code mr}, {@code lo}
 *                            locked, {@code dd} not dumped, {@code hg}/{@code nh} huge page advice, ... as
 *                            listed in {@code proc(5)}); empty on kernels before 3.8, which lack the line
 */
public record RegionUsage(long kernelPageSizeBytes, long mmuPageSizeBytes, SmapsCounters counters,
                          List<String> vmFlags) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if a page size is not positive
     */
    public RegionUsage {
        if (kernelPageSizeBytes <= 0 || mmuPageSizeBytes <= 0) {
            throw new IllegalArgumentException("page sizes must be positive: " + kernelPageSizeBytes + ", "
                    + mmuPageSizeBytes);
        }
        Objects.requireNonNull(counters, "counters");
        vmFlags = List.copyOf(vmFlags);
    }

    /**
     * {@return whether the region carries it}
     *
     * @param flag a two-letter flag such as {@code lo} or {@code dd}
     */
    public boolean hasFlag(String flag) {
        return vmFlags.contains(flag);
    }
}
