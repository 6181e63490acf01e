package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

    /**
     * The command-line section's examples that read the fixture machine shipped with the tests (those with
     * {@code --procfs-root}) run as written, and the JSON sample is what that command prints.
     */
    @Test
    void fixtureMachineExamplesRunAsWritten() throws Exception {
        String section = Readme.section(Readme.text(), "## The command-line tool");
        List<String> runnable = Readme.blocks(section, "sh").stream()
                .flatMap(b -> b.lines())
                .map(l -> l.startsWith("$ ") ? l.substring(2) : l)
                .filter(l -> l.startsWith("./procscope ") && l.contains("--procfs-root "))
                .map(l -> l.contains(" #") ? l.substring(0, l.indexOf(" #")).strip() : l.strip())
                .toList();
        assertEquals(2, runnable.size(), "the tree example and the JSON sample: " + runnable);
        Path root = Readme.repositoryRoot();
        for (String command : runnable) {
            String dir = command.split("--procfs-root ")[1].split(" ")[0];
            assertTrue(Files.isDirectory(root.resolve(dir)), "the README names a tree that exists: " + dir);
            Process p = new ProcessBuilder("sh", "-c", command).directory(root.toFile()).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), command + "\n" + out);
            assertTrue(out.contains("4100"), out);
            if (command.contains("--json")) {
                String block = Readme.blocks(section, "sh").stream().filter(b -> b.contains("$ " + command))
                        .findFirst().orElseThrow();
                String sample = block.substring(block.indexOf('\n') + 1);
                ObjectMapper json = new ObjectMapper();
                JsonNode printed = json.readTree(out);
                JsonNode expected = json.readTree(sample);
                if (!"root".equals(System.getProperty("user.name"))) {
                    // The fixture's owner is whoever checked it out; the sample shows a root checkout.
                    for (JsonNode n : List.of(expected.get("processes").get(0), printed.get("processes").get(0))) {
                        ((com.fasterxml.jackson.databind.node.ObjectNode) n).remove(List.of("uid", "user"));
                    }
                }
                assertEquals(expected, printed, "the README's sample is what the command prints");
            }
        }
    }

    @Test
    void testCommandIsWhatCiRuns() throws Exception {
        String test = quickStartCommands().get(1);
        assertEquals("mvn verify", test);
        String ci = Files.readString(Readme.repositoryRoot().resolve(".ci/run"));
        assertTrue(ci.contains("\nmvn -B verify\n"), ".ci/run calls the README's test command");
    }
}
