package io.github.procscope.metrics.family;

/**
 * The counters of process-exporter's families kept for one set of series (a group, or a group's threads of one
 * name), added to from the deltas {@link ProcessCounters} computes, in its order: user and system CPU
 * nanoseconds, major and minor faults, bytes read and written, voluntary and non-voluntary context switches.
 */
class CounterTotals {
    final int id;
    long userNanos;
    long systemNanos;
    long majorFaults;
    long minorFaults;
    long readBytes;
    long writeBytes;
    long voluntarySwitches;
    long nonvoluntarySwitches;

    CounterTotals(int id) {
        this.id = id;
    }

    final void add(long[] deltas) {
        userNanos += deltas[0];
        systemNanos += deltas[1];
        majorFaults += deltas[2];
        minorFaults += deltas[3];
        readBytes += deltas[4];
        writeBytes += deltas[5];
        voluntarySwitches += deltas[6];
        nonvoluntarySwitches += deltas[7];
    }
}
