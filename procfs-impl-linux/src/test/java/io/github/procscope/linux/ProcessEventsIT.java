package io.github.procscope.linux;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Staged forks, execs and exits, seen through each source. */
class ProcessEventsIT {
    private final LinuxProcfs proc = LinuxProcfs.system();

    static final class Collector implements ProcessEventListener {
        final ConcurrentLinkedQueue<ProcessEvent> events = new ConcurrentLinkedQueue<>();
        volatile long losses;

        @Override
        public void onEvent(ProcessEvent event) {
            events.add(event);
        }

        @Override
        public void onLoss(long lostSoFar) {
            losses = lostSoFar;
        }

        ProcessEvent await(Predicate<ProcessEvent> p, String what) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < deadline) {
                for (ProcessEvent e : events) {
                    if (p.test(e)) {
                        return e;
                    }
                }
                Thread.sleep(10);
            }
            StringBuilder threads = new StringBuilder();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("procscope-events-")) {
                    threads.append(' ').append(t.getName()).append('=').append(t.getState());
                }
            }
            throw new AssertionError("no event: " + what + " (" + events.size() + " events seen; threads:" + threads
                    + ")");
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Starts a process and reads its identity while it runs (each staged process lives at least 300 ms). */
    private ProcessKey start(List<String> cmd, Path dir, Process[] out) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
        out[0] = p;
        return proc.process(p.pid(), Set.of()).key();
    }

    private void stagedLifecycle(EventSubscription sub, Collector c, EventSource source, Path dir) throws Exception {
        Process[] p = new Process[1];
        // exit with code 3
        ProcessKey three = start(List.of("sh", "-c", "sleep 0.4; exit 3"), dir, p);
        assertEquals(3, p[0].waitFor());
        ProcessEvent fork = c.await(e -> e.type() == EventType.FORK && e.pid() == three.pid(), "fork of " + three);
        assertEquals(Optional.of(three), fork.key());
        assertEquals(ProcessHandle.current().pid(), fork.ppid().orElseThrow(), "forked by this JVM");
        ProcessEvent exit3 = c.await(e -> e.type() == EventType.EXIT && e.pid() == three.pid(), "exit of " + three);
        assertEquals(Optional.of(three), exit3.key());
        assertEquals(source, exit3.source());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(3, exit3.exitCode().orElseThrow());
            assertTrue(exit3.signal().isEmpty());
            assertTrue(exit3.exitStatusKnown());
        }
        if (source == EventSource.NETLINK) {
            // the JDK spawns through a helper that execs the command: an EXEC of the same pid
            c.await(e -> e.type() == EventType.EXEC && e.pid() == three.pid(), "exec of " + three);
        } else if (source == EventSource.SNAPSHOT_DIFF) {
            assertFalse(exit3.exitStatusKnown());
            assertTrue(exit3.exitCode().isEmpty());
        }
        // ended by SIGTERM
        ProcessKey term = start(List.of("sleep", "30"), dir, p);
        Thread.sleep(300);
        p[0].destroy();
        p[0].waitFor();
        ProcessEvent exit15 = c.await(e -> e.type() == EventType.EXIT && e.pid() == term.pid(), "exit of " + term);
        assertEquals(Optional.of(term), exit15.key());
        assertEquals(Optional.of("sleep"), exit15.comm());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(15, exit15.signal().orElseThrow());
            assertTrue(exit15.exitCode().isEmpty());
            assertFalse(exit15.coreDumped());
        }
        // a core dump (core_pattern "core" writes it into the process's directory, a temporary one)
        ProcessKey core = start(List.of("sh", "-c", "ulimit -c unlimited; sleep 0.4; kill -SEGV $$"), dir, p);
        p[0].waitFor();
        ProcessEvent exit11 = c.await(e -> e.type() == EventType.EXIT && e.pid() == core.pid(), "exit of " + core);
        assertEquals(Optional.of(core), exit11.key());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(11, exit11.signal().orElseThrow());
            assertEquals(java.nio.file.Files.readString(Path.of("/proc/sys/kernel/core_pattern")).strip().equals("core"),
                    exit11.coreDumped(), "a core dump where the kernel writes one");
        }
    }

    @Test
    void netlinkReportsForkExecAndEachKindOfExit(@TempDir Path dir) throws Exception {
        assumeTrue(isRoot(), "the process connector needs CAP_NET_ADMIN");
        Collector c = new Collector();
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                EventSource.NETLINK)) {
            assertEquals(EventSource.NETLINK, sub.source());
            assertEquals(Optional.empty(), sub.fallbackReason());
            stagedLifecycle(sub, c, EventSource.NETLINK, dir);
        }
    }

    @Test
    void pidfdsReportExitStatusOfThisJvmsChildrenWithoutStealingIt(@TempDir Path dir) throws Exception {
        Collector c = new Collector();
        ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribeTree(self, c, Duration.ofMillis(50),
                EventSource.PIDFD)) {
            assertEquals(EventSource.PIDFD, sub.source());
            // stagedLifecycle's Process.waitFor() calls return the real exit codes: the status was not stolen
            stagedLifecycle(sub, c, EventSource.PIDFD, dir);
        }
    }

    @Test
    void pidfdsReportExitStatusOfProcessesThatAreNotChildren(@TempDir Path dir) throws Exception {
        // a shell (the watched root) whose children are not this JVM's: their status comes from PIDFD_GET_INFO
        // once the shell has reaped them (Linux 6.15+), else they end without status
        Path termPid = dir.resolve("term.pid");
        String script = "sleep 0.5; sh -c 'sleep 1; exit 3'; sleep 30 & echo $! > " + termPid + "; wait;"
                + " sh -c 'ulimit -c unlimited; sleep 1; kill -SEGV $$'; sleep 0.3";
        Process shell = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).start();
        ProcessKey root = proc.process(shell.pid(), Set.of()).key();
        Collector c = new Collector();
        boolean exitInfo = kernelAtLeast(6, 15);
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribeTree(root, c, Duration.ofMillis(50),
                EventSource.PIDFD)) {
            ProcessEvent fork3 = c.await(e -> e.type() == EventType.FORK && e.ppid().orElse(-1) == shell.pid()
                    && e.comm().orElse("").equals("sh"), "fork of the exit-3 shell");
            assertEquals(EventSource.PIDFD, fork3.source());
            ProcessEvent exit3 = c.await(e -> e.type() == EventType.EXIT && e.pid() == fork3.pid(), "its exit");
            assertEquals(fork3.key(), exit3.key());
            assertEquals(exitInfo, exit3.exitStatusKnown(), exit3.toString());
            if (exitInfo) {
                assertEquals(3, exit3.exitCode().orElseThrow(), exit3.toString());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!java.nio.file.Files.exists(termPid) || java.nio.file.Files.readString(termPid).isBlank()) {
                assertTrue(System.nanoTime() < deadline, "the sleeper's pid was written");
                Thread.sleep(20);
            }
            long sleeper = Long.parseLong(java.nio.file.Files.readString(termPid).strip());
            c.await(e -> e.type() == EventType.FORK && e.pid() == sleeper, "fork of the sleeper");
            assertTrue(ProcessHandle.of(sleeper).orElseThrow().destroy(), "SIGTERM sent to " + sleeper);
            ProcessEvent exit15 = c.await(e -> e.type() == EventType.EXIT && e.pid() == sleeper, "sleeper's exit");
            if (exitInfo) {
                assertEquals(15, exit15.signal().orElseThrow(), exit15.toString());
                assertFalse(exit15.coreDumped());
            }
            ProcessEvent exit11 = c.await(e -> e.type() == EventType.EXIT && e.signal().orElse(0) == 11
                    || e.type() == EventType.EXIT && !e.exitStatusKnown() && e.pid() != sleeper
                    && e.pid() != fork3.pid() && e.pid() != shell.pid() && e.comm().orElse("").equals("sh"),
                    "the SEGV shell's exit");
            if (exitInfo) {
                assertEquals(11, exit11.signal().orElseThrow());
                assertEquals(java.nio.file.Files.readString(Path.of("/proc/sys/kernel/core_pattern")).strip()
                        .equals("core"), exit11.coreDumped(), "a core dump where the kernel writes one");
            }
            assertEquals(0, shell.waitFor());
            ProcessEvent rootExit = c.await(e -> e.type() == EventType.EXIT && e.pid() == shell.pid(), "root's exit");
            assertEquals(0, rootExit.exitCode().orElseThrow(), "the root is this JVM's child: waitid saw it");
            // every event is of the tree
            for (ProcessEvent e : c.events) {
                assertEquals(EventSource.PIDFD, e.source());
            }
        }
    }

    static boolean kernelAtLeast(int major, int minor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int ma = Integer.parseInt(v[0]);
        int mi = Integer.parseInt(v[1]);
        return ma > major || ma == major && mi >= minor;
    }

    @Test
    void asRootTheDefaultSourceIsTheConnectorOnEitherBackEnd() {
        // The connector's socket goes through the native wall: JDK 25's FFM back end uses it as JDK 17's jnr does.
        assumeTrue(isRoot(), "the connector needs CAP_NET_ADMIN");
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribe(new Collector(), Duration.ofMillis(50))) {
            assertEquals(EventSource.NETLINK, sub.source(), sub.fallbackReason().orElse("") + " on "
                    + NativeWalls.chosen());
            assertTrue(sub.fallbackReason().isEmpty());
        }
    }

    @Test
    void aTreeIsWatchedThroughTheBestSourceWithItsReason() throws Exception {
        ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
        Collector c = new Collector();
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribeTree(self, c, Duration.ofMillis(50))) {
            if (sub.source() != EventSource.NETLINK) {
                assertEquals(EventSource.PIDFD, sub.source(), "pidfds before snapshot diffing for a tree");
                assertTrue(sub.fallbackReason().orElseThrow().contains("process connector"), sub.fallbackReason().get());
            }
            Process p = new ProcessBuilder("sh", "-c", "sleep 1; exit 4").start();
            assertEquals(4, p.waitFor());
            ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.pid() == p.pid(), "exit of " + p.pid());
            assertEquals(4, exit.exitCode().orElseThrow());
        }
    }

    @Test
    void aRootThatIsNotRunningIsRefused() {
        ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
        ProcessKey reused = new ProcessKey(self.pid(), self.startTimeTicks() + 1);
        for (EventSource s : EventSource.values()) {
            if (s == EventSource.NETLINK && !isRoot()) {
                continue;
            }
            org.junit.jupiter.api.Assertions.assertThrows(io.github.procscope.api.NoSuchProcessException.class,
                    () -> LinuxProcessEvents.of(proc).subscribeTree(reused, new Collector(), Duration.ofMillis(50), s),
                    s.name());
        }
        org.junit.jupiter.api.Assertions.assertThrows(io.github.procscope.api.events.EventsUnavailableException.class,
                () -> LinuxProcessEvents.of(proc).subscribe(new Collector(), Duration.ofMillis(50), EventSource.PIDFD));
    }

    @Test
    void snapshotDiffingReportsTheSameWithoutExitStatus(@TempDir Path dir) throws Exception {
        Collector c = new Collector();
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                EventSource.SNAPSHOT_DIFF)) {
            assertEquals(EventSource.SNAPSHOT_DIFF, sub.source());
            assertTrue(sub.fallbackReason().isPresent());
            stagedLifecycle(sub, c, EventSource.SNAPSHOT_DIFF, dir);
        }
    }

    @Test
    void aBurstOfFiveThousandProcessesIsReportedOrTheLossIsCounted() throws Exception {
        assumeTrue(isRoot(), "the process connector needs CAP_NET_ADMIN");
        Collector c = new Collector();
        try (EventSubscription sub = LinuxProcessEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                EventSource.NETLINK)) {
            Process burst = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 5000 ]; do /bin/true; i=$((i+1)); done")
                    .start();
            long shell = burst.pid();
            assertEquals(0, burst.waitFor());
            // wait until delivery has settled: no new event for a second
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            int seen = -1;
            while (seen != c.events.size() && System.nanoTime() < deadline) {
                seen = c.events.size();
                Thread.sleep(1000);
            }
            assertTrue(c.events.stream().anyMatch(e -> e.type() == EventType.EXIT && e.pid() == shell)
                    || sub.lost() > 0 || sub.dropped() > 0, "the shell's exit, or a counted loss");
            // the kernel names the forking parent in every FORK; an EXIT's parent may be unknown when the child was
            // gone before it could be read, so exits are matched by pid
            java.util.Set<Long> children = new java.util.HashSet<>();
            c.events.stream().filter(e -> e.type() == EventType.FORK && e.ppid().orElse(-1) == shell)
                    .forEach(e -> children.add(e.pid()));
            long forks = children.size();
            long exits = c.events.stream().filter(e -> e.type() == EventType.EXIT && children.contains(e.pid())).count();
            // honest: every child seen, or the shortfall is covered by counted drops or overruns
            assertTrue(forks == 5000 || sub.dropped() > 0 || sub.lost() > 0,
                    "forks " + forks + ", dropped " + sub.dropped() + ", lost " + sub.lost());
            assertTrue(exits == forks || sub.dropped() > 0 || sub.lost() > 0,
                    "exits " + exits + ", dropped " + sub.dropped() + ", lost " + sub.lost());
            assertEquals(sub.lost(), c.losses, "every overrun was reported to the listener");
            System.out.println("burst: forks " + forks + ", exits " + exits + ", dropped " + sub.dropped() + ", lost "
                    + sub.lost());
        }
    }
}
