package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport.Ending;
import io.github.procscope.api.signals.StopReport.StoppedProcess;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graceful stops of single processes and groups, each run twice: waiting on pidfds, and polling
 * {@code /proc} with the backoff.
 */
class GracefulStopIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Spawned spawned = new Spawned();
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    private LinuxSignals signals(boolean pidfd) {
        LinuxSignals s = LinuxSignals.using(proc);
        return pidfd ? s : s.withoutPidfd();
    }

    private ProcessKey keyOnceExecd(long pid, String comm) {
        Spawned.await(TIMEOUT, comm + " to start", () -> proc.find(pid).map(i -> i.comm().equals(comm)).orElse(false));
        return proc.key(pid);
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aProcessThatHonoursTermEndsWithinTheGracePeriod(boolean pidfd) {
        Process p = spawned.start("sleep", "1000");
        keyOnceExecd(p.pid(), "sleep");

        StopReport r = signals(pidfd).stop(p, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(20)));

        assertEquals(1, r.processes().size(), r.toString());
        StoppedProcess sp = r.processes().get(0);
        assertEquals(p.pid(), sp.pid());
        assertEquals("sleep", sp.comm());
        assertEquals(Ending.TERM, sp.ending(), r.toString());
        assertTrue(r.allGone());
        assertFalse(r.killNeeded());
        assertTrue(sp.after().compareTo(Duration.ofSeconds(20)) < 0, r.toString());
        ExitStatus status = sp.exitStatus().orElseThrow(() -> new AssertionError("a child's status: " + r));
        assertTrue(status instanceof ExitStatus.Killed k && k.signal() == Signal.TERM, status.toString());
        assertFalse(p.isAlive());
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aChildThatCatchesTermSurvivesItAndIsEndedByKill(boolean pidfd) throws Exception {
        // Catches TERM, says so, and carries on.
        Process p = spawned.start("sh", "-c", "trap 'echo caught' TERM; echo ready; while :; do sleep 1 & wait $!; done");
        assertEquals("ready", Spawned.readLine(p, TIMEOUT));
        ProcessKey key = proc.key(p.pid());
        LinuxSignals signals = signals(pidfd);

        assertTrue(signals.send(key, Signal.TERM).delivered());
        assertEquals("caught", Spawned.readLine(p, TIMEOUT));
        assertFalse(p.waitFor(300, TimeUnit.MILLISECONDS));
        assertTrue(signals.isAlive(key), "it survives TERM");

        StopReport r = signals.stop(p, StopOptions.defaults().withGracePeriod(Duration.ofMillis(500)));

        StoppedProcess sp = r.processes().get(0);
        assertEquals(Ending.KILL, sp.ending(), r.toString());
        assertTrue(r.killNeeded(), "the report says KILL was needed");
        assertTrue(r.allGone());
        assertTrue(sp.after().compareTo(Duration.ofMillis(500)) >= 0, "not before the grace period: " + r);
        ExitStatus status = sp.exitStatus().orElseThrow(() -> new AssertionError("a child's status: " + r));
        assertTrue(status instanceof ExitStatus.Killed k && k.signal() == Signal.KILL, status.toString());
        assertEquals(137, status.shellStatus());
        assertTrue(status.explainInDetail().contains("OOM killer"), status.explainInDetail());
        // The JDK's own view, decoded: 137 is SIGKILL.
        assertEquals(137, p.exitValue());
        assertEquals(new ExitStatus.Killed(Signal.KILL, false, ExitStatus.Source.SHELL_CONVENTION),
                ExitStatus.fromShellStatus(p.exitValue()));
        assertFalse(signals.isAlive(key));
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aChildTheJdkDoesNotTrackGetsItsExactStatus(boolean pidfd) {
        long pid = spawned.startNative(tmp.resolve("out"), List.of("sleep", "1000"));
        ProcessKey key = keyOnceExecd(pid, "sleep");

        StopReport r = signals(pidfd).stop(key, StopOptions.defaults());

        StoppedProcess sp = r.processes().get(0);
        assertEquals(Ending.TERM, sp.ending(), r.toString());
        assertEquals(Optional.of(ExitStatus.killedBy(Signal.TERM, false)), sp.exitStatus(), r.toString());
        assertEquals(ExitStatus.Source.WAIT_STATUS, sp.exitStatus().get().source());
        // The stop only looked (WNOWAIT): the child is still there for its parent to reap, with that status.
        assertEquals(15, spawned.reapNative(pid, TIMEOUT));
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aProcessAlreadyGoneIsReportedGoneAndNothingIsSent(boolean pidfd) throws Exception {
        Process p = spawned.start("sleep", "1000");
        ProcessKey key = keyOnceExecd(p.pid(), "sleep");
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));

        StopReport gone = signals(pidfd).stop(key, StopOptions.defaults());
        assertEquals(1, gone.processes().size(), gone.toString());
        assertEquals(key, gone.processes().get(0).key(), "the process named is listed: " + gone);
        assertEquals(Ending.GONE, gone.processes().get(0).ending(), gone.toString());
        assertTrue(gone.allGone());

        Process q = spawned.start("sleep", "1000");
        ProcessKey real = keyOnceExecd(q.pid(), "sleep");
        ProcessKey meant = new ProcessKey(real.pid(), real.startTimeTicks() + 1);
        StopReport wrong = signals(pidfd).stop(meant, StopOptions.defaults());
        assertEquals(1, wrong.processes().size(), "another process's pid is not a member: " + wrong);
        StoppedProcess listed = wrong.processes().get(0);
        assertEquals(meant, listed.key(), "only the process meant is listed, gone: " + wrong);
        assertEquals(Ending.GONE, listed.ending(), wrong.toString());
        assertEquals("?", listed.comm(), "the name of the process on its pid now is not the one meant's: " + wrong);
        assertEquals("process " + real.pid(), wrong.target(), wrong.toString());
        assertFalse(q.waitFor(300, TimeUnit.MILLISECONDS), "nothing was sent to it");
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aGroupIsStoppedMemberByMember(boolean pidfd) throws Exception {
        // The leader catches TERM and carries on; its two long sleeps do not (a caught signal is reset to
        // the default in children, an ignored one would be inherited).
        Process leader = spawned.start("setsid", "sh", "-c", "trap 'echo caught' TERM; sleep 1000 & a=$!;"
                + " sleep 1000 & echo \"$a $!\"; while :; do sleep 1 & wait $!; done");
        String[] sleeps = Spawned.readLine(leader, TIMEOUT).split(" ");
        for (String s : sleeps) {
            // Until it execs, a forked child is a copy of the shell, with the shell's TERM handler.
            keyOnceExecd(Long.parseLong(s), "sleep");
        }
        long pgid = leader.pid();
        proc.snapshot().processes().stream().filter(i -> i.pgid() == pgid).forEach(i -> spawned.adopt(i.pid()));

        StopReport r = signals(pidfd).stopGroup(pgid, StopOptions.defaults().withGracePeriod(Duration.ofMillis(700)));

        assertTrue(r.allGone(), r.toString());
        assertEquals(Ending.KILL, r.find(pgid).orElseThrow().ending(), r.toString());
        for (String s : sleeps) {
            assertEquals(Ending.TERM, r.find(Long.parseLong(s)).orElseThrow().ending(), r.toString());
        }
        assertTrue(r.target().contains("process group " + pgid));
        assertTrue(leader.waitFor(30, TimeUnit.SECONDS));
        Spawned.await(TIMEOUT, "no live member left", () -> proc.snapshot().processes().stream()
                .noneMatch(i -> i.pgid() == pgid && i.state() != io.github.procscope.api.process.ProcessState.ZOMBIE));
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void anInterruptedStopEndsTheGracePeriodAtOnceAndKeepsTheInterrupt(boolean pidfd) throws Exception {
        Process p = spawned.start("sh", "-c", "trap '' TERM; echo ready; exec sleep 1000");
        assertEquals("ready", Spawned.readLine(p, TIMEOUT));
        keyOnceExecd(p.pid(), "sleep");
        AtomicReference<StopReport> report = new AtomicReference<>();
        AtomicReference<Boolean> interruptKept = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            report.set(signals(pidfd).stop(p, StopOptions.defaults().withGracePeriod(Duration.ofMinutes(10))));
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        t.setUncaughtExceptionHandler((th, e) -> failure.set(e));
        t.start();
        Thread.sleep(300); // most likely inside the grace period by now; if not, the interrupt is seen at once
        t.interrupt();
        t.join(TIMEOUT.toMillis());

        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertFalse(t.isAlive(), "the stop returned long before its 10 minute grace period");
        assertEquals(Ending.KILL, report.get().processes().get(0).ending(), report.get().toString());
        assertTrue(interruptKept.get());
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aStoppedProcessIsContinuedSoThatTermReachesIt(boolean pidfd) throws Exception {
        Process p = spawned.start("sleep", "1000");
        ProcessKey key = keyOnceExecd(p.pid(), "sleep");
        LinuxSignals signals = signals(pidfd);
        SendResult stop = signals.send(key, Signal.STOP);
        assertTrue(stop.delivered());
        Spawned.await(TIMEOUT, "stopped", () -> proc.process(key.pid()).state() == io.github.procscope.api.process.ProcessState.STOPPED);

        StopReport r = signals.stop(p, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(20)));

        assertEquals(Ending.TERM, r.processes().get(0).ending(), r.toString());
    }
}
