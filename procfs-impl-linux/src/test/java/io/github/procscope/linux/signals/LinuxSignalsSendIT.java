package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult.Outcome;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sending single signals to processes this test starts: delivery, refusals, zombies, groups. */
class LinuxSignalsSendIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Spawned spawned = new Spawned();
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final LinuxSignals signals = LinuxSignals.using(proc);

    @AfterEach
    void end() {
        spawned.close();
    }

    private ProcessKey sleeper(Process p) {
        Spawned.await(TIMEOUT, "sleep to exec", () -> proc.find(p.pid()).map(i -> i.comm().equals("sleep")).orElse(false));
        return proc.key(p.pid());
    }

    @Test
    void termReachesALiveProcessAndItsStatusReadsAsSigterm() throws Exception {
        Process p = spawned.start("sleep", "1000");
        ProcessKey key = sleeper(p);
        assertTrue(signals.isAlive(key));

        SendResult r = signals.send(key, Signal.TERM);

        assertEquals(Outcome.DELIVERED, r.outcome(), r.explanation());
        assertTrue(r.delivered());
        assertTrue(r.explanation().contains(Long.toString(p.pid())), r.explanation());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        ExitStatus status = ExitStatus.fromShellStatus(p.exitValue());
        assertEquals(new ExitStatus.Killed(Signal.TERM, false, ExitStatus.Source.SHELL_CONVENTION), status);
        Spawned.await(TIMEOUT, "the pid to be gone", () -> !signals.isAlive(key));
    }

    @Test
    void aKeyWithTheRightPidButAnotherStartTimeIsRefusedAndNothingIsSent() throws Exception {
        Process p = spawned.start("sleep", "1000"); // dies of TERM: any TERM sent would show
        ProcessKey real = sleeper(p);
        ProcessKey recycled = new ProcessKey(real.pid(), real.startTimeTicks() + 1);

        SendResult r = signals.send(recycled, Signal.TERM);

        assertEquals(Outcome.PID_REUSED, r.outcome());
        assertFalse(r.delivered());
        assertTrue(r.explanation().contains("pid " + real.pid()), r.explanation());
        assertTrue(r.explanation().contains("nothing was sent"), r.explanation());
        assertFalse(signals.isAlive(recycled), "the process the key names is not this one");
        assertFalse(p.waitFor(500, TimeUnit.MILLISECONDS), "the sleep must not have received TERM");
        assertTrue(p.isAlive());
        assertTrue(signals.isAlive(real));
        // The same signal with the right key ends it: the process was TERM-sensitive all along.
        assertEquals(Outcome.DELIVERED, signals.send(real, Signal.TERM).outcome());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    void anExitedProcessIsNoSuchProcess() throws Exception {
        Process p = spawned.start("sleep", "1000");
        ProcessKey key = sleeper(p);
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        Spawned.await(TIMEOUT, "reaped", () -> proc.find(key.pid()).map(i -> i.startTimeTicks() != key.startTimeTicks())
                .orElse(true));

        SendResult r = signals.send(key, Signal.TERM);

        assertTrue(r.outcome() == Outcome.NO_SUCH_PROCESS || r.outcome() == Outcome.PID_REUSED, r.toString());
        assertFalse(signals.isAlive(key));
    }

    @Test
    void aZombieIsNotAliveAndCannotBeSignalled() {
        // sh forks a child that ends once sh has become "sleep 30", which never reaps it: a zombie.
        Process p = spawned.start("sh", "-c", "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 30");
        ProcessInfo[] zombie = new ProcessInfo[1];
        Spawned.await(TIMEOUT, "a zombie child", () -> {
            for (ProcessInfo c : proc.snapshot().tree().children(p.pid())) {
                if (c.state() == ProcessState.ZOMBIE) {
                    zombie[0] = c;
                    return true;
                }
            }
            return false;
        });
        ProcessKey key = zombie[0].key();

        assertFalse(signals.isAlive(key));
        SendResult r = signals.send(key, Signal.KILL);

        assertEquals(Outcome.NO_SUCH_PROCESS, r.outcome());
        assertTrue(r.explanation().contains("zombie"), r.explanation());
        assertTrue(r.explanation().contains("pid " + p.pid()), "names the parent that should reap it: " + r);
    }

    @Test
    void aGroupIsSignalledAtOnce() throws Exception {
        Process leader = spawned.start("setsid", "sh", "-c", "sleep 1000 & sleep 1000 & echo ready; wait");
        assertEquals("ready", Spawned.readLine(leader, TIMEOUT));
        long pgid = leader.pid();
        List<ProcessInfo> members = proc.snapshot().processes().stream().filter(i -> i.pgid() == pgid).toList();
        assertEquals(3, members.size(), members.toString());
        for (ProcessInfo m : members) {
            spawned.adopt(m.pid());
        }

        SendResult r = signals.sendToGroup(pgid, Signal.TERM);

        assertEquals(Outcome.DELIVERED, r.outcome(), r.explanation());
        assertTrue(r.processGroup());
        assertTrue(r.explanation().contains("process group " + pgid), r.explanation());
        for (ProcessInfo m : members) {
            Spawned.await(TIMEOUT, "member " + m.pid() + " gone", () -> !signals.isAlive(m.key()));
        }
        assertTrue(leader.waitFor(30, TimeUnit.SECONDS));
        // Zombies still count as members for kill(2); wait until PID 1 has reaped the orphans.
        Spawned.await(TIMEOUT, "the group to empty", () -> proc.snapshot().processes().stream()
                .noneMatch(i -> i.pgid() == pgid));
        SendResult empty = signals.sendToGroup(pgid, Signal.TERM);
        assertEquals(Outcome.NO_SUCH_PROCESS, empty.outcome(), empty.explanation());
    }

    @Test
    void invalidPidsAndGroupsAreRefusedWithAMessageNamingThem() {
        for (long bad : new long[] {0, -1, Integer.MIN_VALUE, Long.MIN_VALUE, Pidless.TOO_LARGE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ProcessKey(bad, 1));
            assertTrue(e.getMessage().contains(Long.toString(bad)), e.getMessage());
            IllegalArgumentException g = assertThrows(IllegalArgumentException.class,
                    () -> signals.sendToGroup(bad, Signal.WINCH));
            assertTrue(g.getMessage().contains(Long.toString(bad)), g.getMessage());
            assertThrows(IllegalArgumentException.class, () -> signals.dispositions(bad));
            assertThrows(IllegalArgumentException.class,
                    () -> signals.stopGroup(bad, io.github.procscope.api.signals.StopOptions.defaults()));
        }
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> signals.sendToGroup(1, Signal.WINCH));
        assertTrue(one.getMessage().contains("kill(-1)"), one.getMessage());
    }

    @Test
    void thisJvmIsRefusedUnlessAllowed() {
        ProcessKey self = proc.key(ProcessHandle.current().pid());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> signals.send(self, Signal.WINCH));
        assertTrue(e.getMessage().contains("pid " + self.pid()), e.getMessage());
        assertTrue(e.getMessage().contains("this JVM"), e.getMessage());
        assertTrue(e.getMessage().contains("allowingSelf"), e.getMessage());
        long ownGroup = proc.process(self.pid()).pgid();
        IllegalArgumentException g = assertThrows(IllegalArgumentException.class,
                () -> signals.sendToGroup(ownGroup, Signal.WINCH));
        assertTrue(g.getMessage().contains("this JVM"), g.getMessage());
        // WINCH is ignored by default: the allowed send is harmless and is delivered.
        assertEquals(Outcome.DELIVERED, signals.allowingSelf().send(self, Signal.WINCH).outcome());
    }

    @Test
    void theServiceLoaderFindsTheLinuxImplementation() {
        Signals s = Procscope.system().signals();
        assertInstanceOf(LinuxSignals.class, s);
        assertSame(s, Procscope.system().signals());
    }

    /** Values outside the pid range. */
    private static final class Pidless {
        static final long TOO_LARGE = io.github.procscope.api.core.Pids.PID_MAX_LIMIT + 1;
    }
}
