package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.ScriptedProcess;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Process subcommands on processes this test starts (and ends, by pid, through {@link Spawned}): ps against
 * {@code ps}, tree, threads, signals, stop, watch and demo-train.
 */
class LiveProcessCommandsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Spawned spawned = new Spawned();

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    private static JsonNode json(CliRun r) {
        assertEquals(0, r.status(), r.err());
        try {
            return JSON.readTree(r.out());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + r.out(), e);
        }
    }

    /** Starts a command and waits until it has replaced the forked JVM image (its comm is the program's). */
    private Process start(String comm, String... command) {
        // From default dispositions, whatever this JVM inherited (a build under nohup, or a background job).
        Process p = spawned.start(Spawned.withDefaultSignals(List.of(command)).toArray(String[]::new));
        Spawned.await(TIMEOUT, command[0] + " execs", () -> comm(p.pid()).equals(comm));
        return p;
    }

    private static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/comm")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void fdsAndMapsOfAZombieSayItIsOneInOneLineWithStatusOne() throws Exception {
        // The shell's child exits at once; its parent becomes sleep, which never reaps it: a zombie.
        Process parent = start("sleep", "sh", "-c",
                "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 300");
        long[] zombie = new long[1];
        Spawned.await(TIMEOUT, "a zombie child", () -> {
            for (String line : Commands.run("ps", "-o", "pid=,stat=", "--ppid", Long.toString(parent.pid())).split("\n")) {
                String[] f = line.strip().split("\\s+");
                if (f.length == 2 && f[1].startsWith("Z")) {
                    zombie[0] = Long.parseLong(f[0]);
                    return true;
                }
            }
            return false;
        });
        String pid = Long.toString(zombie[0]);
        for (String command : List.of("fds", "maps")) {
            for (boolean json : new boolean[] {false, true}) {
                CliRun r = json ? CliRun.of("--json", command, pid) : CliRun.of(command, pid);
                assertEquals(ProcscopeCli.NOT_FOUND, r.status(), command + ": " + r.out() + r.err());
                assertEquals("", r.out(), command);
                assertEquals(1, r.err().lines().count(), r.err());
                assertTrue(r.err().startsWith("procscope " + command + ": process " + pid + " (sleep) is a zombie: it"
                        + " has exited and "), r.err());
                assertTrue(r.err().contains("its parent " + parent.pid() + " has not reaped it yet"), r.err());
            }
        }
        // Its parent, alive, is answered as before.
        CliRun live = CliRun.of("fds", Long.toString(parent.pid()));
        assertEquals(ProcscopeCli.OK, live.status(), live.err());
    }

    @Test
    void psAgreesWithPsAndFitsEightyColumns() {
        Process sleep = start("sleep", "sleep", "300");
        JsonNode p = json(CliRun.of("--json", "ps", "--pid", Long.toString(sleep.pid()))).get("processes").get(0);
        String[] ps = Commands.run("ps", "-o", "pid=,ppid=,stat=,nlwp=,rss=,vsz=,comm=", "-p", Long.toString(sleep.pid()))
                .strip().split("\\s+");
        assertEquals(Long.parseLong(ps[0]), p.get("pid").asLong());
        assertEquals(Long.parseLong(ps[1]), p.get("ppid").asLong());
        assertEquals(ps[2].charAt(0), io.github.procscope.api.process.ProcessState.valueOf(p.get("state").asText()).letter());
        assertEquals(Integer.parseInt(ps[3]), p.get("threads").asInt());
        assertEquals(Long.parseLong(ps[4]) * 1024, p.get("rssBytes").asLong());
        assertEquals(Long.parseLong(ps[5]) * 1024, p.get("vszBytes").asLong());
        assertEquals(ps[6], p.get("comm").asText());
        assertEquals(ProcessHandle.current().pid(), p.get("ppid").asLong());

        CliRun table = CliRun.of("ps", "--sort=-rss");
        assertEquals(0, table.status(), table.err());
        assertTrue(table.out().lines().count() > 2, table.out());
        for (String line : table.out().split("\n")) {
            assertTrue(line.length() <= 80, "wider than 80 columns: '" + line + "'");
        }
        assertTrue(table.out().lines().anyMatch(l -> l.matches("\\s*" + sleep.pid() + "\\s+" + ProcessHandle.current().pid()
                + " .*sleep")), table.out());
    }

    @Test
    void statShowsLockedPagesAsPsDoes() {
        Process locked = spawned.start(NativeHelpers.executable("locked_pages").toString());
        long pid = Long.parseLong(Spawned.readLine(locked, TIMEOUT));
        Process plain = start("sleep", "sleep", "300");
        String psLocked = Commands.run("ps", "-o", "stat=", "-p", Long.toString(pid)).strip();
        String psPlain = Commands.run("ps", "-o", "stat=", "-p", Long.toString(plain.pid())).strip();
        assertTrue(psLocked.contains("L"), "ps itself shows L for the mlock()ed helper: " + psLocked);

        CliRun r = CliRun.of("ps", "--pid", pid + "," + plain.pid());
        assertEquals(0, r.status(), r.err());
        assertEquals(psLocked, statColumn(r.out(), pid), r.out());
        assertEquals(psPlain, statColumn(r.out(), plain.pid()), r.out());
        assertFalse(psPlain.contains("L"), psPlain);
    }

    /** @return the STAT cell of a pid's row in ps's table (PID PPID USER STAT ...) */
    private static String statColumn(String table, long pid) {
        return table.lines().map(l -> l.strip().split("\\s+")).filter(f -> f[0].equals(Long.toString(pid)))
                .map(f -> f[3]).findFirst().orElseThrow(() -> new AssertionError("no row for " + pid + ":\n" + table));
    }

    @Test
    void treeShowsChildrenAndSubtreeRss() {
        Process sh = spawned.start("sh", "-c", "sleep 300 & sleep 301 & echo started; wait");
        assertEquals("started", Spawned.readLine(sh, TIMEOUT));
        Spawned.await(TIMEOUT, "both children exec sleep", () -> {
            JsonNode t = json(CliRun.of("--json", "tree", Long.toString(sh.pid())));
            int sleeps = 0;
            for (JsonNode c : t.get("children")) {
                sleeps += c.get("comm").asText().equals("sleep") ? 1 : 0;
            }
            return sleeps == 2;
        });
        JsonNode t = json(CliRun.of("--json", "tree", Long.toString(sh.pid())));
        long sum = t.get("rssBytes").asLong();
        for (JsonNode c : t.get("children")) {
            spawned.adopt(c.get("pid").asLong());
            assertEquals(sh.pid(), c.get("ppid").asLong());
            sum += c.get("subtreeRssBytes").asLong();
        }
        assertEquals(2, t.get("children").size());
        assertEquals(sum, t.get("subtreeRssBytes").asLong());
    }

    @Test
    void threadsListsEveryTaskByName() {
        Process jvm = spawned.startJava(List.of(), io.github.procscope.cli.lab.LabThreads.class);
        assertEquals(Long.toString(jvm.pid()), Spawned.readLine(jvm, TIMEOUT), "the lab's helper prints its pid when ready");
        JsonNode threads = json(CliRun.of("--json", "threads", Long.toString(jvm.pid())));
        Set<String> names = new HashSet<>();
        for (JsonNode t : threads) {
            names.add(t.get("name").asText());
            assertTrue(Files.isDirectory(Path.of("/proc", Long.toString(jvm.pid()), "task", t.get("tid").asText())));
        }
        assertTrue(names.containsAll(Set.of("lab-worker-1", "lab-worker-2", "lab-worker-3", "lab-worker-4")),
                names.toString());
        assertEquals(jvm.pid(), threads.get(0).get("tid").asLong(), "the main thread's tid is the pid");
        assertTrue(threads.size() >= 5, "a JVM has its own threads besides the workers: " + threads.size());
    }

    @Test
    void signalsShowHupIgnoredUnderNohup() {
        Process nohup = start("sleep", "nohup", "sleep", "300");
        JsonNode s = json(CliRun.of("--json", "signals", Long.toString(nohup.pid())));
        assertTrue(s.get("ignored").toString().contains("\"HUP\""), s.toString());
        assertTrue(s.get("survivesHangup").asBoolean());
        assertFalse(s.get("handlesTerm").asBoolean());
        Process plain = start("sleep", "sleep", "300");
        JsonNode p = json(CliRun.of("--json", "signals", Long.toString(plain.pid())));
        assertFalse(p.get("survivesHangup").asBoolean(), p.toString());
        CliRun words = CliRun.of("signals", Long.toString(nohup.pid()));
        assertTrue(words.out().contains("Hang-up: survives it; HUP is ignored (as nohup arranges)."), words.out());
    }

    @Test
    void stopEndsAPlainProcessWithTerm() {
        Process sleep = start("sleep", "sleep", "300");
        JsonNode r = json(CliRun.of("--json", "stop", Long.toString(sleep.pid()), "--grace", "20s"));
        assertTrue(r.get("allGone").asBoolean(), r.toString());
        JsonNode p = r.get("processes").get(0);
        assertEquals(sleep.pid(), p.get("pid").asLong());
        assertEquals("sleep", p.get("comm").asText());
        assertEquals("TERM", p.get("ending").asText());
        assertTrue(p.get("afterSeconds").asDouble() >= 0 && p.get("afterSeconds").asDouble() < 20, r.toString());
        // The tool runs inside this test's JVM, which started the sleep: whether its exit status is known depends on
        // whether the JDK's own reaper collected it first. When it is known, it must say TERM.
        assertTrue(p.get("exitStatus").isNull() || p.get("exitStatus").get("shellStatus").asInt() == 143, r.toString());
    }

    @Test
    void stopTreeKillsWhatIgnoresTermAndReportsEveryProcess() throws Exception {
        // The shell and its children ignore TERM (an ignored disposition survives exec): KILL is needed for all.
        Process sh = spawned.start("sh", "-c", "trap '' TERM; sleep 300 & sleep 301 & echo started; wait");
        assertEquals("started", Spawned.readLine(sh, TIMEOUT));
        Spawned.await(TIMEOUT, "the children exec sleep", () -> {
            JsonNode t = json(CliRun.of("--json", "tree", Long.toString(sh.pid())));
            return t.get("children").size() == 2 && t.get("children").get(0).get("comm").asText().equals("sleep")
                    && t.get("children").get(1).get("comm").asText().equals("sleep");
        });
        JsonNode t = json(CliRun.of("--json", "tree", Long.toString(sh.pid())));
        List<Long> kids = new ArrayList<>();
        t.get("children").forEach(c -> kids.add(c.get("pid").asLong()));
        kids.forEach(spawned::adopt);

        CliRun r = CliRun.of("--json", "stop", Long.toString(sh.pid()), "--tree", "--grace", "300ms");
        JsonNode report = json(r);
        assertTrue(report.get("allGone").asBoolean(), report.toString());
        assertEquals(3, report.get("processes").size(), report.toString());
        for (JsonNode p : report.get("processes")) {
            assertEquals("KILL", p.get("ending").asText(), p.toString());
        }
        Set<Long> pids = new HashSet<>();
        report.get("processes").forEach(p -> pids.add(p.get("pid").asLong()));
        assertEquals(Set.of(sh.pid(), kids.get(0), kids.get(1)), pids);
        assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, sh.exitValue(), "128 + KILL's 9");

        CliRun table = CliRun.of("stop", Long.toString(sh.pid()));
        assertEquals(1, table.status(), "it is gone now");
    }

    @Test
    void watchFollowsTheRssOfATreeAsItGrows() throws Exception {
        ScriptedProcess helper = ScriptedProcess.start(spawned);
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(() -> ProcscopeCli.run(out,
                new PrintStream(errors, true, StandardCharsets.UTF_8), "--json", "watch", Long.toString(helper.pid()),
                "--interval", "50ms"), io.github.procscope.testing.Spawned::ownThread);
        Spawned.await(TIMEOUT, "two rows", () -> rows(buffer).size() >= 2);
        long before = rows(buffer).get(rows(buffer).size() - 1).get("rssBytes").asLong();
        helper.send("reserve 200");
        helper.send("touch 120");
        Spawned.await(TIMEOUT, "a row with 100 MiB more RSS", () -> {
            List<JsonNode> rows = rows(buffer);
            return rows.get(rows.size() - 1).get("rssBytes").asLong() >= before + (100L << 20);
        });
        helper.process().getOutputStream().write("exit\n".getBytes(StandardCharsets.UTF_8));
        helper.process().getOutputStream().flush();
        assertEquals(0, watch.get(60, TimeUnit.SECONDS), errors.toString(StandardCharsets.UTF_8));
        assertTrue(errors.toString(StandardCharsets.UTF_8).contains("process " + helper.pid() + " (memhelper) ended"),
                errors.toString(StandardCharsets.UTF_8));
        List<JsonNode> rows = rows(buffer);
        for (JsonNode r : rows) {
            assertEquals(helper.pid(), r.get("pid").asLong());
            assertEquals(1, r.get("processes").asInt());
            assertTrue(r.get("cpuPercent").isNumber() && r.get("cpuPercent").asDouble() >= 0, r.toString());
            assertTrue(r.get("takenAt").isTextual());
        }
    }

    private static List<JsonNode> rows(ByteArrayOutputStream buffer) {
        List<JsonNode> out = new ArrayList<>();
        for (String line : buffer.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                try {
                    out.add(JSON.readTree(line));
                } catch (IOException e) {
                    throw new AssertionError("not a JSON row: " + line, e);
                }
            }
        }
        return out;
    }

    @Test
    void watchWritesCsvRowsWhenNotOnATerminal() {
        Process sleep = start("sleep", "sleep", "300");
        CliRun r = CliRun.of("watch", Long.toString(sleep.pid()), "--count", "2", "--interval", "20ms");
        assertEquals(0, r.status(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("time,pid,processes,threads,rssBytes,cpuPercent,gpuMemoryBytes", lines.get(0));
        assertEquals(3, lines.size(), r.out());
        String[] f = lines.get(1).split(",", -1);
        assertEquals(7, f.length, lines.get(1));
        assertEquals(Long.toString(sleep.pid()), f[1]);
        assertEquals("1", f[2]);
        assertTrue(Long.parseLong(f[4]) > 0, "RSS");
    }

    @Test
    void demoTrainRunsInProcessAndResumes() throws IOException {
        Path ckpt = tmp.resolve("run.ckpt");
        CliRun first = CliRun.of("demo-train", "--checkpoint", ckpt.toString(), "--steps", "3", "--step-ms", "1");
        assertEquals(0, first.status(), first.err());
        assertEquals(List.of("step 1", "step 2", "step 3"), first.out().lines().limit(3).toList());
        assertTrue(Files.exists(ckpt));
        CliRun more = CliRun.of("demo-train", "--checkpoint", ckpt.toString(), "--steps", "5", "--step-ms", "1");
        assertEquals(0, more.status(), more.err());
        assertEquals(List.of("resumed after step 3", "step 4", "step 5"), more.out().lines().limit(3).toList());
        Files.writeString(ckpt, "garbage");
        CliRun damaged = CliRun.of("demo-train", "--checkpoint", ckpt.toString(), "--steps", "5", "--step-ms", "1");
        assertEquals(1, damaged.status());
        GpuCommandTest.assertOneLine(damaged.err());
    }

    @Test
    void procscopeStopPreemptsDemoTrainWhichCheckpointsAndExits143() throws Exception {
        Path ckpt = tmp.resolve("run.ckpt");
        Process train = spawned.startJava(List.of(), ProcscopeCli.class, "demo-train", "--checkpoint", ckpt.toString(),
                "--steps", "100000", "--step-ms", "20");
        assertEquals("step 1", Spawned.readLine(train, TIMEOUT));
        JsonNode report = json(CliRun.of("--json", "stop", Long.toString(train.pid()), "--grace", "60s"));
        assertEquals("TERM", report.get("processes").get(0).get("ending").asText(), report.toString());
        assertTrue(train.waitFor(60, TimeUnit.SECONDS));
        assertEquals(143, train.exitValue(), "the JVM handled TERM, checkpointed and exited with 128 + 15");
        String last = "";
        for (String line = Spawned.readLine(train, TIMEOUT); ; line = Spawned.readLine(train, TIMEOUT)) {
            last = line;
            if (line.startsWith("checkpoint saved after step ")) {
                break;
            }
        }
        int step = Integer.parseInt(last.substring("checkpoint saved after step ".length()));
        CliRun resumed = CliRun.of("demo-train", "--checkpoint", ckpt.toString(), "--steps", Integer.toString(step + 1),
                "--step-ms", "1");
        assertEquals("resumed after step " + step, resumed.out().lines().findFirst().orElse(""), resumed.err());
    }
}
