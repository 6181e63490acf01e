package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
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

/**
 * Staged forks, execs and exits, seen through each source. Each staged process runs until the source has seen it,
 * so that a loaded machine cannot make a snapshot miss it. The process connector's messages can really be lost: when
 * the socket's buffer overruns, the kernel drops them and says so ({@code ENOBUFS}, counted as
 * {@link EventSubscription#lost()}); an event that never comes must be covered by such a counted loss.
 */
class ProcessEventsIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

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
            return awaitOrLoss(p, what, null).orElseThrow();
        }

        /**
         * @param sub the subscription whose counted losses (kernel overruns, full queue) may explain a missing
         *            event; {@code null} when none may
         * @return the first event that matches; empty only when it did not come and {@code sub} counted a loss
         * @throws AssertionError when it did not come and no loss was counted
         */
        Optional<ProcessEvent> awaitOrLoss(Predicate<ProcessEvent> p, String what, EventSubscription sub)
                throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            long afterLoss = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, afterLoss)) {
                for (ProcessEvent e : events) {
                    if (p.test(e)) {
                        return Optional.of(e);
                    }
                }
                if (afterLoss == Long.MAX_VALUE && sub != null && sub.lost() + sub.dropped() > 0) {
                    afterLoss = System.nanoTime() + Duration.ofSeconds(5).toNanos(); // what was queued still comes
                }
                Thread.sleep(10);
            }
            if (sub != null && sub.lost() + sub.dropped() > 0) {
                return Optional.empty();
            }
            StringBuilder threads = new StringBuilder();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("procscope-events-")) {
                    threads.append(' ').append(t.getName()).append('=').append(t.getState());
                }
            }
            throw new AssertionError("no event: " + what + " (" + events.size() + " events seen" + (sub == null ? ""
                    : ", none lost or dropped by " + sub.source()) + "; threads:" + threads + ")");
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * Starts a process and reads its identity while it runs; it runs until the source has reported it as running
     * {@code comm} (a FORK or EXEC naming it), then {@code release} lets it go on. Its events are matched by
     * identity, not by pid alone: beside a build, pids are soon reused.
     *
     * @return its identity; empty when a counted loss took the event that would have told
     */
    private Optional<ProcessKey> start(List<String> cmd, String comm, Path dir, Process[] out, Collector c,
                                       EventSubscription sub) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
        out[0] = p;
        try {
            ProcessKey key = proc.process(p.pid(), Set.of()).key();
            Optional<ProcessEvent> seen = c.awaitOrLoss(e -> (e.type() == EventType.FORK
                    || e.type() == EventType.EXEC) && e.key().equals(Optional.of(key)) && e.comm().equals(Optional.of(comm)),
                    comm + " " + key + " running", sub);
            return seen.map(e -> key);
        } catch (RuntimeException | Error e) {
            p.destroyForcibly();
            p.waitFor();
            throw e;
        }
    }

    /** Closes the standard input of a staged process that reads it to go on, and returns its exit status. */
    private static int release(Process p) throws Exception {
        p.getOutputStream().close();
        assertTrue(p.waitFor(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS), "ended: " + p.pid());
        return p.exitValue();
    }

    /**
     * An exit with a code, an end by SIGTERM, a core dump: each process's events and their contents.
     *
     * @return whether every event came; false only when the subscription counted a loss (the connector's)
     */
    private boolean stagedLifecycle(EventSubscription sub, Collector c, EventSource source, Path dir) throws Exception {
        Process[] p = new Process[1];
        // exit with code 3
        Optional<ProcessKey> started = start(List.of("sh", "-c", "read x; exit 3"), "sh", dir, p, c, sub);
        assertEquals(3, release(p[0]));
        if (started.isEmpty()) {
            return false;
        }
        ProcessKey three = started.get();
        Optional<ProcessEvent> fork = c.awaitOrLoss(e -> e.type() == EventType.FORK && e.key().equals(Optional.of(three)),
                "fork of " + three, sub);
        Optional<ProcessEvent> exit3 = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.key().equals(Optional.of(three)),
                "exit of " + three, sub);
        if (fork.isEmpty() || exit3.isEmpty()) {
            return false;
        }
        assertEquals(Optional.of(three), fork.get().key());
        assertEquals(ProcessHandle.current().pid(), fork.get().ppid().orElseThrow(), "forked by this JVM");
        assertEquals(Optional.of(three), exit3.get().key());
        assertEquals(source, exit3.get().source());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(3, exit3.get().exitCode().orElseThrow());
            assertTrue(exit3.get().signal().isEmpty());
            assertTrue(exit3.get().exitStatusKnown());
        }
        if (source == EventSource.NETLINK) {
            // the JDK spawns through a helper that execs the command: an EXEC of the same pid
            if (c.awaitOrLoss(e -> e.type() == EventType.EXEC && e.key().equals(Optional.of(three)), "exec of " + three, sub)
                    .isEmpty()) {
                return false;
            }
        } else if (source == EventSource.SNAPSHOT_DIFF) {
            assertFalse(exit3.get().exitStatusKnown());
            assertTrue(exit3.get().exitCode().isEmpty());
        }
        // ended by SIGTERM
        started = start(List.of("sleep", "300"), "sleep", dir, p, c, sub);
        p[0].destroy();
        p[0].waitFor();
        if (started.isEmpty()) {
            return false;
        }
        ProcessKey term = started.get();
        Optional<ProcessEvent> exit15 = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.key().equals(Optional.of(term)),
                "exit of " + term, sub);
        if (exit15.isEmpty()) {
            return false;
        }
        assertEquals(Optional.of(term), exit15.get().key());
        assertEquals(Optional.of("sleep"), exit15.get().comm());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(15, exit15.get().signal().orElseThrow());
            assertTrue(exit15.get().exitCode().isEmpty());
            assertFalse(exit15.get().coreDumped());
        }
        // a core dump (core_pattern "core" writes it into the process's directory, a temporary one)
        started = start(List.of("sh", "-c", "ulimit -c unlimited; read x; kill -SEGV $$"), "sh", dir, p, c,
                sub);
        release(p[0]);
        if (started.isEmpty()) {
            return false;
        }
        ProcessKey core = started.get();
        Optional<ProcessEvent> exit11 = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.key().equals(Optional.of(core)),
                "exit of " + core, sub);
        if (exit11.isEmpty()) {
            return false;
        }
        assertEquals(Optional.of(core), exit11.get().key());
        if (source != EventSource.SNAPSHOT_DIFF) {
            assertEquals(11, exit11.get().signal().orElseThrow());
            assertEquals(java.nio.file.Files.readString(Path.of("/proc/sys/kernel/core_pattern")).strip().equals("core"),
                    exit11.get().coreDumped(), "a core dump where the kernel writes one");
        }
        return true;
    }

    @Test
    void netlinkReportsForkExecAndEachKindOfExit(@TempDir Path dir) throws Exception {
        assumeTrue(isRoot(), "the process connector needs CAP_NET_ADMIN");
        // A loss the kernel reported may take an event of the staging: then the staging is done again, on a fresh
        // subscription, a few times; what arrived was checked each time, and what did not was counted as lost.
        for (int attempt = 1; ; attempt++) {
            Collector c = new Collector();
            try (EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                    EventSource.NETLINK)) {
                assertEquals(EventSource.NETLINK, sub.source());
                assertEquals(Optional.empty(), sub.fallbackReason());
                if (stagedLifecycle(sub, c, EventSource.NETLINK, dir)) {
                    return;
                }
                assertTrue(sub.lost() + sub.dropped() > 0, "an event missing only with a counted loss");
                Spawned.await(WAIT, "every overrun reported to the listener", () -> c.losses == sub.lost());
                System.out.println("attempt " + attempt + ": events lost by the kernel " + sub.lost()
                        + ", dropped " + sub.dropped());
                if (attempt == 3) {
                    return;
                }
            }
        }
    }

    @Test
    void pidfdsReportExitStatusOfThisJvmsChildrenWithoutStealingIt(@TempDir Path dir) throws Exception {
        Collector c = new Collector();
        ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
        try (EventSubscription sub = LiveEvents.of(proc).subscribeTree(self, c, Duration.ofMillis(50),
                EventSource.PIDFD)) {
            assertEquals(EventSource.PIDFD, sub.source());
            // stagedLifecycle's Process.waitFor() calls return the real exit codes: the status was not stolen
            assertTrue(stagedLifecycle(sub, c, EventSource.PIDFD, dir), "lost " + sub.lost());
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
        try (EventSubscription sub = LiveEvents.of(proc).subscribeTree(root, c, Duration.ofMillis(50),
                EventSource.PIDFD)) {
            assertEquals(EventSource.PIDFD, sub.source());
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

    /**
     * A burst's events so far, in the order they came. The kernel names the forking parent in every FORK; an EXIT's
     * parent may be unknown when the child was gone before it could be read, so a child's exit is the first EXIT of
     * its pid after its FORK (pids are reused: with pid_max 32768 and a build beside this test, other processes
     * took a child's pid and exited within seconds).
     *
     * @return the FORKs of the shell's children, their EXITs, and 1 if the shell's EXIT came
     */
    private static long[] burst(Collector c, long shell) {
        java.util.Set<Long> running = new java.util.HashSet<>();
        long forks = 0;
        long exits = 0;
        long shellExit = 0;
        for (ProcessEvent e : c.events) {
            if (e.type() == EventType.FORK && e.ppid().orElse(-1) == shell) {
                forks++;
                running.add(e.pid());
            } else if (e.type() == EventType.EXIT && running.remove(e.pid())) {
                exits++;
            } else if (e.type() == EventType.EXIT && e.pid() == shell) {
                shellExit = 1;
            }
        }
        return new long[] {forks, exits, shellExit};
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
        try (EventSubscription sub = LiveEvents.of(proc).subscribe(new Collector(), Duration.ofMillis(50))) {
            assertEquals(EventSource.NETLINK, sub.source(), sub.fallbackReason().orElse("") + " on JDK "
                    + Runtime.version());
            assertTrue(sub.fallbackReason().isEmpty());
        }
    }

    @Test
    void aTreeIsWatchedThroughTheBestSourceWithItsReason() throws Exception {
        ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
        Collector c = new Collector();
        try (EventSubscription sub = LiveEvents.of(proc).subscribeTree(self, c, Duration.ofMillis(50))) {
            if (sub.source() != EventSource.NETLINK) {
                assertEquals(EventSource.PIDFD, sub.source(), "pidfds before snapshot diffing for a tree");
                assertTrue(sub.fallbackReason().orElseThrow().contains("process connector"), sub.fallbackReason().get());
            }
            Process p = new ProcessBuilder("sh", "-c", "sleep 1; exit 4").start();
            assertEquals(4, p.waitFor());
            // through the connector, a loss the kernel reported may have taken it
            Optional<ProcessEvent> exit = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.pid() == p.pid(),
                    "exit of " + p.pid(), sub.source() == EventSource.NETLINK ? sub : null);
            exit.ifPresent(e -> assertEquals(4, e.exitCode().orElseThrow()));
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
            org.junit.jupiter.api.Assertions.assertThrows(io.github.procscope.api.core.NoSuchProcessException.class,
                    () -> LiveEvents.of(proc).subscribeTree(reused, new Collector(), Duration.ofMillis(50), s),
                    s.name());
        }
        org.junit.jupiter.api.Assertions.assertThrows(io.github.procscope.api.events.EventsUnavailableException.class,
                () -> LiveEvents.of(proc).subscribe(new Collector(), Duration.ofMillis(50), EventSource.PIDFD));
    }

    @Test
    void snapshotDiffingReportsTheSameWithoutExitStatus(@TempDir Path dir) throws Exception {
        Collector c = new Collector();
        try (EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                EventSource.SNAPSHOT_DIFF)) {
            assertEquals(EventSource.SNAPSHOT_DIFF, sub.source());
            assertTrue(sub.fallbackReason().isPresent());
            assertTrue(stagedLifecycle(sub, c, EventSource.SNAPSHOT_DIFF, dir), "dropped " + sub.dropped());
        }
    }

    @Test
    void aBurstOfFiveThousandProcessesIsReportedOrTheLossIsCounted() throws Exception {
        assumeTrue(isRoot(), "the process connector needs CAP_NET_ADMIN");
        Collector c = new Collector();
        try (EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                EventSource.NETLINK)) {
            Process burst = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 5000 ]; do /bin/true; i=$((i+1)); done")
                    .start();
            long shell = burst.pid();
            assertEquals(0, burst.waitFor());
            // wait until delivery has settled: every event of the burst came, or none of it came for 10 s (the rest
            // of the system's events, a build beside this one, say, keep coming and do not count; a loaded machine
            // may hold the delivery thread back for a second or more)
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            long seen = -1;
            int still = 0;
            long[] b = burst(c, shell);
            while (System.nanoTime() < deadline && still < 10) {
                b = burst(c, shell);
                long now = b[0] + b[1] + b[2];
                if (now == 2 * 5000 + 1) {
                    break;
                }
                still = now == seen ? still + 1 : 0;
                seen = now;
                Thread.sleep(1000);
            }
            long forks = b[0];
            long exits = b[1];
            assertTrue(b[2] == 1 || sub.lost() > 0 || sub.dropped() > 0, "the shell's exit, or a counted loss");
            // honest: every child seen, or the shortfall is covered by counted drops or overruns
            assertTrue(forks == 5000 || sub.dropped() > 0 || sub.lost() > 0,
                    "forks " + forks + ", dropped " + sub.dropped() + ", lost " + sub.lost());
            assertTrue(exits == forks || sub.dropped() > 0 || sub.lost() > 0,
                    "exits " + exits + ", dropped " + sub.dropped() + ", lost " + sub.lost());
            Spawned.await(WAIT, "every overrun reported to the listener", () -> c.losses == sub.lost());
            System.out.println("burst: forks " + forks + ", exits " + exits + ", dropped " + sub.dropped() + ", lost "
                    + sub.lost());
        }
    }
}
