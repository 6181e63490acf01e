package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code procscope events --tree PID}: a child the tree's root forks, and its exit, one JSON object per line. */
class EventsCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private void forkAndExit(boolean diff) throws Exception {
        Process root = new ProcessBuilder("sh", "-c", "read x; sh -c 'sleep 2; exit 3'; sleep 30").start();
        try {
            List<String> args = new ArrayList<>(List.of("--json", "events", "--tree", Long.toString(root.pid()),
                    "--count", diff ? "4" : "6", "--interval", "50ms"));
            if (diff) {
                args.add("--diff");
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> ProcscopeCli.run(
                    new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8), false, 80,
                    args.toArray(new String[0])), io.github.procscope.testing.Spawned::ownThread);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("source")
                    && System.nanoTime() < deadline) {
                Thread.sleep(20); // until the subscription is up
            }
            root.getOutputStream().write('\n');
            root.getOutputStream().flush();
            int status = run.get(60, TimeUnit.SECONDS);
            CliRun r = new CliRun(status, out.toString(java.nio.charset.StandardCharsets.UTF_8),
                    err.toString(java.nio.charset.StandardCharsets.UTF_8));
            assertEquals(0, r.status(), r.err());
            assertTrue(r.err().contains(diff ? "source snapshot_diff (snapshot diffing was asked for)" : "source "), r.err());
            List<JsonNode> lines = new ArrayList<>();
            for (String l : r.out().split("\n")) {
                lines.add(JSON.readTree(l));
            }
            JsonNode fork = lines.stream().filter(n -> n.get("type").asText().equals("FORK")).findFirst()
                    .orElseThrow(() -> new AssertionError(r.out() + r.err()));
            assertEquals(root.pid(), fork.get("ppid").asLong(), r.out());
            JsonNode last = lines.get(lines.size() - 1);
            long child = fork.get("pid").asLong();
            if (diff) {
                // the child shell and its sleep appear, then end: seen by two snapshots each, without status
                assertEquals(List.of("FORK", "FORK", "EXIT", "EXIT"), lines.stream().map(n -> n.get("type").asText()).toList(),
                        r.out());
                assertTrue(lines.stream().allMatch(n -> n.get("exitCode").isNull() && n.get("coreDumped").isNull()), r.out());
                assertTrue(lines.stream().allMatch(n -> n.get("source").asText().equals("SNAPSHOT_DIFF")), r.out());
            } else {
                // fork, exec of the child shell; fork, exec, exit of its sleep; the child's exit with code 3
                assertEquals(List.of("FORK", "EXEC", "FORK", "EXEC", "EXIT", "EXIT"),
                        lines.stream().map(n -> n.get("type").asText()).toList(), r.out());
                assertEquals(child, last.get("pid").asLong(), r.out());
                assertEquals(3, last.get("exitCode").asInt(), r.out());
                assertEquals(0, lines.get(4).get("exitCode").asInt(), r.out());
                assertEquals("sleep", lines.get(4).get("comm").asText(), r.out());
                assertEquals(false, last.get("coreDumped").asBoolean(), r.out());
                assertEquals("NETLINK", last.get("source").asText(), r.out());
            }
            for (String field : List.of("type", "pid", "ppid", "comm", "time", "exitCode", "signal", "coreDumped", "cause",
                    "source")) {
                assertTrue(last.has(field), field + " in " + last);
            }
        } finally {
            root.descendants().forEach(ProcessHandle::destroyForcibly);
            root.destroyForcibly();
            root.waitFor();
        }
    }

    @Test
    void snapshotDiffingFollowsTheTree() throws Exception {
        forkAndExit(true);
    }

    /** Runs {@code events} over a shell that renames itself once the subscription is up. */
    private CliRun renameSeen(boolean json, boolean diff) throws Exception {
        Process root = new ProcessBuilder("sh", "-c", "read x; printf stage-two > /proc/self/comm; read y").start();
        try {
            List<String> args = new ArrayList<>(List.of("events", "--tree", Long.toString(root.pid()), "--count", "1",
                    "--interval", "50ms"));
            if (json) {
                args.add(0, "--json");
            }
            if (diff) {
                args.add("--diff");
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> ProcscopeCli.run(
                    new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8), false, 80,
                    args.toArray(new String[0])), io.github.procscope.testing.Spawned::ownThread);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("source")
                    && System.nanoTime() < deadline) {
                Thread.sleep(20); // until the subscription is up: it compares its first snapshot with what it read then
            }
            root.getOutputStream().write('\n');
            root.getOutputStream().flush();
            int status = run.get(60, TimeUnit.SECONDS);
            return new CliRun(status, out.toString(java.nio.charset.StandardCharsets.UTF_8),
                    err.toString(java.nio.charset.StandardCharsets.UTF_8));
        } finally {
            root.destroyForcibly();
            root.waitFor();
        }
    }

    @Test
    void aShellThatRenamesItselfIsPrintedAsARename() throws Exception {
        for (boolean diff : new boolean[] {false, true}) {
            CliRun json = renameSeen(true, diff);
            assertEquals(0, json.status(), json.err());
            JsonNode e = JSON.readTree(json.out());
            assertEquals("RENAME", e.get("type").asText(), json.out());
            assertEquals("stage-two", e.get("comm").asText(), json.out());
            CliRun text = renameSeen(false, diff);
            assertEquals(0, text.status(), text.err());
            assertTrue(text.out().strip().matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} +\\d+ stage-two +rename"), text.out());
        }
    }

}
