package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TreeMonitorIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final ProcessTable table = Procscope.system().processes();

    @Test
    void aZombieOfTheJobIsReportedOnce() throws Exception {
        // The child ends once the shell has become sleep 30, which never reaps it (the shell itself would reap a
        // child that ended before its next command).
        Process job = new ProcessBuilder("sh", "-c",
                "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 30").start();
        try {
            TreeMonitor monitor = new TreeMonitor(table, table.key(job.pid()), 50, 16L << 20);
            List<TreeMonitor.Alert> alerts = until(monitor, TreeMonitor.Alert.Kind.ZOMBIE);
            TreeMonitor.Alert zombie = alerts.stream().filter(a -> a.kind() == TreeMonitor.Alert.Kind.ZOMBIE)
                    .findFirst().orElseThrow();
            assertTrue(zombie.message().contains("pid " + job.pid()), zombie.message());
            assertEquals(List.of(), monitor.check(), "raised once");
        } finally {
            job.destroyForcibly();
            assertTrue(job.waitFor(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void residentMemoryGrowthIsReportedAndSteadyMemoryIsNot() throws Exception {
        // Doubles a string 21 times (to 20 MiB), a step every 50 ms, then holds it.
        Process job = new ProcessBuilder("sh", "-c", "read go; x=0123456789; i=0; while [ $i -lt 21 ]; do"
                + " x=\"$x$x\"; i=$((i+1)); sleep 0.05; done; echo grown; exec sleep 30").start();
        try {
            ProcessKey key = table.key(job.pid());
            TreeMonitor monitor = new TreeMonitor(table, key, 50, 8L << 20);
            assertEquals(List.of(), monitor.check(), "the first look is the baseline");
            assertEquals(List.of(), monitor.check(), "nothing grew yet");
            job.getOutputStream().write('\n');
            job.getOutputStream().flush();
            List<TreeMonitor.Alert> alerts = until(monitor, TreeMonitor.Alert.Kind.RSS_GROWTH);
            assertTrue(alerts.stream().anyMatch(a -> a.kind() == TreeMonitor.Alert.Kind.RSS_GROWTH
                    && a.pid() == key.pid()), alerts.toString());
        } finally {
            job.destroyForcibly();
            assertTrue(job.waitFor(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void nonsenseThresholdsAreRefused() {
        ProcessKey self = table.key(ProcessHandle.current().pid());
        assertThrows(IllegalArgumentException.class, () -> new TreeMonitor(table, self, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new TreeMonitor(table, self, Double.NaN, 0));
        assertThrows(IllegalArgumentException.class, () -> new TreeMonitor(table, self, 10, -1));
    }

    private static List<TreeMonitor.Alert> until(TreeMonitor monitor, TreeMonitor.Alert.Kind kind)
            throws InterruptedException {
        List<TreeMonitor.Alert> seen = new ArrayList<>();
        Instant end = Instant.now().plus(TIMEOUT);
        while (Instant.now().isBefore(end)) {
            seen.addAll(monitor.check());
            if (seen.stream().anyMatch(a -> a.kind() == kind)) {
                return seen;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + kind + " alert within " + TIMEOUT + "; seen: " + seen);
    }
}
