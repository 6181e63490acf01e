package io.github.procscope.api.memory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The system's memory, from {@code /proc/meminfo}, with the figures {@code free} derives from it. Every
 * size is in bytes (the kernel prints kB, 1024 bytes).
 *
 * <p>Why {@code free} is small and {@code available} large: the kernel keeps otherwise idle memory busy
 * as page cache, which it gives back on demand. {@link #availableBytes()} is the memory new work can
 * get without swapping; {@link #freeBytes()} is the memory nobody uses at all.
 *
 * @param totalBytes           {@code MemTotal}: usable RAM (physical memory minus reserved areas and the
 *                             kernel's code)
 * @param freeBytes            {@code MemFree}: memory not used for anything
 * @param availableBytes       memory available to new work without swapping: {@code MemAvailable}, or an
 *                             estimate on kernels before 3.14 (see {@code availableSource})
 * @param availableSource      whether {@code availableBytes} is the kernel's figure or an estimate
 * @param buffersBytes         {@code Buffers}: block-device cache (file system metadata)
 * @param cachedBytes          {@code Cached}: the page cache (file contents, tmpfs and shared memory)
 * @param sharedBytes          {@code Shmem}: tmpfs and shared memory, part of {@code Cached} (Linux 2.6.32+);
 *                             empty on older kernels
 * @param reclaimableSlabBytes {@code SReclaimable}: kernel slab caches that can be reclaimed (dentries,
 *                             inodes) (Linux 2.6.19+); empty on older kernels
 * @param swapTotalBytes       {@code SwapTotal}: swap space configured
 * @param swapFreeBytes        {@code SwapFree}: swap space unused
 * @param fieldsBytes          every line of {@code /proc/meminfo} given in kB, converted to bytes, keyed by
 *                             the kernel's name ({@code "Dirty"}, {@code "AnonPages"}, {@code "Active(file)"},
 *                             ...), in the file's order
 * @param counts               every line given without a unit (page counts such as {@code HugePages_Total}),
 *                             keyed by name, in the file's order
 */
public record SystemMemory(
        long totalBytes,
        long freeBytes,
        long availableBytes,
        AvailableSource availableSource,
        long buffersBytes,
        long cachedBytes,
        OptionalLong sharedBytes,
        OptionalLong reclaimableSlabBytes,
        long swapTotalBytes,
        long swapFreeBytes,
        Map<String, Long> fieldsBytes,
        Map<String, Long> counts) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if a size is negative
     */
    public SystemMemory {
        for (long v : new long[] {totalBytes, freeBytes, availableBytes, buffersBytes, cachedBytes, swapTotalBytes,
                swapFreeBytes}) {
            if (v < 0) {
                throw new IllegalArgumentException("memory sizes must not be negative: " + v);
            }
        }
        Objects.requireNonNull(availableSource, "availableSource");
        Objects.requireNonNull(sharedBytes, "sharedBytes");
        Objects.requireNonNull(reclaimableSlabBytes, "reclaimableSlabBytes");
        fieldsBytes = Collections.unmodifiableMap(new LinkedHashMap<>(fieldsBytes));
        counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
        fieldsBytes.forEach((k, v) -> Objects.requireNonNull(v, k));
        counts.forEach((k, v) -> Objects.requireNonNull(v, k));
    }

    /**
     * {@return {@code free}'s "used" as procps-ng 4 computes it: {@code total - available}. As {@code free}
     * does, an available figure above the total (seen inside some containers) is replaced by {@code
     * MemFree}, and a negative result by {@code total - free}.}
     */
    public long usedBytes() {
        long available = availableBytes > totalBytes ? freeBytes : availableBytes;
        long used = totalBytes - available;
        return used < 0 ? totalBytes - freeBytes : used;
    }

    /**
     * {@return the older "used" of procps-ng 3.3 {@code free}: {@code total - free - buffers - cache}, with
     * cache as in {@link #cacheBytes()}; {@code total - free} if that is negative}
     */
    public long usedExcludingCacheBytes() {
        long used = totalBytes - freeBytes - buffersBytes - cacheBytes();
        return used < 0 ? totalBytes - freeBytes : used;
    }

    /** {@return {@code free}'s "cache": {@code Cached + SReclaimable}} */
    public long cacheBytes() {
        return cachedBytes + reclaimableSlabBytes.orElse(0);
    }

    /** {@return {@code free}'s "buff/cache": {@code Buffers + Cached + SReclaimable}} */
    public long bufferCacheBytes() {
        return buffersBytes + cacheBytes();
    }

    /** {@return swap in use: {@code SwapTotal - SwapFree}} */
    public long swapUsedBytes() {
        return Math.max(0, swapTotalBytes - swapFreeBytes);
    }

    /**
     * {@return its value in bytes, or empty if this kernel does not print it}
     *
     * @param name a {@code /proc/meminfo} key given in kB, such as {@code "Dirty"} or {@code "Committed_AS"}
     */
    public OptionalLong field(String name) {
        Long v = fieldsBytes.get(Objects.requireNonNull(name, "name"));
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
