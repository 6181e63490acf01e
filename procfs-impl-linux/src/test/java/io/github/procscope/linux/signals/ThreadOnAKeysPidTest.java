package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key's pid taken by a thread of another process, started within the key's clock tick: the thread's
 * {@code /proc/TID/stat} (reachable, though {@code /proc} does not list it) shows the key's pid and start time, and
 * {@code kill(TID)} would signal the thread's whole process. {@code pidfd_open} refuses a thread's id (EINVAL, or
 * ENOENT on newer kernels), which must not be taken for "no pidfds here" and answered with a start-time check and
 * {@code kill}. Here the key is made of a live thread's id and start time, as a process that took the pid within the
 * tick would leave it: nothing may be sent, and the thread's process must live on. (PidReuseProbe's JVM, PID 1 of its
 * namespace, got such a TERM once when one of its own threads took the pid of the probe's old process.)
 */
class ThreadOnAKeysPidTest {
    private final Spawned spawned = new Spawned();
    private Process helper;
    private long tid;
    private long ticks;

    @BeforeEach
    void start() throws IOException {
        helper = spawned.start(NativeHelpers.executable("four_threads").toString());
        long pid = Long.parseLong(Spawned.readLine(helper, Duration.ofSeconds(60)).strip());
        assertEquals(helper.pid(), pid);
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            tid = tasks.map(t -> Long.parseLong(t.getFileName().toString())).filter(t -> t != pid).findFirst()
                    .orElseThrow();
        }
        ticks = startTicks(Path.of("/proc/" + pid + "/task/" + tid + "/stat"));
        assertEquals(ticks, startTicks(Path.of("/proc/" + tid + "/stat")), "the thread's own /proc entry");
    }

    @AfterEach
    void end() {
        spawned.close();
    }

    private static LinuxSignals signals() {
        return LinuxSignals.using(LinuxProcfs.at(Path.of("/proc")));
    }

    @Test
    void aSendWithAnExactKeyIsRefused() throws IOException {
        SendResult r = signals().send(new ProcessKey(tid, ticks, OptionalLong.of(1L << 40)), Signal.TERM);
        assertNothingSent(r);
    }

    @Test
    void aSendWithAPlainKeyIsRefused() throws IOException {
        assertNothingSent(signals().send(new ProcessKey(tid, ticks), Signal.TERM));
    }

    @Test
    void withoutPidfdsTheStartTimeCheckIsNotFooledByAThread() throws IOException {
        assertNothingSent(signals().withoutPidfd().send(new ProcessKey(tid, ticks), Signal.TERM));
    }

    @Test
    void aThreadsIdHasNoKey() {
        assertThrows(NoSuchProcessException.class, () -> signals().key(tid));
        assertThrows(NoSuchProcessException.class, () -> signals().withoutPidfd().key(tid));
    }

    @Test
    void aStopListsTheKeysProcessAsGoneAndSendsNothing() throws IOException {
        for (LinuxSignals s : List.of(signals(), signals().withoutPidfd())) {
            StopReport r = s.stop(new ProcessKey(tid, ticks), StopOptions.defaults().withGracePeriod(Duration.ZERO)
                    .withKillWait(Duration.ofMillis(200)));
            assertEquals(1, r.processes().size(), r.toString());
            assertEquals(StopReport.Ending.GONE, r.processes().get(0).ending(), r.toString());
            assertAlive();
        }
    }

    private void assertNothingSent(SendResult r) throws IOException {
        assertFalse(r.delivered(), r.toString());
        assertTrue(r.outcome() == SendResult.Outcome.PID_REUSED || r.outcome() == SendResult.Outcome.NO_SUCH_PROCESS,
                r.toString());
        assertAlive();
    }

    /** The thread's process runs, with no signal pending (a TERM sent would be pending or would have ended it). */
    private void assertAlive() throws IOException {
        assertTrue(helper.isAlive(), "the thread's process lives");
        for (String line : Files.readAllLines(Path.of("/proc/" + helper.pid() + "/status"))) {
            if (line.startsWith("ShdPnd:") || line.startsWith("SigPnd:")) {
                assertEquals(0, Long.parseUnsignedLong(line.substring(7).strip(), 16), line);
            }
        }
        assertTrue(helper.isAlive(), "the thread's process lives");
    }

    /** @return field 22 of a stat file, the start time in clock ticks */
    private static long startTicks(Path stat) throws IOException {
        String s = Files.readString(stat);
        return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[19]);
    }
}
