package io.github.procscope.metrics.family;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a process adds to its group's counters from one scrape to the next ({@link ProcessCounters}). */
class ProcessCountersTest {
    private final ProcessCounters counters = new ProcessCounters();
    private final long[] deltas = new long[ProcessCounters.WIDTH];

    private long[] advance(long pid, long start, int group, long... now) {
        counters.advance(pid, start, group, now, deltas);
        return deltas.clone();
    }

    @Test
    void aNewProcessAddsAllItUsedAndThenTheIncrease() {
        assertArrayEquals(new long[] {10, 20, 1, 2, 300, 400}, advance(7, 100, 0, 10, 20, 1, 2, 300, 400));
        counters.swap();
        assertArrayEquals(new long[] {5, 0, 0, 3, 0, 100}, advance(7, 100, 0, 15, 20, 1, 5, 300, 500));
        counters.swap();
        // A counter that went down (never, for the kernel's; a reused slot, say) adds nothing rather than less.
        assertArrayEquals(new long[] {0, 0, 0, 0, 0, 0}, advance(7, 100, 0, 1, 20, 1, 5, 300, 500));
    }

    @Test
    void aReusedPidAnotherGroupOrAProcessMissedOnceCountsFromTheStart() {
        advance(7, 100, 0, 10, 10, 10, 10, 10, 10);
        advance(8, 100, 0, 10, 10, 10, 10, 10, 10);
        advance(9, 100, 0, 10, 10, 10, 10, 10, 10);
        counters.swap();
        assertArrayEquals(new long[] {12, 12, 12, 12, 12, 12}, advance(7, 101, 0, 12, 12, 12, 12, 12, 12),
                "pid 7 again, started later: another process");
        assertArrayEquals(new long[] {12, 12, 12, 12, 12, 12}, advance(8, 100, 1, 12, 12, 12, 12, 12, 12),
                "the same process in another group (its command changed)");
        counters.swap(); // pid 9 was not seen: forgotten
        assertEquals(2, counters.size());
        assertArrayEquals(new long[] {13, 13, 13, 13, 13, 13}, advance(9, 100, 0, 13, 13, 13, 13, 13, 13));
        assertArrayEquals(new long[] {1, 1, 1, 1, 1, 1}, advance(7, 101, 0, 13, 13, 13, 13, 13, 13));
    }

    @Test
    void thousandsOfProcessesGrowAndShrinkTheTables() {
        for (int round = 0; round < 3; round++) {
            for (long pid = 1; pid <= 20_000; pid++) {
                long[] d = advance(pid, pid * 3, (int) (pid % 7), round + pid, round, 0, 0, 0, 0);
                assertEquals(round == 0 ? pid : 1, d[0], "pid " + pid + " in round " + round);
            }
            counters.swap();
            assertEquals(20_000, counters.size());
        }
        // Pid 5 (start 15, group 5) had 2 + 5 and 2 in the last round; only it stays: the tables shrink.
        assertArrayEquals(new long[] {0, 1, 0, 0, 0, 0}, advance(5, 15, 5, 7, 3, 0, 0, 0, 0));
        for (int round = 0; round < 3; round++) {
            counters.swap();
            assertArrayEquals(new long[6], advance(5, 15, 5, 7, 3, 0, 0, 0, 0));
        }
        counters.swap();
        assertEquals(1, counters.size());
        assertArrayEquals(new long[] {1, 0, 0, 0, 0, 0}, advance(5, 15, 5, 8, 3, 0, 0, 0, 0));
    }
}
