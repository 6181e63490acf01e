package io.github.procscope.benchmarks;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter's CPU time as the benchmark reads it from {@code /proc/PID/stat}. */
class CpuTimeTest {
    @Test
    void utimeAndStimeAreFields14And15AfterACommandNameWithSpacesAndParentheses() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime ...
        String stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 89 10 20 0 1 0 5000 0 0\n";
        assertEquals(1234 + 567, CpuTime.ticks(stat));
    }

    @Test
    void thisJvmsTicksAgreeWithItsOwnCpuTime() throws Exception {
        // Spin until the JVM has used some CPU, then compare with what it says of itself (within three ticks a side).
        long until = System.nanoTime() + 300_000_000L;
        long x = 0;
        while (System.nanoTime() < until) {
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long before = os.getProcessCpuTime();
        long ticks = CpuTime.ticksOf(ProcessHandle.current().pid());
        long after = os.getProcessCpuTime();
        double ms = ticks * 1000.0 / CpuTime.TICKS_PER_SECOND;
        assertTrue(ms >= before / 1e6 - 30 && ms <= after / 1e6 + 30,
                ms + " ms from /proc/self/stat, " + before / 1e6 + " to " + after / 1e6 + " ms from the JVM (" + x + ")");
    }
}
