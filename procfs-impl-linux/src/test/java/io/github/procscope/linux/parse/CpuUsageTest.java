package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.process.CpuUsage;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStat;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** top-style %CPU between two snapshots, matched by (pid, start time). */
class CpuUsageTest {
    private static ProcessInfo proc(long pid, long startTicks, long utime, long stime) {
        String line = pid + " (p) R 1 1 1 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0 20 0 1 0 " + startTicks
                + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        byte[] b = line.getBytes(StandardCharsets.US_ASCII);
        ProcessStat st = StatParser.parse(Path.of("stat"), b, b.length, Fixtures.CONSTANTS);
        return new ProcessInfo(st, Optional.empty(), 0, Optional.empty(), Optional.empty(), Instant.EPOCH, Duration.ZERO,
                Optional.empty(), Optional.empty());
    }

    private static ProcessSnapshot snap(double uptimeSeconds, ProcessInfo... ps) {
        return new ProcessSnapshot(Instant.EPOCH, Duration.ofMillis((long) (uptimeSeconds * 1000)), Set.of(), List.of(ps));
    }

    @Test
    void percentIsCpuTimeOverWallTime() {
        ProcessSnapshot a = snap(100, proc(10, 5, 100, 0), proc(11, 5, 0, 0));
        ProcessSnapshot b = snap(102, proc(10, 5, 250, 50), proc(11, 5, 100, 0));
        Map<io.github.procscope.api.core.ProcessKey, Double> m = CpuUsage.between(a, b);
        assertEquals(100.0 * 2.0 / 2.0, m.get(new io.github.procscope.api.core.ProcessKey(10, 5)), 1e-9,
                "2 s of CPU in 2 s of wall time");
        assertEquals(50.0, m.get(new io.github.procscope.api.core.ProcessKey(11, 5)), 1e-9);
        assertEquals(100.0, CpuUsage.percent(a, b, 10).getAsDouble(), 1e-9);
    }

    @Test
    void recycledPidsAreNeverCompared() {
        ProcessSnapshot a = snap(100, proc(10, 5, 1000, 0));
        ProcessSnapshot b = snap(101, proc(10, 9000, 1, 0));
        assertTrue(CpuUsage.between(a, b).isEmpty());
        assertTrue(CpuUsage.percent(a, b, 10).isEmpty());
    }

    @Test
    void newProcessesAndSameInstantGiveNothingAndReversedOrderIsRefused() {
        ProcessSnapshot a = snap(100, proc(10, 5, 0, 0));
        ProcessSnapshot b = snap(101, proc(10, 5, 50, 0), proc(12, 9000, 5, 0));
        assertEquals(Set.of(new io.github.procscope.api.core.ProcessKey(10, 5)), CpuUsage.between(a, b).keySet());
        assertTrue(CpuUsage.between(a, a).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> CpuUsage.between(b, a));
    }
}
