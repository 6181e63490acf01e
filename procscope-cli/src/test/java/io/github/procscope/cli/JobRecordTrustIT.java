package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.testing.Spawned;
import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Job records and logs that someone else could have written are refused, by {@code jobs} and by {@code logs},
 * with the reason, and never followed; a user's own records stay usable, as root and as {@code nobody}.
 */
class JobRecordTrustIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final int NOBODY = 65534;

    private static ObjectNode record(String id, Path log) {
        ObjectNode rec = Json.object();
        rec.put("id", id);
        rec.put("state", "ended");
        Json.putStrings(rec, "command", List.of("sh", "-c", "echo"));
        rec.put("startTime", "2026-01-01T00:00:00Z");
        rec.put("log", log.toString());
        return rec;
    }

    private static void write(Path file, ObjectNode rec) throws Exception {
        Files.writeString(file, Context.mapper().writeValueAsString(rec));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static void chown(Path p, int uid) throws Exception {
        Files.setAttribute(p, "unix:uid", uid, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    private static void mkfifo(Path p) throws Exception {
        assertEquals(0, new ProcessBuilder("mkfifo", p.toString()).start().waitFor());
    }

    /** Runs {@code sh -c script} as {@code nobody}. */
    private static void asNobody(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                "sh", "-c", script, "sh"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }

    /**
     * A shared state directory (root's, mode 1777, as {@code /tmp}): a record written by {@code nobody} that
     * names {@code /etc/shadow}, and records of root's with an id that climbs out, a pid beyond any pid, a log
     * outside its rules, a record that is a symbolic link or a FIFO, and logs that are a link, a FIFO or another
     * user's file: {@code jobs} lists only the sound records and names every other one with its reason on one
     * line; {@code logs} refuses each with one line and status 1, and prints nothing of what they point at.
     */
    @Test
    void forgedRecordsAndLogsAreRefusedByJobsAndLogsRunAsRoot(@TempDir Path tmp) throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path state = Files.createDirectory(tmp.resolve("shared"));
        Files.setAttribute(state, "unix:mode", 01777);
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        Path secret = Files.writeString(tmp.resolve("secret"), "SECRET-CONTENT\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));

        Map<String, String> refused = new TreeMap<>(); // file name -> a word of the reason
        // nobody's record, pointing at a file only root may read
        String byNobody = "20260101-000001";
        asNobody("printf '%s' \"$1\" > \"$2\"", Context.mapper().writeValueAsString(record(byNobody, secret))
                .replace("\"running\"", "\"ended\""), state.resolve(byNobody + ".json").toString());
        refused.put(byNobody + ".json", "belongs to uid " + NOBODY);
        // root's records with forged content
        ObjectNode climbs = record("../../etc/passwd", logs.resolve("20260101-000002.log"));
        climbs.putObject("job").put("pid", 99999999999L).put("startTimeTicks", 1);
        write(state.resolve("20260101-000002.json"), climbs);
        refused.put("20260101-000002.json", "is not its name's");
        ObjectNode hugePid = record("20260101-000003", logs.resolve("20260101-000003.log"));
        hugePid.putObject("job").put("pid", 99999999999L).put("startTimeTicks", 1);
        write(state.resolve("20260101-000003.json"), hugePid);
        refused.put("20260101-000003.json", "is not a pid");
        write(state.resolve("20260101-000004.json"), record("20260101-000004", secret));
        refused.put("20260101-000004.json", "is not DIR/20260101-000004.log");
        write(state.resolve("20260101-000011.json"), record("20260101-000011",
                Path.of(logs + "/../logs/20260101-000011.log")));
        refused.put("20260101-000011.json", "is not DIR/20260101-000011.log");
        Path elsewhere = tmp.resolve("elsewhere.json");
        write(elsewhere, record("20260101-000005", logs.resolve("20260101-000005.log")));
        Files.createSymbolicLink(state.resolve("20260101-000005.json"), elsewhere);
        refused.put("20260101-000005.json", "a symbolic link");
        mkfifo(state.resolve("20260101-000006.json"));
        refused.put("20260101-000006.json", "a FIFO");
        write(state.resolve("evil.json"), record("evil", logs.resolve("evil.log")));
        refused.put("evil.json", "is not a job id");
        Path groupWritable = state.resolve("20260101-000012.json");
        write(groupWritable, record("20260101-000012", logs.resolve("20260101-000012.log")));
        Files.setPosixFilePermissions(groupWritable, PosixFilePermissions.fromString("rw-rw----"));
        refused.put("20260101-000012.json", "writable by its group");

        // root's sound records whose logs are not to be followed, and one whose log is sound
        Map<String, String> badLogs = new TreeMap<>();
        write(state.resolve("20260101-000007.json"), record("20260101-000007", logs.resolve("20260101-000007.log")));
        Files.createSymbolicLink(logs.resolve("20260101-000007.log"), secret);
        badLogs.put("20260101-000007", "a symbolic link");
        write(state.resolve("20260101-000008.json"), record("20260101-000008", logs.resolve("20260101-000008.log")));
        mkfifo(logs.resolve("20260101-000008.log"));
        badLogs.put("20260101-000008", "not a regular file");
        write(state.resolve("20260101-000009.json"), record("20260101-000009", logs.resolve("20260101-000009.log")));
        Files.writeString(logs.resolve("20260101-000009.log"), "planted\n");
        chown(logs.resolve("20260101-000009.log"), NOBODY);
        badLogs.put("20260101-000009", "belongs to uid " + NOBODY);
        String sound = "20260101-000010";
        write(state.resolve(sound + ".json"), record(sound, logs.resolve(sound + ".log")));
        Files.writeString(logs.resolve(sound + ".log"), "the job's own output\n");

        CliRun jobs = CliRun.of("jobs", "--state-dir", state.toString());
        assertEquals(0, jobs.status(), jobs.err());
        List<String> listed = jobs.out().lines().skip(1).map(l -> l.split("\\s+")[0]).sorted().toList();
        assertEquals(List.of("20260101-000007", "20260101-000008", "20260101-000009", sound), listed, jobs.out());
        List<String> lines = jobs.err().lines().toList();
        assertEquals(refused.size(), lines.size(), jobs.err());
        refused.forEach((name, why) -> assertTrue(lines.stream().anyMatch(l -> l.startsWith("procscope jobs: record ")
                && l.contains(name) && l.contains(" is refused: ") && l.contains(why)), name + ": " + jobs.err()));
        CliRun json = CliRun.of("--json", "jobs", "--state-dir", state.toString());
        assertEquals(4, Context.mapper().readTree(json.out()).size(), json.out());

        for (String name : refused.keySet()) {
            String id = name.substring(0, name.length() - ".json".length());
            CliRun logsRun = CliRun.of("logs", "--state-dir", state.toString(), id);
            if (id.equals("evil")) {
                assertEquals(2, logsRun.status(), "not an id: no such job; " + logsRun.err());
            } else {
                assertEquals(1, logsRun.status(), id + ": " + logsRun.err());
                assertTrue(logsRun.err().contains("is refused: " ) && logsRun.err().contains(refused.get(name)),
                        logsRun.err());
            }
            assertEquals(1, logsRun.err().lines().count(), logsRun.err());
            assertEquals("", logsRun.out());
        }
        for (Map.Entry<String, String> e : badLogs.entrySet()) {
            CliRun logsRun = CliRun.of("logs", "--state-dir", state.toString(), e.getKey());
            assertEquals(1, logsRun.status(), e.getKey() + ": " + logsRun.err());
            assertTrue(logsRun.err().startsWith("procscope logs: the log of job " + e.getKey())
                    && logsRun.err().contains(e.getValue()), logsRun.err());
            assertEquals(1, logsRun.err().lines().count(), logsRun.err());
            assertEquals("", logsRun.out());
        }
        CliRun good = CliRun.of("logs", "--state-dir", state.toString(), sound);
        assertEquals(0, good.status(), good.err());
        assertEquals("the job's own output\n", good.out());
        assertFalse(jobs.out().contains("SECRET") || jobs.err().contains("SECRET"));
    }

    /** A state directory that others may write to (without the sticky bit), or that another user owns, is refused. */
    @Test
    void aStateDirectoryOthersCouldWriteToIsRefused(@TempDir Path tmp) throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv");
        Map<String, String> dirs = Map.of("rwxrwxrwx", "writable by everyone", "rwxrwx---", "writable by its group",
                "rwx------", "belongs to uid " + NOBODY);
        for (Map.Entry<String, String> e : dirs.entrySet()) {
            Path state = Files.createDirectory(tmp.resolve("state-" + e.getKey()));
            Files.setPosixFilePermissions(state, PosixFilePermissions.fromString(e.getKey()));
            if (e.getKey().equals("rwx------")) {
                chown(state, NOBODY);
            }
            CliRun jobs = CliRun.of("jobs", "--state-dir", state.toString());
            assertEquals(1, jobs.status(), jobs.err());
            assertEquals(1, jobs.err().lines().count(), jobs.err());
            assertTrue(jobs.err().contains("the job state directory " + state + " is refused: ")
                    && jobs.err().contains(e.getValue()), jobs.err());
            CliRun run = CliRun.of("run", "--detach", "--log", tmp.resolve("logs").toString(), "--state-dir",
                    state.toString(), "--", "true");
            assertEquals(1, run.status(), run.err());
            assertTrue(run.err().contains("is refused: ") && run.err().contains(e.getValue()), run.err());
            try (var s = Files.list(state)) {
                assertEquals(0, s.count(), "nothing was recorded in a refused directory");
            }
        }
    }

    /**
     * {@code nobody} runs detached jobs with its own state directory, and with root's shared sticky one: it sees
     * and reads its own records and logs; root refuses nobody's directory, and nobody's record in the shared one.
     */
    @Test
    void recordsWrittenByNobodyAreUsableByNobody(@TempDir Path tmp) throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv");
        Files.setAttribute(tmp, "unix:mode", 01777);
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777);
        Path own = tmp.resolve("nobody-state");
        Path logs = tmp.resolve("nobody-logs");
        for (Path state : List.of(own, shared)) {
            String marker = "hello-from-nobody-" + state.getFileName();
            Nobody started = nobody("run", "--detach", "--log", logs.toString(), "--state-dir", state.toString(), "--",
                    "sh", "-c", "echo " + marker);
            assertEquals(0, started.status(), started.toString());
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("job (\\S+) \\(pid \\d+, supervisor (\\d+)\\)")
                    .matcher(started.out());
            assertTrue(m.find(), started.out());
            String id = m.group(1);
            try (Spawned spawned = new Spawned()) {
                spawned.adopt(Long.parseLong(m.group(2)));
                Spawned.await(TIMEOUT, "the end of nobody's job " + id, () -> {
                    Nobody j = nobody("--json", "jobs", "--state-dir", state.toString());
                    return j.status() == 0 && j.out().contains("\"exited 0\"");
                });
            }
            Nobody jobs = nobody("--json", "jobs", "--state-dir", state.toString());
            assertEquals("", jobs.err(), jobs.toString());
            JsonNode list = Context.mapper().readTree(jobs.out());
            assertEquals(1, list.size(), jobs.out());
            assertEquals(id, list.get(0).path("id").asText());
            Nobody log = nobody("logs", "--state-dir", state.toString(), id);
            assertEquals(0, log.status(), log.toString());
            assertTrue(log.out().startsWith(marker + "\n"), log.out());
            assertEquals(NOBODY, (int) (Integer) Files.getAttribute(state.resolve(id + ".json"), "unix:uid"));

            CliRun asRoot = CliRun.of("jobs", "--state-dir", state.toString());
            if (state.equals(own)) {
                assertEquals(1, asRoot.status(), asRoot.err());
                assertTrue(asRoot.err().contains("belongs to uid " + NOBODY), asRoot.err());
            } else {
                assertEquals(0, asRoot.status(), asRoot.err());
                assertTrue(asRoot.err().contains(id + ".json is refused: it belongs to uid " + NOBODY), asRoot.err());
                assertFalse(asRoot.out().contains(id), asRoot.out());
            }
            CliRun rootLogs = CliRun.of("logs", "--state-dir", state.toString(), id);
            assertEquals(1, rootLogs.status(), rootLogs.err());
            assertFalse(rootLogs.out().contains(marker));
        }
    }

    private record Nobody(int status, String out, String err) {
    }

    private static Nobody nobody(String... args) {
        try {
            Path out = Files.createTempFile("procscope-nobody-", ".out");
            Path err = Files.createTempFile("procscope-nobody-", ".err");
            try {
                Process p = Unprivileged.java(ProcscopeCli.class, args)
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("procscope " + List.of(args) + " as nobody did not end");
                }
                return new Nobody(p.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
