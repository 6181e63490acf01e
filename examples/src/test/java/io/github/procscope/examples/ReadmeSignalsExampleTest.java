package io.github.procscope.examples;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.Signal;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.PreemptionGuard;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The code of the README's signals section, run against processes this test starts. */
class ReadmeSignalsExampleTest {
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    /** The README snippet, verbatim but for printing to {@code out}. */
    static void stopTrainingRun(long pid, PrintStream out) {
        ProcessTable table = ProcessTable.system();
        Signals signals = Signals.system();

        Dispositions d = signals.dispositions(pid);
        out.println("survives hang-up: " + d.survivesHangup() + ", handles TERM: " + d.handlesTerm()
                + ", TERM blocked: " + d.blocksTerm());

        ProcessKey run = table.key(pid);              // pid + start time: a recycled pid is never signalled
        SendResult r = signals.send(run, Signal.USR1); // e.g. "save a checkpoint now"
        out.println(r.explanation());

        StopReport report = signals.stopTree(run, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(30)));
        for (StopReport.StoppedProcess p : report.processes()) {
            out.println(p.pid() + " " + p.comm() + ": " + p.ending() + " after " + p.after().toMillis() + " ms");
        }
        out.println(report.allGone() ? "all gone" : "still alive: " + report.survivors());

        out.println(ExitStatus.fromShellStatus(137).explain()); // "... suspect the OOM killer ..."
    }

    /** The README's training-loop side. */
    static int trainWithGuard(int totalSteps, PrintStream out) {
        try (PreemptionGuard guard = PreemptionGuard.install(Signal.TERM, Signal.USR1)) {
            guard.refused().forEach(x -> out.println("warning: " + x.explanation())); // nohup, -Xrs...
            for (int step = 1; step <= totalSteps; step++) {
                // trainOneStep(step);
                if (guard.stopRequested()) {      // only at a step boundary
                    // saveCheckpoint(step);       // temp file + rename
                    guard.exitAfterCheckpoint();  // System.exit(128 + N): shutdown hooks run
                }
            }
            return 0;
        }
    }

    @Test
    void theReadmeCodeRuns() {
        Process p = spawned.start("setsid", "sh", "-c", "trap 'echo usr1' USR1; sleep 1000 & echo ready; wait; wait");
        assertTrue(Spawned.readLine(p, Duration.ofSeconds(30)).equals("ready"));
        ProcessTable table = ProcessTable.system();
        Spawned.await(Duration.ofSeconds(30), "the child to exec sleep", () -> table.tree().children(p.pid()).stream()
                .anyMatch(c -> c.comm().equals("sleep")));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);

        stopTrainingRun(p.pid(), out);
        trainWithGuard(3, out);

        String text = buf.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("survives hang-up: false, handles TERM: false"), text);
        assertTrue(text.contains("SIGUSR1 delivered to pid " + p.pid()), text);
        assertTrue(text.contains(p.pid() + " sh: TERM"), text);
        assertTrue(text.contains(" sleep: TERM"), text);
        assertTrue(text.contains("all gone"), text);
        assertTrue(text.contains("OOM killer"), text);
        assertTrue(!text.contains("warning:"), text);
    }
}
