package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.cli.demo.TrainingLoopDemo;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's PSS, threads and lifecycle events, on real jobs. */
class RunReportContentsIT {
    private static JsonNode run(Path report, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("run", "--report", report.toString()));
        all.addAll(List.of(args));
        CliRun r = CliRun.of(all.toArray(String[]::new));
        assertEquals(0, r.status(), r.err());
        return Context.mapper().readTree(Files.readString(report));
    }

    @Test
    void lifecycleEventsNameTheJobsProcessesWithTheirPids(@TempDir Path tmp) throws Exception {
        Path pids = tmp.resolve("pids");
        JsonNode j = run(tmp.resolve("r.json"), "--interval", "50ms", "--", "sh", "-c",
                "sleep 0.6 & echo $! > " + pids + "; sleep 0.3; wait; exit 0");
        long leader = j.path("leaderPid").asLong();
        long child = Long.parseLong(Files.readString(pids).trim());
        JsonNode events = j.path("events");
        JsonNode first = events.get(0);
        assertEquals("STARTED", first.path("kind").asText(), events.toString());
        assertEquals(leader, first.path("pid").asLong());
        boolean childStarted = false;
        boolean childExited = false;
        for (JsonNode e : events) {
            if (e.path("pid").asLong() == child) {
                // first seen, it may not have exec'd yet (named after the shell that forked it); it ends as sleep
                childStarted |= e.path("kind").asText().equals("STARTED") && e.path("ppid").asLong() == leader;
                childExited |= e.path("kind").asText().equals("EXITED") && childStarted
                        && e.path("comm").asText().equals("sleep");
            }
        }
        assertTrue(childStarted && childExited, "the child started under the leader, then exited: " + events);
        JsonNode last = events.get(events.size() - 1);
        assertEquals("EXITED", last.path("kind").asText());
        assertEquals(leader, last.path("pid").asLong());
        assertEquals(0, last.path("status").path("code").asInt(), "the leader's exit status: " + last);
        assertEquals(0, j.path("eventsOmitted").asLong());
        assertTrue(j.path("peakThreads").asInt() >= 2, "the leader and its child at least: " + j.path("peakThreads"));
        assertTrue(j.path("peakPssBytes").isNull(), "PSS only on request");
    }

    @Test
    void pssOnRequestOfAPrivate100MiBJobIsCloseToItsRss(@TempDir Path tmp) throws Exception {
        JsonNode j = run(tmp.resolve("r.json"), "--pss", "--interval", "100ms", "--", "perl", "-e",
                "my $x = \"a\" x (100*1024*1024); substr($x, 5, 1) = \"b\"; sleep 1;");
        double pss = j.path("peakPssBytes").asDouble();
        double rss = j.path("peakRssBytes").asDouble();
        assertTrue(rss >= 100L << 20, "rss " + rss);
        // Private anonymous memory: each page counted whole in PSS too; only the shared libraries' pages are split.
        double ratio = pss / rss;
        assertTrue(ratio > 0.9 && ratio <= 1.01, "pss " + pss + " rss " + rss);
    }

    @Test
    void threadsOfAJvmAreCountedPerThreadNotPerProcess(@TempDir Path tmp) throws Exception {
        List<String> train = Spawned.javaCommand(List.of(), TrainingLoopDemo.class, "--checkpoint",
                tmp.resolve("c").toString(), "--steps", "10", "--step-ms", "100").command();
        // The job inherits this JVM's standard output, the test runner's channel: the trainer's lines go elsewhere
        // (the shell execs it, so the job is still one process).
        List<String> args = new ArrayList<>(List.of("--interval", "100ms", "--forward", "none", "--", "sh", "-c",
                "exec \"$@\" > /dev/null", "sh"));
        args.addAll(train);
        JsonNode j = run(tmp.resolve("r.json"), args.toArray(String[]::new));
        // A JVM runs main, reference handler, finalizer, signal dispatcher, compiler and GC threads at least.
        assertTrue(j.path("peakThreads").asInt() >= 8, "threads " + j.path("peakThreads"));
        assertEquals(1, j.path("processesStarted").asInt());
    }
}
