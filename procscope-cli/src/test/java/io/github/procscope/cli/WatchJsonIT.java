package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code watch --json} on a tree this test starts and changes: each row lists the tree's processes, their sums
 * are the row's totals, and a process started (and ended) between rows is named in {@code joined} (and
 * {@code left}).
 */
class WatchJsonIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    /** Standard output of the watch, readable while it runs. */
    private static final class Lines extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        synchronized List<JsonNode> rows() {
            List<JsonNode> rows = new ArrayList<>();
            String text = bytes.toString(StandardCharsets.UTF_8);
            for (String line : text.split("\n")) {
                if (!line.isBlank() && text.contains(line + "\n")) {
                    try {
                        rows.add(JSON.readTree(line));
                    } catch (IOException e) {
                        throw new UncheckedIOException("not JSON: " + line, e);
                    }
                }
            }
            return rows;
        }
    }

    private static boolean names(JsonNode keys, long pid) {
        for (JsonNode k : keys) {
            if (k.path("pid").asLong() == pid) {
                return true;
            }
        }
        return false;
    }

    @Test
    void rowsListTheTreeAndWhoJoinedAndLeftAndTheirSumsAreTheTotals() throws Exception {
        // The shell starts a child when told to (one line on its stdin), and lives on after the child ends
        // until it reads a second line.
        Process shell = spawned.start("sh", "-c", "read x; sleep 300 & echo $!; wait; read y");
        Lines out = new Lines();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(() -> ProcscopeCli.run(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                false, 80, "--json", "watch", Long.toString(shell.pid()), "--interval", "100ms", "--count", "100000"));
        long child;
        try {
            Spawned.await(TIMEOUT, "a first row", () -> !out.rows().isEmpty());
            shell.getOutputStream().write("start\n".getBytes(StandardCharsets.UTF_8));
            shell.getOutputStream().flush();
            child = Long.parseLong(Spawned.readLine(shell, TIMEOUT).strip());
            spawned.adopt(child);
            Spawned.await(TIMEOUT, "a row where " + child + " joined",
                    () -> out.rows().stream().anyMatch(r -> names(r.get("joined"), child)));
            ProcessHandle.of(child).orElseThrow().destroy(); // TERM, by its pid
            Spawned.await(TIMEOUT, "a row where " + child + " left",
                    () -> out.rows().stream().anyMatch(r -> names(r.get("left"), child)));
            shell.getOutputStream().write("end\n".getBytes(StandardCharsets.UTF_8));
            shell.getOutputStream().flush();
            assertEquals(0, watch.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        } finally {
            shell.destroyForcibly();
        }
        List<JsonNode> rows = out.rows();
        assertTrue(rows.size() >= 3, rows.toString());
        for (JsonNode row : rows) {
            JsonNode members = row.get("members");
            assertEquals(row.get("processes").asInt(), members.size(), row.toString());
            assertEquals(shell.pid(), members.get(0).get("pid").asLong(), "the root first: " + row);
            long rss = 0;
            long threads = 0;
            double cpu = 0;
            boolean anyCpu = false;
            for (JsonNode m : members) {
                rss += m.get("rssBytes").asLong();
                threads += m.get("threads").asLong();
                assertFalse(m.get("comm").asText().isEmpty(), m.toString());
                if (!m.get("cpuPercent").isNull()) {
                    cpu += m.get("cpuPercent").asDouble();
                    anyCpu = true;
                }
            }
            assertEquals(row.get("rssBytes").asLong(), rss, row.toString());
            assertEquals(row.get("threads").asLong(), threads, row.toString());
            assertEquals(anyCpu, !row.get("cpuPercent").isNull(), row.toString());
            if (anyCpu) {
                assertEquals(row.get("cpuPercent").asDouble(), cpu, 1e-6, row.toString());
            }
            assertTrue(row.get("joined").isArray() && row.get("left").isArray(), row.toString());
        }
        // The row where the child joined lists it among its processes; the one where it left does not.
        JsonNode joined = rows.stream().filter(r -> names(r.get("joined"), child)).findFirst().orElseThrow();
        assertTrue(names(joined.get("members"), child), joined.toString());
        JsonNode left = rows.stream().filter(r -> names(r.get("left"), child)).findFirst().orElseThrow();
        assertFalse(names(left.get("members"), child), left.toString());
        assertFalse(names(rows.get(0).get("members"), child), "not there before it started: " + rows.get(0));
    }
}
