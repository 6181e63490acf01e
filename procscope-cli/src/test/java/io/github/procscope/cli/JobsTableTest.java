package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jobs} shows a job's log path whole, last on its line, however long, and cuts the command instead. */
class JobsTableTest {

    private static CliRun jobs(Path state, int width) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = ProcscopeCli.run(new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), false, width, "jobs", "--state-dir",
                state.toString());
        return new CliRun(status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLongLogPathIsShownWholeAndTheCommandIsCut(@TempDir Path tmp) {
        Path state = tmp.resolve("state");
        JobStore store = JobStore.open(state, true);
        String id = "20261204-223111";
        String log = "/" + "d".repeat(120 - 2 - id.length() - ".log".length()) + "/" + id + ".log";
        assertEquals(120, log.length());
        List<String> command = List.of("python", "train.py", "--epochs", "90", "--data", "/datasets/imagenet/train");
        ObjectNode rec = Json.object();
        rec.put("id", id);
        rec.put("state", "ended");
        Json.putStrings(rec, "command", command);
        rec.put("startTime", "2026-12-04T22:31:11Z");
        rec.put("log", log);
        rec.putObject("report").putObject("exit").put("code", 0);
        assertTrue(store.create(id, rec));

        CliRun narrow = jobs(state, 80);
        assertEquals(0, narrow.status(), narrow.err());
        List<String> lines = narrow.out().lines().toList();
        assertEquals(2, lines.size(), narrow.out());
        assertTrue(lines.get(0).startsWith("ID ") && lines.get(0).endsWith(" LOG"), lines.get(0));
        String row = lines.get(1);
        assertTrue(row.startsWith(id) && row.contains("exited 0"), row);
        assertTrue(row.endsWith(" " + log), "the log's path whole, last: " + row);
        assertTrue(row.contains(" python tr") && row.contains("... /") && !row.contains(String.join(" ", command)),
                "the command cut to make room: " + row);

        // A terminal wide enough shows the command whole too.
        String wide = jobs(state, 250).out().lines().toList().get(1);
        assertTrue(wide.contains(String.join(" ", command) + " ") && wide.endsWith(" " + log), wide);
        assertTrue(wide.length() <= 250, wide);
    }
}
