package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Guarded child JVMs ({@link GuardedMain}): TERM, and starts under nohup and -Xrs. */
class PreemptionGuardChildIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Spawned spawned = new Spawned();
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final LinuxSignals signals = LinuxSignals.using(proc);

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    /** Reads the guarded JVM's lines up to "ready". */
    private static List<String> untilReady(Process p) {
        List<String> lines = new ArrayList<>();
        String line;
        do {
            line = Spawned.readLine(p, TIMEOUT);
            lines.add(line);
        } while (!line.equals("ready"));
        return lines;
    }

    private static List<String> refusals(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("refused ")).toList();
    }

    @Test
    void termMakesTheGuardedJvmExitWith143ByItselfAfterItsShutdownHooks() throws Exception {
        Path out = tmp.resolve("out");
        List<String> command = Spawned.javaCommand(List.of(), GuardedMain.class, "TERM,USR1").command();
        long pid = spawned.startNative(out, command);
        Spawned.awaitLineInFile(out, TIMEOUT, "ready"::equals);
        List<String> lines = Files.readAllLines(out);
        assertTrue(lines.contains("installed [USR1, TERM]"), lines.toString());
        assertTrue(refusals(lines).isEmpty(), lines.toString());
        ProcessKey key = proc.key(pid);
        Dispositions d = signals.dispositions(key);
        assertTrue(d.handlesTerm(), "a guarded JVM shows TERM caught");

        StopReport r = signals.stop(key, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(30)));

        StopReport.StoppedProcess p = r.processes().get(0);
        assertEquals(StopReport.Ending.TERM, p.ending(), r.toString());
        assertEquals(Optional.of(ExitStatus.exited(143)), p.exitStatus(), "exited, not signalled: " + r);
        int raw = spawned.reapNative(pid, TIMEOUT);
        assertEquals(ExitStatus.exited(143), ExitStatus.fromWaitStatus(raw));
        lines = Files.readAllLines(out);
        assertTrue(lines.contains("stop TERM"), lines.toString());
        assertTrue(lines.contains("hook ran"), "shutdown hooks ran: " + lines);
    }

    @Test
    void underNohupTheGuardReportsThatHangupWasInheritedAsIgnored() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("nohup");
        cmd.addAll(Spawned.javaCommand(List.of(), GuardedMain.class, "TERM,USR1,HUP,INT").command());
        cmd = Spawned.withDefaultSignals(cmd); // nohup's HUP alone ignored, whatever the build inherited
        Process p = spawned.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD));
        List<String> lines = untilReady(p);

        List<String> refused = refusals(lines);
        assertEquals(1, refused.size(), "exactly HUP: " + lines);
        assertTrue(refused.get(0).startsWith("refused HUP INHERITED_IGNORED: "), refused.get(0));
        assertTrue(refused.get(0).contains("nohup"), refused.get(0));
        assertTrue(lines.contains("installed [INT, USR1, TERM]"), lines.toString());
        Dispositions d = signals.dispositions(proc.key(p.pid()));
        assertTrue(d.ignoresHangup(), "nohup left HUP ignored");
        assertTrue(d.handlesTerm());

        assertTrue(signals.send(proc.key(p.pid()), Signal.TERM).delivered());
        assertEquals("stop TERM", Spawned.readLine(p, TIMEOUT));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(143, p.exitValue());
    }

    @Test
    void underXrsTheGuardRefusesEverySignalAndSaysWhy() throws Exception {
        // Under -Xrs the JVM starts no signal dispatcher thread: a Java handler would never run.
        Path out = tmp.resolve("out");
        long pid = spawned.startNative(out, Spawned.javaCommand(List.of("-Xrs"), GuardedMain.class,
                "TERM,USR1,HUP,INT").command());
        Spawned.awaitLineInFile(out, TIMEOUT, "ready"::equals);
        List<String> lines = Files.readAllLines(out);

        List<String> refused = refusals(lines);
        assertEquals(4, refused.size(), lines.toString());
        String[] order = {"TERM", "USR1", "HUP", "INT"};
        for (int i = 0; i < order.length; i++) {
            assertTrue(refused.get(i).startsWith("refused " + order[i] + " REDUCED_SIGNAL_USAGE: "), refused.toString());
            assertTrue(refused.get(i).contains("-Xrs"), refused.get(i));
        }
        assertTrue(lines.contains("installed []"), lines.toString());
        ProcessKey key = proc.key(pid);
        Dispositions d = signals.dispositions(key);
        assertFalse(d.handlesTerm(), "under -Xrs nothing catches TERM");
        assertFalse(d.caught().contains(Signal.USR1), "and the guard installed nothing that would swallow USR1");

        StopReport r = signals.stop(key, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(30)));

        assertEquals(Optional.of(ExitStatus.killedBy(Signal.TERM, false)), r.processes().get(0).exitStatus(),
                "TERM killed it outright: " + r);
        assertEquals(15, spawned.reapNative(pid, TIMEOUT));
        assertFalse(Files.readAllLines(out).contains("hook ran"), "and no shutdown hook ran");
    }

    @Test
    void quitIsBlockedInSomeThreadsOfAJvmButNotInAll() {
        Process p = spawned.startJava(List.of(), GuardedMain.class, "TERM");
        untilReady(p);

        Dispositions d = signals.dispositions(p.pid());

        assertTrue(d.threads().size() > 5, d.threads().toString());
        Dispositions.ThreadMasks main = d.threads().stream().filter(t -> t.tid() == p.pid()).findFirst()
                .orElseThrow(() -> new AssertionError("the main thread is listed: " + d.threads()));
        assertEquals(main.masks().blocked(), d.process().blocked(), "the process's line is the main thread's");
        assertFalse(d.threadsBlocking(Signal.QUIT).isEmpty(), "HotSpot threads block QUIT");
        assertFalse(d.blockedInEveryThread(Signal.QUIT), "the VM thread takes QUIT: " + d.threads());
        assertTrue(d.threads().stream().anyMatch(t -> t.name().equals("VM Thread")
                && !t.masks().blocked().contains(Signal.QUIT)), d.threads().toString());
        assertFalse(d.blocksTerm());
        assertTrue(d.handlesTerm());
    }
}
