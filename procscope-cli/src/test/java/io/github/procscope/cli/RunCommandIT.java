package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.cli.demo.TrainingLoopDemo;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static JsonNode read(Path report) throws Exception {
        return Context.mapper().readTree(Files.readString(report));
    }

    @Test
    void exitsWithTheJobsStatusAndReportsIt(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("r.json");
        CliRun r = CliRun.of("run", "--report", report.toString(), "--", "sh", "-c", "exit 3");
        assertEquals(3, r.status(), r.err());
        JsonNode j = read(report);
        assertEquals(3, j.path("exit").path("code").asInt());
        assertTrue(j.path("exit").path("signal").isNull());
        assertEquals("EXITED", j.path("exit").path("cause").asText());
        assertEquals("sh", j.path("command").get(0).asText());
        for (String name : List.of("startTime", "endTime", "durationSeconds", "peakRssBytes", "peakGpuMemoryBytes",
                "cpuSeconds", "processesStarted", "stragglers", "forwardedSignals")) {
            assertTrue(j.has(name), "no " + name + " in " + j);
        }
        assertTrue(j.path("exit").has("coreDumped") && j.path("exit").has("explanation"));
    }

    @Test
    void aKillFromOutsideExits137(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("r.json");
        Path pidFile = tmp.resolve("pid");
        // The job writes its own pid, and a test thread kills it by that pid.
        Thread killer = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.sleep(20);
                }
                long pid = Long.parseLong(Files.readString(pidFile).trim());
                Procscope s = Procscope.system();
                s.signals().send(s.processes().key(pid), io.github.procscope.api.signals.Signal.KILL);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        killer.start();
        CliRun r = CliRun.of("run", "--report", report.toString(), "--", "sh", "-c",
                "echo $$ > " + pidFile + "; exec sleep 60");
        killer.join();
        assertEquals(137, r.status(), r.err());
        JsonNode j = read(report);
        assertEquals("SIGKILL", j.path("exit").path("signal").asText());
        assertEquals("KILLED_BY_SIGNAL", j.path("exit").path("cause").asText());
        assertTrue(j.path("exit").path("explanation").asText().contains("killed by SIGKILL"), j.toString());
        assertTrue(r.err().contains("killed by SIGKILL"), r.err());
    }

    @Test
    void termToRunIsForwardedAndTheCheckpointHoldsTheFinishedStep(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("r.json");
        Path ckpt = tmp.resolve("run.ckpt");
        List<String> train = Spawned.javaCommand(List.of(), TrainingLoopDemo.class, "--checkpoint", ckpt.toString(),
                "--steps", "100000", "--step-ms", "50").command();
        List<String> args = new ArrayList<>(List.of("run", "--report", report.toString(), "--grace", "60s", "--"));
        args.addAll(train);
        try (Spawned spawned = new Spawned()) {
            Process run = spawned.start(Spawned.javaCommand(List.of(), ProcscopeCli.class, args.toArray(String[]::new))
                    .redirectError(ProcessBuilder.Redirect.INHERIT));
            assertEquals("step 1", Spawned.readLine(run, TIMEOUT));
            assertEquals("step 2", Spawned.readLine(run, TIMEOUT));
            run.toHandle();
            Procscope s = Procscope.system();
            s.signals().send(s.processes().key(run.pid()), io.github.procscope.api.signals.Signal.TERM);
            String last = null;
            for (String line = Spawned.readLine(run, TIMEOUT); line != null; line = Spawned.readLine(run, TIMEOUT)) {
                last = line;
                if (line.startsWith("checkpoint saved")) {
                    break;
                }
            }
            assertTrue(run.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            assertEquals(143, run.exitValue());
            assertTrue(last != null && last.startsWith("checkpoint saved after step "), "last line: " + last);
            String step = last.substring("checkpoint saved after step ".length()).trim();
            assertTrue(Files.readString(ckpt).contains(step), "the checkpoint holds step " + step);
            JsonNode j = read(report);
            assertEquals("PREEMPTED", j.path("exit").path("cause").asText());
            assertEquals(143, j.path("exit").path("code").asInt());
            assertEquals("SIGTERM", j.path("forwardedSignals").get(0).path("signal").asText());
            assertTrue(j.path("exit").path("explanation").asText().contains("within the grace period"), j.toString());
        }
    }

    @Test
    void nothingOfTheJobIsLeftAndTheStragglerIsListedAsKilled(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("r.json");
        String marker = "procscope-run-worker-" + UUID.randomUUID();
        Path ready = tmp.resolve("ready");
        assertEquals(0, new ProcessBuilder("mkfifo", ready.toString()).start().waitFor());
        // the leader exits once the worker ignores TERM (through the FIFO): else the TERM could come first
        String worker = "trap '' TERM; echo up > " + ready + "; while :; do sleep 0.05; done";
        CliRun r = CliRun.of("run", "--report", report.toString(), "--grace", "300ms", "--interval", "50ms", "--",
                "sh", "-c", "( sh -c \"" + worker + "\" " + marker + " & ); read x < " + ready + "; exit 0");
        assertEquals(0, r.status(), r.err());
        JsonNode j = read(report);
        // The worker ignores TERM, so KILL ended it. A child it forked may be listed too, carrying the worker's command
        // line until it execs sleep, and end by itself within the grace period (its last signal then TERM).
        boolean listed = false;
        for (JsonNode s : j.path("stragglers")) {
            if (s.path("cmdline").toString().contains(marker) && s.path("endedBy").asText().equals("SIGKILL")) {
                listed = true;
            }
        }
        assertTrue(listed, "the worker is listed as ended by SIGKILL: " + j);
        Procscope scope = Procscope.system();
        for (ProcessInfo p : scope.processes().snapshot().processes()) {
            List<String> cmd;
            try {
                cmd = scope.processes().cmdline(p.pid());
            } catch (RuntimeException e) {
                continue;
            }
            assertFalse(cmd.contains(marker), "left behind: " + p);
        }
    }

    @Test
    void peakRssOfA200MiBJobIsWithin5Percent(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("r.json");
        Path out = tmp.resolve("rss");
        String perl = "my $x = \"a\" x (200*1024*1024); substr($x, 5, 1) = \"b\"; sleep 1;"
                + " open(my $s, '<', '/proc/self/status'); my ($l) = grep { /^VmRSS:/ } <$s>;"
                + " open(my $o, '>', $ARGV[0]); print $o $l; close $o; sleep 1;";
        CliRun r = CliRun.of("run", "--report", report.toString(), "--interval", "100ms", "--",
                "perl", "-e", perl, out.toString());
        assertEquals(0, r.status(), r.err());
        long kernelRss = Long.parseLong(Files.readString(out).replaceAll("[^0-9]", "")) * 1024;
        assertTrue(kernelRss >= 200L << 20);
        double ratio = read(report).path("peakRssBytes").asDouble() / kernelRss;
        assertTrue(ratio > 0.95 && ratio < 1.05, "ratio " + ratio);
    }

    @Test
    void badInputGetsOneLineAndAShellStatus() {
        CliRun notFound = CliRun.of("run", "--", "procscope-no-such-program-" + UUID.randomUUID());
        assertEquals(127, notFound.status());
        assertTrue(notFound.err().startsWith("procscope run: cannot start"), notFound.err());
        assertEquals(2, CliRun.of("run", "--forward", "BOGUS", "--", "true").status());
        assertEquals(2, CliRun.of("run", "--forward", "KILL", "--", "true").status());
        assertEquals(2, CliRun.of("run", "--interval", "1ms", "--", "true").status());
        assertEquals(2, CliRun.of("run").status());
        assertEquals(2, CliRun.of("run", "--memory-limit", "lots", "--", "true").status());
        assertEquals(2, CliRun.of("run", "--memory-limit", "99999999999T", "--", "true").status());
        assertEquals(2, CliRun.of("run", "--memory-limit", "100K", "--", "true").status());
    }

    @Test
    void aMemoryLimitOf64MiBOnA256MiBJobExits137OomKilled(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
                || Files.isRegularFile(Path.of("/sys/fs/cgroup/cgroup.controllers")), "no memory cgroup controller");
        Path report = tmp.resolve("r.json");
        CliRun r = CliRun.of("run", "--report", report.toString(), "--memory-limit", "64M", "--forward", "none", "--",
                "perl", "-e", "my $x = \"a\" x (256*1024*1024); sleep 5;");
        assertEquals(137, r.status(), r.err());
        JsonNode exit = read(report).path("exit");
        assertEquals("OOM_KILLED", exit.path("cause").asText(), exit.toString());
        assertEquals(read(report).path("leaderPid").asLong(), exit.path("oomKill").path("pid").asLong(), exit.toString());
    }

    /**
     * Started with TERM ignored ({@code trap '' TERM}, as a wrapper script or a batch system may leave it),
     * {@code run} says at once that it will not pass TERM on, and does not: a TERM later sent to it does nothing,
     * and the job ends on a USR1 only. With {@code --forward-ignored} it says nothing of the kind, takes TERM, and
     * the job gets it (with its default action, so that its own handler can be set) and checkpoints.
     */
    @Test
    void aSignalIgnoredOnEntryIsNamedAndPassedOnOnlyWhenAsked(@TempDir Path tmp) throws Exception {
        String job = "trap 'exit 10' USR1; trap 'echo got-term; exit 143' TERM; echo ready; while :; do sleep 0.05; done";
        for (boolean option : List.of(false, true)) {
            Path report = tmp.resolve("r-" + option + ".json");
            Path err = tmp.resolve("err-" + option);
            List<String> args = new ArrayList<>(List.of("run", "--report", report.toString(), "--grace", "60s"));
            if (option) {
                args.add("--forward-ignored");
            }
            args.addAll(List.of("--", "sh", "-c", job));
            List<String> cmd = new ArrayList<>(List.of("sh", "-c", "trap '' TERM; exec \"$@\"", "sh"));
            cmd.addAll(Spawned.javaCommand(List.of(), ProcscopeCli.class, args.toArray(String[]::new)).command());
            cmd = Spawned.withDefaultSignals(cmd); // TERM alone ignored, whatever this JVM inherited
            try (Spawned spawned = new Spawned()) {
                Process run = spawned.start(new ProcessBuilder(cmd).redirectError(err.toFile()));
                assertEquals("ready", Spawned.readLine(run, TIMEOUT));
                Procscope s = Procscope.system();
                assertTrue(s.signals().dispositions(run.pid()).ignoresTerm() != option,
                        "run ignores TERM unless told to take it: " + option);
                String notice = "procscope run: SIGTERM is not passed on to the job: it was ignored when procscope"
                        + " started (trap '' TERM); --forward-ignored passes it on";
                if (!option) {
                    Spawned.await(TIMEOUT, "the notice", () -> text(err).contains(notice));
                }
                s.signals().send(s.processes().key(run.pid()), io.github.procscope.api.signals.Signal.TERM);
                if (!option) {
                    s.signals().send(s.processes().key(run.pid()), io.github.procscope.api.signals.Signal.USR1);
                }
                assertTrue(run.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                JsonNode j = read(report);
                List<String> forwarded = new ArrayList<>();
                j.path("forwardedSignals").forEach(f -> forwarded.add(f.path("signal").asText()));
                if (option) {
                    assertEquals(143, run.exitValue(), text(err));
                    assertEquals(List.of("SIGTERM"), forwarded);
                    assertEquals("got-term", Spawned.readLine(run, TIMEOUT));
                    assertFalse(text(err).contains("is not passed on"), text(err));
                } else {
                    assertEquals(10, run.exitValue(), text(err));
                    assertEquals(List.of("SIGUSR1"), forwarded, "TERM was not passed on");
                    assertEquals(1, text(err).lines().filter(l -> l.contains("is not passed on")).count(), text(err));
                }
            }
        }
    }

    private static String text(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A program that cannot be run, and a log directory that cannot be made, are named with the cause in words. */
    @Test
    void startFailuresNameTheirCauseInWords(@TempDir Path tmp) throws Exception {
        Path plain = Files.writeString(tmp.resolve("plain.sh"), "#!/bin/sh\necho never\n");
        CliRun notExecutable = CliRun.of("run", "--", plain.toString());
        assertEquals(126, notExecutable.status(), notExecutable.err());
        assertEquals("procscope run: cannot start " + plain + ": Permission denied (not executable)\n",
                notExecutable.err());
        CliRun directory = CliRun.of("run", "--", tmp.toString());
        assertEquals(126, directory.status(), directory.err());
        assertTrue(directory.err().contains(": Is a directory"), directory.err());
        CliRun missing = CliRun.of("run", "--", tmp.resolve("absent").toString());
        assertEquals(127, missing.status(), missing.err());
        assertTrue(missing.err().contains(": No such file or directory"), missing.err());
        Path state = tmp.resolve("state");
        CliRun detached = CliRun.of("run", "--detach", "--log", tmp.resolve("logs").toString(), "--state-dir",
                state.toString(), "--", plain.toString());
        assertEquals(126, detached.status(), detached.err());
        assertTrue(detached.err().contains("Permission denied"), detached.err());
        Path file = Files.writeString(tmp.resolve("file"), "x");
        CliRun underAFile = CliRun.of("run", "--detach", "--log", file.resolve("logs").toString(), "--state-dir",
                state.toString(), "--", "true");
        assertEquals(2, underAFile.status(), underAFile.err());
        assertTrue(underAFile.err().endsWith("cannot make the directory: Not a directory\n"), underAFile.err());
        CliRun report = CliRun.of("run", "--report", file.resolve("r.json").toString(), "--", "true");
        assertEquals(2, report.status(), report.err());
        assertEquals("procscope run: cannot write the report to " + file.resolve("r.json") + ": Not a directory\n",
                report.err());
        for (CliRun r : List.of(notExecutable, directory, missing, detached, underAFile, report)) {
            assertFalse(r.err().contains("errno"), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
    }

    /** As a user who may not write there, an unwritable log directory says "Permission denied". */
    @Test
    void anUnwritableLogDirectorySaysPermissionDenied(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.github.procscope.testing.Unprivileged.available(),
                "needs root and setpriv to run as nobody");
        Files.setAttribute(tmp, "unix:mode", 01777);
        Path locked = Files.createDirectory(tmp.resolve("locked"));
        Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = tmp.resolve("out");
        Process p = io.github.procscope.testing.Unprivileged.java(ProcscopeCli.class, "run", "--detach", "--log",
                locked.resolve("logs").toString(), "--state-dir", tmp.resolve("nobody-state").toString(), "--", "true")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        String said = Files.readString(out);
        assertEquals(2, p.exitValue(), said);
        // Only procscope's own lines: on JDK 22+ this test's JVM, started without the launcher's
        // --enable-native-access, also prints the JDK's native-access warning.
        assertEquals(List.of("procscope run: --log " + locked.resolve("logs")
                + ": cannot make the directory: Permission denied"),
                said.lines().filter(l -> !l.startsWith("WARNING: ") && !l.isBlank()).toList(), said);
    }
}
