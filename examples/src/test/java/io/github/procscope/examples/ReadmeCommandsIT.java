package io.github.procscope.examples;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's quick start holds exactly two commands: the run command, run here against the tool the
 * build just packaged, and the test command, which CI's {@code .ci/run} must call.
 */
class ReadmeCommandsIT {

    private static List<String> quickStartCommands() {
        String quickStart = Readme.section(Readme.text(), "## Quick start");
        List<String> blocks = Readme.blocks(quickStart, "sh");
        assertEquals(2, blocks.size(), "Quick start has exactly two commands: " + blocks);
        return blocks.stream().map(String::strip).toList();
    }

    @Test
    void runCommandRunsTheTool() throws Exception {
        String run = quickStartCommands().get(0);
        assertEquals("./procscope", run);
        Path root = Readme.repositoryRoot();
        Process p = new ProcessBuilder("sh", "-c", run).directory(root.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("processes"), out);
        assertTrue(out.contains("PID"), out);
    }

    @Test
    void testCommandIsWhatCiRuns() throws Exception {
        String test = quickStartCommands().get(1);
        assertEquals("mvn verify", test);
        String ci = Files.readString(Readme.repositoryRoot().resolve(".ci/run"));
        assertTrue(ci.contains("\nmvn -B verify\n"), ".ci/run calls the README's test command");
    }
}
