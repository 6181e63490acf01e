package io.github.procscope.metrics.family;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.StatusCounters;
import io.github.procscope.api.process.ThreadInfo;

import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What one grouped process adds beyond the snapshot, read for process-exporter's families: swapped memory
 * ({@code VmSwap}), its context switches (its threads' summed where it has more than one: the kernel gives a
 * process's in {@code /proc/PID/status} for its main thread only, and process-exporter sums its threads'), the
 * ratio of its open descriptors to the soft limit of {@code /proc/PID/limits}, the proportional memory of its
 * {@code smaps_rollup} ({@code -gather-smaps}) and its threads ({@code -threads}).
 */
public final class ProcessReading {
    private static final Set<Facet> THREAD_FACETS = EnumSet.of(Facet.STATUS, Facet.IO, Facet.WCHAN);

    long swapBytes;
    long pssBytes;
    long swapPssBytes;
    double fdRatio;
    long voluntary;
    long nonvoluntary;
    /** The threads, where they were read with their I/O counters and wait channel; else empty. */
    List<ThreadInfo> threads = List.of();
    /** Whether a file of the process was withheld or malformed (process-exporter's partial error). */
    boolean partial;

    private ProcessReading() {
    }

    /** Reads processes' extra files for the groups' families. */
    public static final class Reader {
        private final ProcessTable table;
        private final Optional<ProcessMemory> memory;
        private final boolean threads;
        /** The one reading {@link #read} fills and returns, so that a scrape builds none per process. */
        private final ProcessReading reading = new ProcessReading();
        /**
         * What {@link #readAhead} read this scrape, by the very process object the snapshot holds; a new map each
         * scrape, so that a scrape of many processes leaves no large table behind.
         */
        private Map<ProcessInfo, ProcessReading> readAhead = new IdentityHashMap<>();

        /**
         * @param table   the process table (limits, threads)
         * @param memory  the memory reader, for {@code smaps_rollup}; empty to read none
         * @param threads whether each process's threads are read for the per-thread families
         */
        public Reader(ProcessTable table, Optional<ProcessMemory> memory, boolean threads) {
            this.table = Objects.requireNonNull(table, "table");
            this.memory = Objects.requireNonNull(memory, "memory");
            this.threads = threads;
        }

        /** @return whether the proportional memory types are read */
        boolean smaps() {
            return memory.isPresent();
        }

        /** @return whether the per-thread families are read */
        boolean threads() {
            return threads;
        }

        /**
         * @param p a grouped process, as the snapshot read it (with its status, I/O counters and descriptors)
         * @return what it adds; a process gone meanwhile adds what the snapshot had of it. What {@link #readAhead}
         *         read of it during the snapshot, once; else the same object for every call, filled anew: valid
         *         until the next call
         */
        public ProcessReading read(ProcessInfo p) {
            ProcessReading ahead = readAhead.remove(p);
            return ahead != null ? ahead : fill(reading, p);
        }

        /**
         * Lets go of what was read ahead (called before a scrape and after its groups are counted): neither the
         * snapshot's processes nor their threads are held between scrapes.
         */
        public void forgetReadAhead() {
            readAhead = new IdentityHashMap<>();
        }

        /**
         * Reads a grouped process now, while the snapshot that read it goes on to the next one
         * ({@link io.github.procscope.api.process.ProcessTable#snapshot(Set, java.util.function.Consumer)}), for
         * {@link #read} to hand back when the groups are counted: one pass over {@code /proc} instead of two.
         *
         * @param p a process the snapshot has just read
         */
        public void readAhead(ProcessInfo p) {
            readAhead.put(p, fill(new ProcessReading(), p));
        }

        private ProcessReading fill(ProcessReading r, ProcessInfo p) {
            r.swapBytes = 0;
            r.pssBytes = 0;
            r.swapPssBytes = 0;
            r.fdRatio = 0;
            r.voluntary = 0;
            r.nonvoluntary = 0;
            r.threads = List.of();
            r.partial = p.io().isEmpty() || p.openFds().isEmpty();
            try {
                if (threads && p.status().isPresent()) { // read whole with the threads; their sums follow
                    ProcessStatus st = p.status().get();
                    r.swapBytes = st.memory().swapBytes().orElse(0);
                    r.voluntary = st.voluntaryContextSwitches().orElse(0);
                    r.nonvoluntary = st.nonvoluntaryContextSwitches().orElse(0);
                } else {
                    // The counters alone, summed over its threads where it has several.
                    StatusCounters sc = table.statusCounters(p.pid());
                    r.partial |= threads; // with -threads the snapshot reads the status, and it had none
                    r.swapBytes = sc.swapBytes().orElse(0);
                    r.voluntary = sc.voluntaryContextSwitches().orElse(0);
                    r.nonvoluntary = sc.nonvoluntaryContextSwitches().orElse(0);
                }
                if (p.openFds().isPresent()) {
                    OptionalLong soft = table.openFilesLimit(p.pid());
                    if (soft.isPresent() && soft.getAsLong() > 0) {
                        r.fdRatio = p.openFds().getAsInt() / (double) soft.getAsLong();
                    }
                }
                if (memory.isPresent()) {
                    MemoryTotals t = memory.get().totals(p.pid());
                    r.pssBytes = t.pssBytes();
                    r.swapPssBytes = t.counters().swapPssBytes().orElse(0);
                }
                if (threads) {
                    List<ThreadInfo> list = table.threads(p.pid(), THREAD_FACETS);
                    r.threads = list;
                    if (p.threads() > 1) {
                        long voluntary = 0;
                        long nonvoluntary = 0;
                        for (ThreadInfo t : list) {
                            if (t.status().isPresent()) {
                                voluntary += t.status().get().voluntaryContextSwitches().orElse(0);
                                nonvoluntary += t.status().get().nonvoluntaryContextSwitches().orElse(0);
                            }
                        }
                        r.voluntary = voluntary;
                        r.nonvoluntary = nonvoluntary;
                    }
                }
            } catch (NoSuchProcessException e) {
                // Gone since the snapshot: what the snapshot read of it stands.
            } catch (ProcscopeException | UnsupportedOperationException e) {
                r.partial = true;
            }
            return r;
        }
    }
}
