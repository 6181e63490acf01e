package io.github.procscope.api.memory;

import io.github.procscope.api.core.Pids;

import java.util.Objects;

/**
 * How much memory one process uses, in every sense: VSZ, RSS, PSS, USS and swap.
 *
 * @param pid      the process
 * @param vszBytes the virtual memory size, VSZ ({@code /proc/PID/stat} field 23, as {@code ps -o vsz}
 *                 shows it): address space reserved, touched or not
 * @param counters the summed counters of all regions, from {@code smaps_rollup} or summed from
 *                 {@code smaps} (see {@code source}); all zero for a kernel thread or a zombie, which
 *                 have no address space
 * @param source   where {@code counters} came from
 */
public record MemoryTotals(long pid, long vszBytes, SmapsCounters counters, TotalsSource source) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if the pid is out of range or the VSZ negative
     */
    public MemoryTotals {
        Pids.requireValid(pid);
        if (vszBytes < 0) {
            throw new IllegalArgumentException("VSZ must not be negative: " + vszBytes);
        }
        Objects.requireNonNull(counters, "counters");
        Objects.requireNonNull(source, "source");
    }

    /**
     * {@return the resident set size, RSS, in bytes ({@code Rss}): physically resident, shared pages counted
     * in full. It can differ by a few pages from {@code ps -o rss}, which reads the kernel's per-process
     * counters instead of walking the page tables.}
     */
    public long rssBytes() {
        return counters.rssBytes();
    }

    /** {@return the proportional set size, PSS, in bytes ({@code Pss}): shared pages divided among their sharers} */
    public long pssBytes() {
        return counters.pssBytes();
    }

    /** {@return the unique set size, USS, in bytes: private clean + private dirty, freed if the process exits} */
    public long ussBytes() {
        return counters.ussBytes();
    }

    /** {@return anonymous memory swapped out, in bytes ({@code Swap})} */
    public long swapBytes() {
        return counters.swapBytes();
    }
}
