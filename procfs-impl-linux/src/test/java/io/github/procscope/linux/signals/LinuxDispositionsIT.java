package io.github.procscope.linux.signals;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Dispositions.Disposition;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dispositions from a hand-written /proc tree (per-thread masks) and from live processes. */
class LinuxDispositionsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    private static LinuxSignals fixture() throws URISyntaxException {
        Path root = Path.of(LinuxDispositionsIT.class.getResource("/signals-proc").toURI());
        return LinuxSignals.using(LinuxProcfs.builder(root).clockTicksPerSecond(100).pageSizeBytes(4096).build());
    }

    @Test
    void termBlockedInEveryThreadIsBlockedForTheProcess() throws Exception {
        Dispositions d = fixture().dispositions(4242);

        assertEquals(4242, d.pid());
        assertEquals(List.of(4242L, 4243L), d.threads().stream().map(Dispositions.ThreadMasks::tid).toList());
        assertEquals("py (rank 0)", d.threads().get(0).name());
        assertEquals("pt_data_worker", d.threads().get(1).name());
        assertTrue(d.blocksTerm());
        assertEquals(2, d.threadsBlocking(Signal.TERM).size());
        assertTrue(d.pending().contains(Signal.TERM), "a TERM waits for the whole process (ShdPnd)");
        assertTrue(d.handlesTerm());
        assertTrue(d.ignoresHangup());
        assertTrue(d.survivesHangup());
        assertEquals(Disposition.IGNORED, d.disposition(Signal.HUP));
        assertEquals(Disposition.CAUGHT, d.disposition(Signal.INT));
        assertEquals(Disposition.DEFAULT, d.disposition(Signal.USR1));
    }

    @Test
    void theProcessLineShowsTheMainThreadOnlySoTheWorkerDecides() throws Exception {
        Dispositions d = fixture().dispositions(5151);

        assertTrue(d.process().blocked().contains(Signal.TERM), "the status line of the main thread blocks TERM");
        assertFalse(d.blocksTerm(), "but the worker thread does not, so TERM is delivered");
        assertEquals(List.of(5151L), d.threadsBlocking(Signal.TERM).stream().map(Dispositions.ThreadMasks::tid).toList());
        assertTrue(d.pending().contains(Signal.USR1), "the worker's own pending USR1");
        assertFalse(d.process().pending().contains(Signal.USR1));
        assertFalse(d.survivesHangup());
        assertTrue(d.handlesTerm());
    }

    @Test
    void aKeyWithAnotherStartTimeOrAMissingPidIsNoSuchProcess() throws Exception {
        LinuxSignals s = fixture();
        assertEquals(5151, s.dispositions(new ProcessKey(5151, 410000)).pid());
        NoSuchProcessException reused = assertThrows(NoSuchProcessException.class,
                () -> s.dispositions(new ProcessKey(5151, 410001)));
        assertTrue(reused.getMessage().contains("reused"), reused.getMessage());
        assertThrows(NoSuchProcessException.class, () -> s.dispositions(7777));
    }

    @Test
    void aNohupSleepIgnoresHangupAndAPlainOneDoesNot() {
        LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
        LinuxSignals signals = LinuxSignals.using(proc);
        // Both from default dispositions, whatever the build inherited (nohup, a background job's INT and QUIT).
        Process nohup = spawned.start(Spawned.withDefaultSignals(List.of("nohup", "sleep", "1000"))
                .toArray(String[]::new));
        Process plain = spawned.start(Spawned.withDefaultSignals(List.of("sleep", "1000")).toArray(String[]::new));
        for (Process p : List.of(nohup, plain)) {
            Spawned.await(TIMEOUT, "sleep to exec", () -> proc.find(p.pid()).map(i -> i.comm().equals("sleep"))
                    .orElse(false));
        }

        Dispositions n = signals.dispositions(proc.key(nohup.pid()));
        Dispositions s = signals.dispositions(proc.key(plain.pid()));

        assertTrue(n.ignoresHangup(), n.process().toString());
        assertTrue(n.survivesHangup());
        assertEquals(Disposition.IGNORED, n.disposition(Signal.HUP));
        assertFalse(s.ignoresHangup(), s.process().toString());
        assertFalse(s.survivesHangup(), "a plain sleep dies when the terminal hangs up");
        assertEquals(Disposition.DEFAULT, s.disposition(Signal.HUP));
        assertEquals(1, s.threads().size());
    }

    @Test
    void aShellTrapShowsAsCaughtOrIgnored() {
        LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
        LinuxSignals signals = LinuxSignals.using(proc);
        Process catching = spawned.start("sh", "-c", "trap 'exit 0' TERM; echo ready; while :; do sleep 1; done");
        Process ignoring = spawned.start("sh", "-c", "trap '' TERM; echo ready; exec sleep 1000");
        assertEquals("ready", Spawned.readLine(catching, TIMEOUT));
        assertEquals("ready", Spawned.readLine(ignoring, TIMEOUT));
        Spawned.await(TIMEOUT, "sleep to exec", () -> proc.find(ignoring.pid()).map(i -> i.comm().equals("sleep"))
                .orElse(false));

        assertTrue(signals.dispositions(catching.pid()).handlesTerm());
        Dispositions ign = signals.dispositions(ignoring.pid());
        assertTrue(ign.ignoresTerm(), "SIG_IGN survives exec");
        assertFalse(ign.handlesTerm(), "a handler does not survive exec");
    }
}
