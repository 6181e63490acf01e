package io.github.procscope.linux.jobs;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobEnding;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.job.Straggler;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinuxJobSupervisorIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final Procscope scope = Procscope.system();

    private JobReport run(JobSpec spec) throws InterruptedException {
        Job job = scope.jobs().start(spec);
        return job.await(WAIT).orElseThrow(() -> new AssertionError("job did not end: " + job));
    }

    @Test
    void exitStatusOfTheJobIsReportedExactly() throws Exception {
        JobReport r = run(JobSpec.of("sh", "-c", "exit 3").withForwardedSignals(List.of()));
        assertEquals(JobEnding.Cause.EXITED, r.exit().cause());
        assertEquals(3, ((ExitStatus.Exited) r.exit().status()).code());
        assertEquals(3, r.exit().status().shellStatus());
        assertTrue(r.stragglers().isEmpty(), r.stragglers().toString());
        assertTrue(r.processesStarted() >= 1);
        assertFalse(r.endTime().isBefore(r.startTime()));
    }

    /**
     * The default forwarded signals are what a preemption guard can take: with them, nothing is refused as the JVM's
     * own (USR2 was, on every job); only a signal this JVM inherited as ignored (HUP under nohup) may be.
     */
    @Test
    void theDefaultForwardedSignalsAreAllOnesAGuardCanTake() throws Exception {
        assertEquals(List.of(Signal.TERM, Signal.INT, Signal.HUP, Signal.USR1), JobSpec.DEFAULT_FORWARDED);
        Job job = scope.jobs().start(JobSpec.of("true"));
        List<PreemptionGuard.Refusal> refused = job.notForwarded();
        assertEquals(0, job.await(WAIT).orElseThrow().exit().status().shellStatus());
        for (PreemptionGuard.Refusal r : refused) {
            assertEquals(PreemptionGuard.Reason.INHERITED_IGNORED, r.reason(), refused.toString());
        }
        try (PreemptionGuard guard = scope.preemptionGuard(PreemptionGuardOptions.defaults().withSignals(JobSpec.DEFAULT_FORWARDED))) {
            assertTrue(guard.refused().stream().noneMatch(r -> r.reason() == PreemptionGuard.Reason.JVM_OWNED),
                    guard.refused().toString());
        }
    }

    @Test
    void jobRunsInASessionOfItsOwn() throws Exception {
        Job job = scope.jobs().start(JobSpec.of("sleep", "2").withForwardedSignals(List.of()));
        ProcessInfo p = scope.processes().process(job.leader().pid());
        assertEquals(job.leader().pid(), p.sid());
        assertEquals(job.leader().pid(), p.pgid());
        assertEquals(0, job.await().exit().status().shellStatus());
    }

    @Test
    void aKillFromOutsideIsReportedAsKilledBySigkill() throws Exception {
        Job job = scope.jobs().start(JobSpec.of("sleep", "60").withForwardedSignals(List.of()));
        Thread.sleep(200);
        assertTrue(scope.signals().send(job.leader(), Signal.KILL).delivered());
        JobReport r = job.await(WAIT).orElseThrow();
        assertEquals(JobEnding.Cause.KILLED_BY_SIGNAL, r.exit().cause());
        assertEquals(Signal.KILL, ((ExitStatus.Killed) r.exit().status()).signal());
        assertEquals(137, r.exit().status().shellStatus());
        assertTrue(r.exit().explanation().contains("killed by SIGKILL"), r.exit().explanation());
    }

    @Test
    void aForwardedTermPreemptsAJobThatHandlesIt() throws Exception {
        Job job = scope.jobs().start(JobSpec.of("sh", "-c", "trap 'exit 143' TERM; while :; do sleep 0.05; done")
                .withForwardedSignals(List.of()).withGrace(Duration.ofSeconds(20)));
        awaitShell(job, "its TERM trap", d -> d.handlesTerm()); // a TERM before the trap would just kill it
        job.forward(Signal.TERM);
        JobReport r = job.await(WAIT).orElseThrow();
        assertEquals(JobEnding.Cause.PREEMPTED, r.exit().cause());
        assertEquals(143, ((ExitStatus.Exited) r.exit().status()).code());
        assertEquals(Signal.TERM, r.forwardedSignals().get(0).signal());
        assertTrue(r.forwardedSignals().get(0).processes() >= 1);
        assertTrue(r.exit().explanation().contains("within the grace period"), r.exit().explanation());
    }

    @Test
    void aJobIgnoringAForwardedTermIsKilledAfterTheGracePeriod() throws Exception {
        Job job = scope.jobs().start(JobSpec.of("sh", "-c", "trap '' TERM; while :; do sleep 0.05; done")
                .withForwardedSignals(List.of()).withGrace(Duration.ofMillis(500)));
        awaitShell(job, "TERM ignored", d -> d.ignoresTerm()); // a TERM before the trap would just kill it
        job.forward(Signal.TERM);
        JobReport r = job.await(WAIT).orElseThrow();
        assertEquals(JobEnding.Cause.PREEMPTED, r.exit().cause());
        assertEquals(Signal.KILL, ((ExitStatus.Killed) r.exit().status()).signal());
        assertTrue(r.exit().explanation().contains("did not end within the grace period"), r.exit().explanation());
        // procscope sent the KILL itself: the explanation says so, and points at no one else.
        assertTrue(r.exit().explanation().contains("the one procscope sent"), r.exit().explanation());
        assertFalse(r.exit().explanation().contains("OOM"), r.exit().explanation());
        assertFalse(r.exit().explanation().contains("If nobody sent it"), r.exit().explanation());
    }

    /** Waits until the job's leader is the shell and its dispositions show what its first command set. */
    private void awaitShell(Job job, String what, java.util.function.Predicate<io.github.procscope.api.signals.Dispositions> set) {
        long pid = job.leader().pid();
        io.github.procscope.testing.Spawned.await(WAIT, what, () -> scope.processes().find(pid)
                .map(p -> p.comm().equals("sh") && set.test(scope.signals().dispositions(pid))).orElse(false));
    }

    @Test
    void aDoubleForkedWorkerIgnoringTermIsKilledAndListed(@TempDir Path tmp) throws Exception {
        String marker = "procscope-test-worker-" + UUID.randomUUID();
        Path ready = tmp.resolve("ready");
        assertEquals(0, new ProcessBuilder("mkfifo", ready.toString()).start().waitFor());
        // the leader exits once the worker ignores TERM (through the FIFO): else the TERM could come first
        String worker = "trap '' TERM; echo up > " + ready + "; while :; do sleep 0.05; done";
        JobReport r = run(JobSpec.of("sh", "-c", "( sh -c \"" + worker + "\" " + marker + " & ); read x < " + ready
                + "; exit 0")
                .withForwardedSignals(List.of()).withGrace(Duration.ofMillis(300))
                .withSampleInterval(Duration.ofMillis(50)));
        assertEquals(0, r.exit().status().shellStatus());
        Straggler s = r.stragglers().stream().filter(x -> x.cmdline().contains(marker)).findFirst()
                .orElseThrow(() -> new AssertionError("worker not listed: " + r.stragglers()));
        assertEquals(Signal.KILL, s.endedBy());
        for (ProcessInfo p : scope.processes().snapshot().processes()) {
            assertFalse(p.sid() == r.leaderPid(), "left behind: " + p);
            List<String> cmd = scope.processes().find(p.pid()).map(x -> safeCmdline(p.pid())).orElse(List.of());
            assertFalse(cmd.contains(marker), "left behind: " + p);
        }
    }

    private List<String> safeCmdline(long pid) {
        try {
            return scope.processes().cmdline(pid);
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    @Test
    void processBuilderChildrenKeepTheirExitStatusWhileOrphansAreReaped() throws Exception {
        long self = ProcessHandle.current().pid();
        Process beside = new ProcessBuilder("sh", "-c", "sleep 1; exit 7").start();
        Job job = scope.jobs().start(JobSpec.of("sh", "-c",
                        "for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1.5")
                .withForwardedSignals(List.of()).withSampleInterval(Duration.ofMillis(50)));
        assertTrue(beside.waitFor(30, TimeUnit.SECONDS));
        assertEquals(7, beside.exitValue());
        JobReport r = job.await(WAIT).orElseThrow();
        assertEquals(0, r.exit().status().shellStatus());
        assertTrue(r.processesStarted() >= 6, "seen " + r.processesStarted());
        for (ProcessInfo p : scope.processes().snapshot().processes()) {
            assertFalse(p.ppid() == self && p.state() == ProcessState.ZOMBIE && p.sid() == r.leaderPid(),
                    "an adopted orphan was not reaped: " + p);
        }
    }

    @Test
    void peakRssMatchesTheKernelsCountWithin5Percent(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("rss");
        String perl = "my $x = \"a\" x (200*1024*1024); substr($x, 5, 1) = \"b\"; sleep 1;"
                + " open(my $s, '<', '/proc/self/status'); my ($l) = grep { /^VmRSS:/ } <$s>;"
                + " open(my $o, '>', $ARGV[0]); print $o $l; close $o; sleep 1;";
        JobReport r = run(JobSpec.of("perl", "-e", perl, out.toString()).withForwardedSignals(List.of())
                .withSampleInterval(Duration.ofMillis(100)));
        assertEquals(0, r.exit().status().shellStatus(), r.exit().explanation());
        long kernelRss = Long.parseLong(Files.readString(out).replaceAll("[^0-9]", "")) * 1024;
        assertTrue(kernelRss >= 200L << 20, "the job touched " + kernelRss);
        double ratio = (double) r.peakRssBytes() / kernelRss;
        assertTrue(ratio > 0.95 && ratio < 1.05, "peak " + r.peakRssBytes() + " vs VmRSS " + kernelRss);
        assertTrue(r.peakProcessRssBytes() <= r.peakRssBytes());
        assertTrue(r.cpu().compareTo(Duration.ZERO) > 0);
    }

    @Test
    void anUnknownProgramIsATypedStartFailure() {
        JobStartException e = assertThrows(JobStartException.class,
                () -> scope.jobs().start(JobSpec.of("procscope-no-such-program-" + UUID.randomUUID())));
        assertTrue(e.notFound(), e.getMessage());
        assertEquals(127, e.shellStatus());
    }

    @Test
    void badSpecsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of("sh").withGrace(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of("sh").withSampleInterval(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of("sh").withForwardedSignals(List.of(Signal.KILL)));
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of("a\0b"));
    }

    @Test
    void aJobOverItsMemoryLimitIsReportedOomKilledWithItsVictim() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
                || Files.isRegularFile(Path.of("/sys/fs/cgroup/cgroup.controllers")), "no memory cgroup controller");
        JobReport r = run(JobSpec.of("perl", "-e", "my $x = \"a\" x (256*1024*1024); sleep 5;")
                .withForwardedSignals(List.of()).withMemoryLimit(64L << 20).withSampleInterval(Duration.ofMillis(50)));
        assertEquals(137, r.exit().status().shellStatus(), r.exit().explanation());
        assertEquals(JobEnding.Cause.OOM_KILLED, r.exit().cause(), r.exit().explanation());
        r.exit().oomKill().ifPresent(k -> assertEquals(r.leaderPid(), k.pid()));
        assertTrue(r.exit().explanation().contains("OOM-killed"), r.exit().explanation());
    }

    @Test
    void theJvmStopsBeingASubreaperWhenNoJobRuns() throws Exception {
        run(JobSpec.of("true").withForwardedSignals(List.of()));
        long self = ProcessHandle.current().pid();
        Process sh = new ProcessBuilder("sh", "-c", "sleep 5 & echo $!").start();
        long orphan = Long.parseLong(new String(sh.getInputStream().readAllBytes()).trim());
        assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        try {
            long ppid = scope.processes().process(orphan).ppid();
            assertTrue(ppid != self, "the orphan " + orphan + " was adopted by this JVM after every job had ended");
        } finally {
            ProcessHandle.of(orphan).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void theJobInheritsOnlyTheStandardStreams(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("fds");
        try (java.io.FileInputStream held = new java.io.FileInputStream("/proc/self/stat")) {
            assertTrue(held.getFD().valid(), "this JVM holds a descriptor beyond the standard ones");
            JobReport r = run(JobSpec.of("sh", "-c", "ls /proc/$$/fd > \"$0\"", out.toString())
                    .withForwardedSignals(List.of()));
            assertEquals(0, r.exit().status().shellStatus());
        }
        List<String> fds = Files.readAllLines(out);
        // 0, 1, 2, and the descriptor the shell opened for its redirection
        assertTrue(fds.size() <= 4, "the job inherited " + fds);
    }

    /**
     * The kernel sends the parent-death signal when the thread that spawned the child ends, not the process: every
     * job is spawned on one thread that lives as long as the JVM, so a job started from a thread that then ends
     * runs on, and ends by itself.
     */
    @Test
    void aJobStartedFromAThreadThatEndsRunsOn(@TempDir Path tmp) throws Exception {
        Path done = tmp.resolve("done");
        Job[] job = new Job[1];
        Thread starter = new Thread(() -> job[0] = scope.jobs().start(JobSpec.of("sh", "-c",
                "sleep 1; echo survived > \"$0\"", done.toString()).withForwardedSignals(List.of())));
        starter.start();
        starter.join();
        JobReport r = job[0].await(WAIT).orElseThrow();
        assertEquals(ExitStatus.exited(0), r.exit().status(), r.exit().explanation());
        assertEquals("survived\n", Files.readString(done));
    }

    /**
     * The wrapper a job starts in checks, after {@code setpriv} armed the parent-death signal, that its parent is
     * still the supervisor; if the supervisor died before (here: the parent is not the pid it was told), it runs
     * nothing and exits with 125.
     */
    @Test
    void theWrapperRunsNothingOnceItsSupervisorIsGone(@TempDir Path tmp) throws Exception {
        java.util.Optional<Path> setpriv = LinuxJobSupervisor.pdeathsigSetter();
        org.junit.jupiter.api.Assumptions.assumeTrue(setpriv.isPresent(), "no setpriv --pdeathsig here");
        Path ran = tmp.resolve("ran");
        List<String> touch = List.of("sh", "-c", "echo ran > \"$0\"", ran.toString());
        long self = ProcessHandle.current().pid();
        Process gone = new ProcessBuilder(LinuxJobSupervisor.wrapped(touch, setpriv, self + 1_000_000,
                java.util.Optional.empty(), java.util.Optional.empty(), false)).start();
        assertTrue(gone.waitFor(60, TimeUnit.SECONDS));
        assertEquals(125, gone.exitValue());
        assertFalse(Files.exists(ran), "the command did not run");
        Process here = new ProcessBuilder(LinuxJobSupervisor.wrapped(touch, setpriv, self,
                java.util.Optional.empty(), java.util.Optional.empty(), false)).start();
        assertTrue(here.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, here.exitValue());
        assertEquals("ran\n", Files.readString(ran));
    }

    /**
     * A job's output goes through a pipe into its file; on a file system that fills up (a 64 KiB tmpfs), what the
     * file could not take is counted to the byte, with the reason, and the job still ends with its own status.
     */
    @Test
    void outputTheFileCannotTakeIsCountedToTheByte(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounts a tmpfs");
        Path small = Files.createDirectory(tmp.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor(60, TimeUnit.SECONDS) && mount.exitValue() == 0,
                "cannot mount a tmpfs here");
        try {
            Path log = small.resolve("job.log");
            // 3,000 lines of 64 bytes: 192,000 bytes, three times what the file system holds
            String line = "0123456789012345678901234567890123456789012345678901234567890ab";
            JobReport r = run(JobSpec.of("sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo " + line
                    + "; i=$((i+1)); done; exit 3").withForwardedSignals(List.of()).withOutput(log));
            assertEquals(3, r.exit().status().shellStatus(), r.exit().explanation());
            long held = size(log);
            io.github.procscope.api.job.LostOutput lost = r.lostOutput().orElseThrow(() ->
                    new AssertionError("nothing was counted lost, the file holds " + held));
            assertEquals(3000L * 64, size(log) + lost.bytes(), "every byte written or counted");
            assertTrue(lost.reason().contains("No space left on device"), lost.reason());
            assertFalse(lost.since().isBefore(r.startTime()));
            assertTrue(Files.readString(log).startsWith(line + "\n"));

            JobReport fits = run(JobSpec.of("sh", "-c", "echo out; echo err >&2").withForwardedSignals(List.of())
                    .withOutput(tmp.resolve("fits.log")));
            assertTrue(fits.lostOutput().isEmpty());
            assertEquals("out\nerr\n", Files.readString(tmp.resolve("fits.log")));
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static long size(Path p) throws java.io.IOException {
        return Files.size(p);
    }
}
