package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PreemptibleTrainingLoopIT {

    @Test
    void termCheckpointsAtAStepBoundaryExits143AndTheNextRunResumes(@TempDir Path dir) throws Exception {
        Path checkpoint = dir.resolve("ckpt");
        Process run = start(checkpoint, 100_000, 20);
        List<String> lines = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("step 3")) {
                lines.add(line);
            }
            assertEquals("starting", lines.get(0), lines.toString());
            ProcessTable table = Procscope.system().processes();
            assertTrue(Procscope.system().signals().send(table.key(run.pid()), Signal.TERM).delivered());
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
            assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the run did not end: " + lines);
        } finally {
            run.destroyForcibly();
        }
        String last = lines.get(lines.size() - 1);
        assertTrue(last.startsWith("stop requested: checkpointed at step "), lines.toString());
        int saved = PreemptibleTrainingLoop.resumeStep(checkpoint);
        assertEquals(last, "stop requested: checkpointed at step " + saved);
        assertTrue(saved >= 4, "after step 3: " + saved);

        ExitStatus status = ExitStatus.fromShellStatus(run.exitValue());
        assertEquals(143, status.shellStatus(), "exits as a JVM ending on TERM does");
        assertTrue(status.explainInDetail().contains("checkpoint"), status.explainInDetail());

        Process again = start(checkpoint, saved + 2, 1);
        try {
            String out = new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(again.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, again.exitValue(), out);
            assertEquals("resumed at step " + saved + "\nstep " + saved + "\nstep " + (saved + 1) + "\ndone\n", out);
            assertEquals(saved + 2, PreemptibleTrainingLoop.resumeStep(checkpoint));
        } finally {
            again.destroyForcibly();
        }
    }

    private static Process start(Path checkpoint, int steps, long stepMillis) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                PreemptibleTrainingLoop.class.getName(), checkpoint.toString(), Integer.toString(steps),
                Long.toString(stepMillis)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
