package io.github.procscope.api.process;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The counters of {@code /proc/PID/status} that a metrics scrape reports for a whole process (what
 * {@link ProcessTable#statusCounters(long)} reads).
 *
 * @param swapBytes                   {@code VmSwap}: its memory swapped out, in bytes; empty where the kernel
 *                                    prints no memory lines (kernel threads, zombies)
 * @param voluntaryContextSwitches    {@code voluntary_ctxt_switches} of all its threads, summed (the process's
 *                                    own file counts its main thread's alone); empty where the kernel prints none
 * @param nonvoluntaryContextSwitches {@code nonvoluntary_ctxt_switches} of all its threads, summed; empty where
 *                                    the kernel prints none
 */
public record StatusCounters(OptionalLong swapBytes, OptionalLong voluntaryContextSwitches,
                             OptionalLong nonvoluntaryContextSwitches) {
    /** Checks that no part is null. */
    public StatusCounters {
        Objects.requireNonNull(swapBytes, "swapBytes");
        Objects.requireNonNull(voluntaryContextSwitches, "voluntaryContextSwitches");
        Objects.requireNonNull(nonvoluntaryContextSwitches, "nonvoluntaryContextSwitches");
    }
}
