package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.StopReport;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WatchAndStopJobIT {

    @Test
    void watchesTheWholeTreeAndLeavesNothingBehind() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StopReport report = WatchAndStopJob.run(List.of("sh", "-c", "sleep 60 & sleep 60 & wait"), 2,
                Duration.ofMillis(300), Duration.ofSeconds(2), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("3 process(es)"), out);
        assertTrue(report.allGone(), out);
        assertEquals(3, report.processes().size(), out);
        ProcessTable table = Procscope.system().processes();
        for (StopReport.StoppedProcess p : report.processes()) {
            // Gone, or a zombie waiting for its adoptive parent to reap it: either way it runs no more.
            assertTrue(table.find(p.pid()).map(q -> q.state() == ProcessState.ZOMBIE || q.key().startTimeTicks()
                    != p.key().startTimeTicks()).orElse(true), "still alive: " + p.pid());
        }
    }
}
