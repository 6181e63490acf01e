package io.github.procscope.api.memory;

import java.util.Objects;

import io.github.procscope.api.core.Pids;

import java.util.List;
import java.util.Optional;

/**
 * The address space of one process: its regions in address order, from {@code /proc/PID/maps}, or from
 * {@code /proc/PID/smaps} with each region's memory counters. A kernel thread or a zombie has no address
 * space and an empty list.
 *
 * @param pid     the process
 * @param regions its regions, ascending by address
 */
public record MemoryMaps(long pid, List<MemoryRegion> regions) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if the pid is out of range
     */
    public MemoryMaps {
        Pids.requireValid(pid);
        regions = List.copyOf(regions);
    }

    /**
     * {@return the virtual memory size, VSZ, in bytes: the sum of the regions' sizes without {@link
     * RegionKind#VSYSCALL}, which lies in kernel space. This equals {@code ps -o vsz} ({@code VmSize} in
     * {@code /proc/PID/status}) read at the same moment.}
     */
    public long vszBytes() {
        long sum = 0;
        for (MemoryRegion r : regions) {
            if (r.kind() != RegionKind.VSYSCALL) {
                sum += r.sizeBytes();
            }
        }
        return sum;
    }

    /**
     * {@return the sum of every listed region's size, {@code [vsyscall]} included: the total that {@code
     * pmap -x} prints in its Kbytes column}
     */
    public long mappedBytes() {
        long sum = 0;
        for (MemoryRegion r : regions) {
            sum += r.sizeBytes();
        }
        return sum;
    }

    /**
     * {@return the sum of every region's counters (RSS, PSS, USS, swap ...), when the maps were read from
     * {@code smaps}; empty when they were read from {@code maps}, which has no counters. With no regions at
     * all the sum is {@link SmapsCounters#ZERO}.}
     */
    public Optional<SmapsCounters> usageTotals() {
        SmapsCounters sum = null;
        for (MemoryRegion r : regions) {
            if (r.usage().isEmpty()) {
                return Optional.empty();
            }
            SmapsCounters c = r.usage().get().counters();
            sum = sum == null ? c : sum.plus(c);
        }
        return Optional.of(sum == null ? SmapsCounters.ZERO : sum);
    }

    /**
     * {@return the regions of that kind, in address order}
     *
     * @param kind a kind of region
     */
    public List<MemoryRegion> regions(RegionKind kind) {
        Objects.requireNonNull(kind, "kind");
        return regions.stream().filter(r -> r.kind() == kind).toList();
    }
}
