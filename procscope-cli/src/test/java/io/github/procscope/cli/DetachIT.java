package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code run --detach}, {@code jobs} and {@code logs}, on real detached jobs. */
class DetachIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern STARTED = Pattern.compile("job (\\S+) \\(pid (\\d+), supervisor \\d+\\)");

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static JsonNode job(Path state, String id) throws Exception {
        CliRun r = CliRun.of("--json", "jobs", "--state-dir", state.toString());
        assertEquals(0, r.status(), r.err());
        for (JsonNode j : Context.mapper().readTree(r.out())) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + r.out());
    }

    private static void send(long pid, Signal signal) {
        Procscope s = Procscope.system();
        ProcessKey k = s.processes().key(pid);
        assertTrue(s.signals().send(k, signal).delivered(), signal + " to " + pid);
    }

    /**
     * A terminal session ({@code script} gives it a pseudo-terminal) starts a detached job and hangs up: its
     * leader gets SIGHUP and dies, the terminal goes away, and the job goes on; a HUP sent to the job itself
     * is ignored too. Its log holds its standard output and error in the order written, and {@code logs -f}
     * follows it to its end.
     */
    @Test
    void aDetachedJobSurvivesTheHangUpOfItsSessionAndLogsBothStreamsInOrder(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        Path logs = tmp.resolve("logs");
        Path go = tmp.resolve("go");
        String job = "echo out-1; echo err-2 >&2; echo out-3; echo err-4 >&2;"
                + " echo \"unbuffered=$PYTHONUNBUFFERED stdbuf=$_STDBUF_O\";"
                + " while [ ! -e " + go + " ]; do sleep 0.05; done; echo out-5; echo err-6 >&2; exit 4";
        List<String> front = new ArrayList<>(Spawned.javaCommand(List.of(), ProcscopeCli.class).command());
        front.addAll(List.of("run", "--detach", "--log", logs.toString(), "--state-dir", state.toString(),
                "--interval", "100ms", "--", "sh", "-c", job));
        StringBuilder session = new StringBuilder("echo leader $(awk '{print $6}' /proc/$$/stat)\n");
        for (String w : front) {
            session.append(quote(w)).append(' ');
        }
        session.append("\nsleep 600\n");
        Path script = tmp.resolve("session.sh");
        Files.writeString(script, session.toString());
        try (Spawned spawned = new Spawned()) {
            Process term = spawned.start(new ProcessBuilder(Spawned.withDefaultSignals(List.of("script", "-q", "-e",
                    "-c", "sh " + script, "/dev/null"))).redirectErrorStream(true));
            String leaderLine = Spawned.readLine(term, TIMEOUT).strip();
            assertTrue(leaderLine.startsWith("leader "), leaderLine);
            long leader = Long.parseLong(leaderLine.substring("leader ".length()).strip());
            spawned.adopt(leader);
            String started = Spawned.readLine(term, TIMEOUT).strip();
            Matcher m = STARTED.matcher(started);
            assertTrue(m.find(), started);
            String id = m.group(1);
            long pid = Long.parseLong(m.group(2));
            spawned.adopt(pid);
            JsonNode before = job(state, id);
            spawned.adopt(before.path("supervisorPid").asLong());
            // The supervisor runs as long as its job: a heap that starts small, on JDK 24+ under G1.
            List<String> supervisorArgs = Procscope.system().processes()
                    .cmdline(before.path("supervisorPid").asLong());
            assertTrue(supervisorArgs.contains("-Xms8m") && supervisorArgs.contains(
                    Runtime.version().feature() >= 24 ? "-XX:+UseG1GC" : "-XX:+UseSerialGC"), supervisorArgs.toString());
            assertEquals("running", before.path("status").asText(), before.toString());
            Path log = Path.of(before.path("log").asText());
            assertEquals(logs.resolve(id + ".log"), log);

            // The job is in a session of its own, without a terminal, and ignores SIGHUP.
            Procscope s = Procscope.system();
            assertNotEquals(s.processes().process(leader).sid(), s.processes().process(pid).sid());
            assertTrue(s.processes().process(pid).tty().isEmpty(), "no controlling terminal");
            assertTrue(s.signals().dispositions(pid).ignoresHangup(), "SIGHUP ignored");

            send(leader, Signal.HUP);
            assertTrue(term.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the terminal session ended");
            send(pid, Signal.HUP);
            Thread.sleep(300);
            assertEquals("running", job(state, id).path("status").asText(), "the job outlived the hang-up");

            Files.createFile(go);
            CliRun follow = CliRun.of("logs", "-f", "--state-dir", state.toString(), id);
            assertEquals(0, follow.status(), follow.err());
            List<String> lines = follow.out().lines().toList();
            assertEquals(List.of("out-1", "err-2", "out-3", "err-4", "unbuffered=1 stdbuf=L", "out-5", "err-6"),
                    lines.subList(0, 7), follow.out());
            JsonNode after = job(state, id);
            assertEquals("exited 4", after.path("status").asText(), after.toString());
            assertEquals(4, after.path("exit").path("code").asInt());
            assertEquals(follow.out(), Files.readString(log, StandardCharsets.UTF_8), "logs prints the log");
        }
    }

    @Test
    void anExistingLogIsNeverReplaced(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        ZonedDateTime now = ZonedDateTime.now();
        List<Path> mine = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Path f = logs.resolve(JobStore.stamp(now.plusSeconds(i), 1) + ".log");
            Files.writeString(f, "a user's file " + i + "\n");
            mine.add(f);
        }
        CliRun r = CliRun.of("run", "--detach", "--log", logs.toString(), "--state-dir", state.toString(), "--",
                "sh", "-c", "echo new");
        try (Spawned spawned = new Spawned()) {
            assertEquals(0, r.status(), r.err());
            Matcher m = STARTED.matcher(r.out());
            assertTrue(m.find(), r.out());
            String id = m.group(1);
            JsonNode j = job(state, id);
            spawned.adopt(j.path("supervisorPid").asLong());
            assertTrue(id.matches("\\d{8}-\\d{6}-\\d+"), "a suffixed name beside the user's file: " + id);
            Spawned.await(TIMEOUT, "the job's end", () -> {
                try {
                    return job(state, id).path("state").asText().equals("ended");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue(CliRun.withoutInheritedNotices(Files.readString(logs.resolve(id + ".log"))).startsWith("new\n"));
            for (int i = 0; i < mine.size(); i++) {
                assertEquals("a user's file " + i + "\n", Files.readString(mine.get(i)));
            }
        }
    }

    @Test
    void aRecordWhoseSupervisorIsGoneOrAnotherProcessSaysSo(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        JobStore store = JobStore.open(state, true);
        ProcessKey self = Procscope.system().processes().key(ProcessHandle.current().pid());
        String live = "20260101-000000";
        String reused = "20260101-000000-2";
        for (String id : List.of(live, reused)) {
            ObjectNode rec = Json.object();
            rec.put("id", id);
            rec.put("state", "running");
            Json.putStrings(rec, "command", List.of("sleep", "1"));
            rec.put("startTime", "2026-01-01T00:00:00Z");
            rec.put("log", tmp.resolve(id + ".log").toString());
            ObjectNode sup = rec.putObject("supervisor");
            sup.put("pid", self.pid());
            // Same pid, another start time: a recycled pid, not the supervisor.
            sup.put("startTimeTicks", id.equals(live) ? self.startTimeTicks() : self.startTimeTicks() + 1);
            assertTrue(store.create(id, rec));
            assertFalse(store.create(id, rec), "a record is never replaced by a new one");
        }
        assertEquals("running", job(state, live).path("status").asText());
        assertEquals("supervisor died; job ended", job(state, reused).path("status").asText());
        CliRun table = CliRun.of("jobs", "--state-dir", state.toString());
        assertEquals(0, table.status(), table.err());
        assertEquals("", table.err());
        assertTrue(table.out().lines().anyMatch(l -> l.startsWith(reused) && l.contains("supervisor died; job ended")),
                table.out());
    }

    @Test
    void badJobsGetOneLineAndStatus2(@TempDir Path tmp) throws Exception {
        Path state = Files.createDirectories(tmp.resolve("state"));
        Files.writeString(tmp.resolve("secret.json"), "{\"id\":\"x\",\"log\":\"/etc/passwd\"}");
        for (String bad : List.of("no-such-job", "../secret", ".hidden", "", "a/b")) {
            CliRun r = CliRun.of("logs", "--state-dir", state.toString(), bad);
            assertEquals(2, r.status(), bad + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("procscope logs: no job"), r.err());
            assertEquals("", r.out());
        }
        assertEquals(2, CliRun.of("run", "--detach", "--", "true").status(), "--detach needs --log");
        assertEquals(2, CliRun.of("run", "--log", tmp.toString(), "--", "true").status(), "--log needs --detach");
        CliRun notFound = CliRun.of("run", "--detach", "--log", tmp.resolve("l").toString(), "--state-dir",
                state.toString(), "--", "procscope-no-such-program");
        assertEquals(127, notFound.status(), notFound.err());
        assertTrue(notFound.err().startsWith("procscope run: cannot start"), notFound.err());
        Path notDir = Files.writeString(tmp.resolve("file"), "x");
        assertEquals(2, CliRun.of("run", "--detach", "--log", notDir.toString(), "--state-dir", state.toString(),
                "--", "true").status());
        CliRun empty = CliRun.of("jobs", "--state-dir", tmp.resolve("none").toString());
        assertEquals(0, empty.status(), empty.err());
        assertTrue(empty.out().startsWith("ID"), empty.out());
    }

    @Test
    void logsOfAFifoIsRefused(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        JobStore store = JobStore.open(state, true);
        String id = "20260101-000000";
        Path fifo = tmp.resolve(id + ".log");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        ObjectNode rec = Json.object();
        rec.put("id", id);
        rec.put("state", "ended");
        rec.put("log", fifo.toString());
        assertTrue(store.create(id, rec));
        CliRun r = CliRun.of("logs", "--state-dir", state.toString(), id);
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("not a regular file") && r.err().contains("is refused"), r.err());
    }

    /**
     * A detached job on a log disk that fills up (a 64 KiB tmpfs): the job reads "exited 0", and {@code jobs} and
     * {@code logs} say how much of its output the log is missing, and why.
     */
    @Test
    void aLogOnAFullDiskSaysWhatItLost(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounts a tmpfs");
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs",
                logs.toString()).redirectErrorStream(true).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor(60, TimeUnit.SECONDS) && mount.exitValue() == 0,
                "cannot mount a tmpfs here");
        Path state = tmp.resolve("state");
        try (Spawned spawned = new Spawned()) {
            String line = "0123456789012345678901234567890123456789012345678901234567890ab"; // 63 + newline
            CliRun r = CliRun.of("run", "--detach", "--log", logs.toString(), "--state-dir", state.toString(), "--",
                    "sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo " + line + "; i=$((i+1)); done");
            assertEquals(0, r.status(), r.err());
            Matcher m = STARTED.matcher(r.out());
            assertTrue(m.find(), r.out());
            String id = m.group(1);
            spawned.adopt(job(state, id).path("supervisorPid").asLong());
            Spawned.await(TIMEOUT, "the job's end", () -> {
                try {
                    return job(state, id).path("state").asText().equals("ended");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            JsonNode j = job(state, id);
            long lost = j.path("report").path("lostOutput").path("bytes").asLong();
            assertTrue(lost >= 3000L * 64 - 64 * 1024, "the log cannot hold more than 64 KiB: lost " + lost);
            assertEquals("exited 0; log lost " + lost + " bytes", j.path("status").asText(), j.toString());
            assertTrue(j.path("report").path("lostOutput").path("reason").asText().contains("No space left on device"));
            CliRun table = CliRun.of("jobs", "--state-dir", state.toString());
            assertTrue(table.out().contains("exited 0; log lost " + lost + " bytes"), table.out());
            CliRun logsRun = CliRun.of("logs", "--state-dir", state.toString(), id);
            assertEquals(0, logsRun.status(), logsRun.err());
            assertTrue(CliRun.withoutInheritedNotices(logsRun.out()).startsWith(line + "\n"), logsRun.out());
            assertEquals(1, logsRun.err().lines().count(), logsRun.err());
            assertTrue(logsRun.err().startsWith("procscope logs: " + lost + " bytes of the job's output are not in this"
                    + " log") && logsRun.err().contains("(No space left on device)"), logsRun.err());
        } finally {
            unmount(logs);
        }
    }

    /**
     * Unmounts a file system the test mounted, trying again while it is busy: a killed supervisor's last threads
     * can still hold its log open for a moment after its pid reads as ended.
     */
    private static void unmount(Path mountPoint) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            Process umount = new ProcessBuilder("umount", mountPoint.toString()).redirectErrorStream(true).start();
            String said = new String(umount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(umount.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "umount ended");
            if (umount.exitValue() == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("cannot unmount " + mountPoint + ": " + said + "held by: " + holders(mountPoint));
            }
            Thread.sleep(100);
        }
    }

    /** @return the processes with a file under {@code dir} open, one "pid fd command" a line */
    private static String holders(Path dir) throws Exception {
        StringBuilder out = new StringBuilder();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                try (var fds = Files.list(p.resolve("fd"))) {
                    for (Path fd : (Iterable<Path>) fds::iterator) {
                        if (Files.readSymbolicLink(fd).startsWith(dir)) {
                            out.append(p.getFileName()).append(' ').append(fd.getFileName()).append(' ')
                                    .append(Files.readString(p.resolve("cmdline")).replace('\0', ' ')).append('\n');
                        }
                    }
                } catch (java.io.IOException e) {
                    // not a process, or gone
                }
            }
        }
        return out.toString();
    }
}
