package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's detached scenario, run as written against the tool the build just packaged (through
 * {@code ./procscope}): start the demo run detached, list it, follow its log, preempt it with {@code kill -TERM}
 * to the supervisor, list it again and read its report. The sample id and pids of the README are replaced by
 * those of this run.
 */
class ReadmeScenarioIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern STARTED = Pattern.compile("^job (\\d{8}-\\d{6}(?:-\\d+)?) \\(pid (\\d+), supervisor (\\d+)\\)$");

    private static List<String> commands() {
        String section = Readme.section(Readme.text(), "### In the background: `--detach`, `jobs`, `logs`");
        List<String> blocks = Readme.blocks(section, "sh");
        assertEquals(1, blocks.size(), section);
        List<String> out = new ArrayList<>();
        blocks.get(0).lines().filter(l -> l.startsWith("$ ")).forEach(l -> out.add(l.substring(2).strip()));
        assertEquals(List.of("./procscope run", "exit", "./procscope jobs", "./procscope logs", "kill -TERM",
                        "./procscope jobs"),
                out.stream().map(c -> c.startsWith("./procscope run") ? "./procscope run"
                        : c.startsWith("./procscope logs") ? "./procscope logs"
                        : c.startsWith("kill -TERM") ? "kill -TERM" : c).toList(), "the scenario's steps: " + out);
        return out;
    }

    private static String sampleOutputLine(int index) {
        String section = Readme.section(Readme.text(), "### In the background: `--detach`, `jobs`, `logs`");
        return Readme.blocks(section, "sh").get(0).lines().toList().get(index);
    }

    private static String sh(Path dir, String command) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), command);
        assertEquals(0, p.exitValue(), command + "\n" + out);
        return out;
    }

    @Test
    void theDetachedScenarioRunsAsWritten(@TempDir Path tmp) throws Exception {
        List<String> steps = commands();
        String tool = Readme.repositoryRoot().resolve("procscope").toString();
        String state = "PROCSCOPE_STATE_DIR=" + tmp.resolve("state") + " ";
        Matcher sample = STARTED.matcher(sampleOutputLine(1));
        assertTrue(sample.matches(), "the README's sample start line: " + sampleOutputLine(1));
        String started = sh(tmp, state + steps.get(0).replace("./procscope", tool));
        try (Spawned spawned = new Spawned()) {
            Matcher m = STARTED.matcher(started.lines().filter(l -> l.startsWith("job ")).findFirst().orElse(""));
            assertTrue(m.matches(), started);
            String id = m.group(1);
            spawned.adopt(Long.parseLong(m.group(2)));
            spawned.adopt(Long.parseLong(m.group(3)));
            assertTrue(started.contains("log " + tmp.resolve("logs").resolve(id + ".log")), started);

            String listed = sh(tmp, state + steps.get(2).replace("./procscope", tool));
            assertTrue(listed.lines().anyMatch(l -> l.startsWith(id) && l.contains(" running ")), listed);

            Process follow = spawned.start(new ProcessBuilder("sh", "-c", state
                    + steps.get(3).replace("./procscope", tool).replace(sample.group(1), id))
                    .directory(tmp.toFile()).redirectErrorStream(true));
            String line;
            do {
                line = Spawned.readLine(follow, TIMEOUT);
            } while (!line.equals("step 2"));

            sh(tmp, steps.get(4).replace(sample.group(3), m.group(3)));
            List<String> rest = new ArrayList<>();
            for (String l = readOrNull(follow); l != null; l = readOrNull(follow)) {
                rest.add(l);
            }
            assertTrue(follow.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, follow.exitValue(), String.join("\n", rest));
            assertTrue(rest.stream().anyMatch(l -> l.startsWith("checkpoint saved after step ")), rest.toString());
            assertTrue(rest.get(rest.size() - 1).startsWith("procscope run: job " + id + ": preempted"), rest.toString());

            String after = sh(tmp, state + steps.get(5).replace("./procscope", tool));
            assertTrue(after.lines().anyMatch(l -> l.startsWith(id) && l.contains(" preempted, exited 143 ")), after);
            JsonNode report = Context.mapper().readTree(Files.readString(tmp.resolve("run.json")));
            assertEquals("PREEMPTED", report.path("exit").path("cause").asText());
            assertEquals(143, report.path("exit").path("code").asInt());
            assertEquals("SIGTERM", report.path("forwardedSignals").get(0).path("signal").asText());
            assertTrue(report.path("exit").path("explanation").asText().contains("within the grace period"),
                    report.toString());
            assertTrue(Files.readString(tmp.resolve("run.ckpt")).contains("procscope-demo-checkpoint"));
        }
    }

    private static String readOrNull(Process p) {
        try {
            return Spawned.readLine(p, TIMEOUT);
        } catch (AssertionError e) {
            if (String.valueOf(e.getMessage()).contains("closed stdout")) {
                return null;
            }
            throw e;
        }
    }
}
