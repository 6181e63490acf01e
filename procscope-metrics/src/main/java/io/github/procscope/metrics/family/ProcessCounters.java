package io.github.procscope.metrics.family;

import java.util.Arrays;

/**
 * The counters each process had at the last scrape (CPU times, page faults, storage bytes), so that a group adds
 * what each of its processes used since then: keyed by pid, start time and the group the process was counted in,
 * in flat arrays (no object per process). Two tables: the last scrape's, read, and this scrape's, written; a
 * scrape ends with {@link #swap()}, which forgets every process it did not see. Not thread-safe: the collector's
 * scrapes are serialized.
 */
final class ProcessCounters {
    /** How many counters one process has. */
    static final int WIDTH = 6;

    private Table last = new Table(16);
    private Table next = new Table(16);

    /**
     * Records a process's counters for this scrape and returns, in {@code deltas}, what it used since the last
     * scrape: everything for a process the last scrape did not count in the same group, else the increase of each
     * counter (never below 0).
     *
     * @param pid    the process id (above 0)
     * @param start  its start time in clock ticks after boot
     * @param group  the id of the group it is counted in
     * @param now    its counters now, {@link #WIDTH} of them
     * @param deltas where the increases are written, {@link #WIDTH} of them
     */
    void advance(long pid, long start, int group, long[] now, long[] deltas) {
        int at = last.find(pid, start, group);
        for (int i = 0; i < WIDTH; i++) {
            deltas[i] = at < 0 ? now[i] : Math.max(0, now[i] - last.values[at * WIDTH + i]);
        }
        next.put(pid, start, group, now);
    }

    /** Ends a scrape: its counters become the last, and processes it did not see are forgotten. */
    void swap() {
        Table t = last;
        last = next;
        next = t;
        next.clear(last.size);
    }

    /** @return how many processes the last scrape counted */
    int size() {
        return last.size;
    }

    /** Open addressing by (pid, start, group); a pid of 0 marks a free slot (no process has pid 0). */
    private static final class Table {
        long[] pids;
        long[] starts;
        int[] groups;
        long[] values;
        int size;

        Table(int capacity) {
            allocate(capacity);
        }

        private void allocate(int capacity) {
            pids = new long[capacity];
            starts = new long[capacity];
            groups = new int[capacity];
            values = new long[capacity * WIDTH];
            size = 0;
        }

        private int slot(long pid, long start, int group) {
            long h = pid * 0x9E3779B97F4A7C15L + start * 0xC2B2AE3D27D4EB4FL + group;
            return (int) (h ^ (h >>> 29)) & (pids.length - 1);
        }

        int find(long pid, long start, int group) {
            for (int s = slot(pid, start, group); ; s = (s + 1) & (pids.length - 1)) {
                if (pids[s] == 0) {
                    return -1;
                }
                if (pids[s] == pid && starts[s] == start && groups[s] == group) {
                    return s;
                }
            }
        }

        void put(long pid, long start, int group, long[] now) {
            if ((size + 1) * 2 > pids.length) {
                grow();
            }
            int s = slot(pid, start, group);
            while (pids[s] != 0 && !(pids[s] == pid && starts[s] == start && groups[s] == group)) {
                s = (s + 1) & (pids.length - 1);
            }
            if (pids[s] == 0) {
                size++;
            }
            pids[s] = pid;
            starts[s] = start;
            groups[s] = group;
            System.arraycopy(now, 0, values, s * WIDTH, WIDTH);
        }

        private void grow() {
            long[] oldPids = pids;
            long[] oldStarts = starts;
            int[] oldGroups = groups;
            long[] oldValues = values;
            allocate(oldPids.length * 2);
            long[] v = new long[WIDTH];
            for (int s = 0; s < oldPids.length; s++) {
                if (oldPids[s] != 0) {
                    System.arraycopy(oldValues, s * WIDTH, v, 0, WIDTH);
                    put(oldPids[s], oldStarts[s], oldGroups[s], v);
                }
            }
        }

        /** Empties the table, keeping its arrays unless they are far larger than {@code expected} entries need. */
        void clear(int expected) {
            if (pids.length > 16 && pids.length > expected * 8) {
                allocate(Math.max(16, Integer.highestOneBit(Math.max(1, expected) * 4)));
                return;
            }
            Arrays.fill(pids, 0);
            size = 0;
        }
    }
}
