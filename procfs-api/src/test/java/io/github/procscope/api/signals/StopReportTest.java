package io.github.procscope.api.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.StopReport.Ending;
import io.github.procscope.api.signals.StopReport.StoppedProcess;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StopReportTest {

    private static StoppedProcess p(long pid, Ending e) {
        return new StoppedProcess(new ProcessKey(pid, 100), "p" + pid, e, Duration.ofMillis(pid), Optional.empty());
    }

    @Test
    void summarisesEndings() {
        StopReport r = new StopReport("tree of 1", Signal.TERM, Duration.ofSeconds(1),
                List.of(p(10, Ending.TERM), p(11, Ending.KILL), p(12, Ending.GONE)), Duration.ofSeconds(2));
        assertTrue(r.allGone());
        assertTrue(r.killNeeded());
        assertTrue(r.survivors().isEmpty());
        assertEquals(Ending.KILL, r.find(11).orElseThrow().ending());
        assertTrue(r.toString().contains("KILL needed"), r.toString());

        StopReport stuck = new StopReport("process 5", Signal.TERM, Duration.ZERO,
                List.of(p(5, Ending.SURVIVED), p(6, Ending.NOT_PERMITTED)), Duration.ofSeconds(2));
        assertFalse(stuck.allGone());
        assertFalse(stuck.killNeeded());
        assertEquals(2, stuck.survivors().size());
        assertTrue(stuck.find(7).isEmpty());
        assertTrue(new StopReport("group 9", Signal.TERM, Duration.ZERO, List.of(), Duration.ZERO).allGone());
    }
}
