package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.StatusCounters;
import io.github.procscope.api.process.ThreadInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ProcessTable.statusCounters}: {@link LinuxProcfs}'s reading of the counters alone against the whole status
 * and each thread's, and against the interface's default (which reads those), on the fixture tree and on a live
 * process of several threads that sleep (so its counters stand still while they are compared).
 */
class StatusCountersTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endWhatWasStarted() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A table that answers {@code statusCounters} with the interface's default, everything else with {@code t}. */
    private static ProcessTable byDefault(ProcessTable t) {
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().equals("statusCounters")) {
                return InvocationHandler.invokeDefault(proxy, m, args);
            }
            try {
                return m.invoke(t, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (ProcessTable) Proxy.newProxyInstance(ProcessTable.class.getClassLoader(),
                new Class<?>[] {ProcessTable.class}, h);
    }

    /** What the whole parses give: the process's swap, its threads' context switches summed. */
    private static StatusCounters fromWholeStatus(ProcessTable t, long pid) {
        ProcessStatus s = t.status(pid);
        long voluntary = 0;
        long nonvoluntary = 0;
        for (ThreadInfo th : t.threads(pid, Set.of(Facet.STATUS))) {
            voluntary += th.status().orElseThrow().voluntaryContextSwitches().orElseThrow();
            nonvoluntary += th.status().orElseThrow().nonvoluntaryContextSwitches().orElseThrow();
        }
        return new StatusCounters(s.memory().swapBytes(), OptionalLong.of(voluntary), OptionalLong.of(nonvoluntary));
    }

    @Test
    void onTheFixtureTreeTheCountersAreTheThreadsSums() {
        LinuxProcfs proc = Fixtures.procfs();
        // 100 has two threads: 100 (338 and 28 switches) and 101.
        StatusCounters c = proc.statusCounters(100);
        assertEquals(fromWholeStatus(proc, 100), c);
        assertEquals(OptionalLong.of(128 * 1024L), c.swapBytes());
        assertTrue(c.voluntaryContextSwitches().getAsLong() > 338, c.toString());
        assertEquals(c, byDefault(proc).statusCounters(100));
        // A single-threaded process: its own file.
        ProcessStatus one = proc.status(1);
        assertEquals(1, one.threads());
        assertEquals(new StatusCounters(one.memory().swapBytes(), one.voluntaryContextSwitches(),
                one.nonvoluntaryContextSwitches()), proc.statusCounters(1));
        assertEquals(proc.statusCounters(1), byDefault(proc).statusCounters(1));
        assertThrows(NoSuchProcessException.class, () -> proc.statusCounters(4242));
        assertThrows(IllegalArgumentException.class, () -> proc.statusCounters(-1));
        assertThrows(IllegalArgumentException.class, () -> proc.statusCounters(0));
    }

    @Test
    void aLiveProcessOfSleepingThreadsGivesTheSumsOfTheWholeStatusFiles() throws Exception {
        Process p = new ProcessBuilder("python3", "-c", "import threading, time\n"
                + "for _ in range(3): threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n"
                + "time.sleep(600)\n").start();
        started.add(p);
        long pid = p.pid();
        Path status = Path.of("/proc/" + pid + "/status");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(status).contains("Threads:\t4\n")) {
            assertTrue(System.nanoTime() < deadline, "four threads within 60 s");
            Thread.sleep(20);
        }
        for (ProcessTable t : List.of(Procscope.system().processes(),
                LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build())) {
            // Sleeping threads: nothing moves between the reads, except a switch of a thread still settling or
            // waking spuriously (more often on a loaded machine); read all three again until they agree.
            StatusCounters whole = fromWholeStatus(t, pid);
            StatusCounters c = t.statusCounters(pid);
            StatusCounters byDefault = byDefault(t).statusCounters(pid);
            for (int i = 0; i < 100 && !(c.equals(whole) && c.equals(byDefault)); i++) {
                Thread.sleep(50);
                whole = fromWholeStatus(t, pid);
                c = t.statusCounters(pid);
                byDefault = byDefault(t).statusCounters(pid);
            }
            assertEquals(whole, c, t.toString());
            assertEquals(c, byDefault, t.toString());
            assertTrue(c.voluntaryContextSwitches().getAsLong() > t.status(pid).voluntaryContextSwitches().getAsLong(),
                    "the threads' sum beyond the main thread's own: " + c);
        }
        // A thread's id is no process: its /proc/TID/status reads like a process's, with the Tgid of its process.
        long thread = Procscope.system().processes().threads(pid).stream().mapToLong(ThreadInfo::tid)
                .filter(tid -> tid != pid).findFirst().orElseThrow();
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class,
                () -> Procscope.system().processes().statusCounters(thread));
        assertTrue(e.getMessage().contains("is a thread of process " + pid), e.getMessage());
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertThrows(NoSuchProcessException.class, () -> Procscope.system().processes().statusCounters(pid));
    }
}
