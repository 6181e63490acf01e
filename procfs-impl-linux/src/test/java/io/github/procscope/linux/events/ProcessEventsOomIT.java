package io.github.procscope.linux.events;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ExitCause;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.MemoryCgroup;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An OOM kill in a 48 MiB memory cgroup arrives as an EXIT by SIGKILL with the cause OOM_KILLED. Through the
 * process connector the EXIT may be among the messages the kernel drops under load, and counts
 * ({@code ENOBUFS}): then the kill is staged again, up to 3 times, and a missing EXIT must be covered by a
 * counted loss.
 */
class ProcessEventsOomIT {
    private static final int ATTEMPTS = 3;

    /** One staging over the process connector: whether its EXIT came, false only after a counted loss. */
    private interface Staging {
        boolean run() throws Exception;
    }

    private static void stageUntilSeen(String what, Staging staging) throws Exception {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (staging.run()) {
                return;
            }
            System.out.println(what + ", attempt " + attempt + ": the EXIT was among the events the kernel dropped");
        }
    }

    @Test
    void anOomKillArrivesAsExitWithItsCause() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for cgroups, netlink and the kernel log");
        assumeTrue(MemoryCgroup.create("procscope-oom-events", 48L << 20).map(cg -> {
            cg.close();
            return true;
        }).orElse(false), "no writable memory cgroup controller here");
        String hog = NativeHelpers.executable("oom_hog").toString();
        stageUntilSeen("the OOM kill", () -> {
            ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
            try (MemoryCgroup cg = MemoryCgroup.create("procscope-oom-events", 48L << 20).orElseThrow();
                 Spawned spawned = new Spawned();
                 EventSubscription sub = LiveEvents.of(LinuxProcfs.at(Path.of("/proc"))).subscribe(c,
                         Duration.ofMillis(50), EventSource.NETLINK)) {
                assertEquals(EventSource.NETLINK, sub.source());
                Process p = spawned.start("sh", "-c", cg.enterCommand() + hog + " 1024");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the hog ended");
                assertEquals(137, p.exitValue());
                long pid = p.pid();
                Optional<ProcessEvent> seen = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.pid() == pid,
                        "exit of the hog " + pid, sub);
                if (seen.isEmpty()) {
                    return false;
                }
                ProcessEvent exit = seen.get();
                assertEquals(9, exit.signal().orElseThrow());
                assertEquals(Optional.of(ExitCause.OOM_KILLED), exit.cause(), exit.toString());
                assertTrue(exit.evidence().orElseThrow().contains("Killed process " + pid + " (oom_hog)"),
                        exit.toString());
                return true;
            }
        });
        // and a SIGKILL that is no OOM kill carries no cause
        stageUntilSeen("the plain SIGKILL", () -> {
            ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
            try (Spawned spawned = new Spawned();
                 EventSubscription sub = LiveEvents.of(LinuxProcfs.at(Path.of("/proc"))).subscribe(c,
                         Duration.ofMillis(50), EventSource.NETLINK)) {
                assertEquals(EventSource.NETLINK, sub.source());
                Process sleeper = spawned.start("sleep", "300");
                long pid = sleeper.pid();
                // killed once the connector has reported it as sleep, so that its identity is known
                if (c.awaitOrLoss(e -> e.pid() == pid && e.type() == EventType.EXEC
                        && e.comm().equals(Optional.of("sleep")), "exec of sleep " + pid, sub).isEmpty()) {
                    return false;
                }
                sleeper.destroyForcibly();
                sleeper.waitFor();
                Optional<ProcessEvent> seen = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.pid() == pid,
                        "exit of sleep " + pid, sub);
                if (seen.isEmpty()) {
                    return false;
                }
                assertEquals(9, seen.get().signal().orElseThrow());
                assertEquals(Optional.empty(), seen.get().cause());
                return true;
            }
        });
    }

    /** A kernel log that cannot be read, as for a user without root where {@code dmesg_restrict} is set. */
    private static io.github.procscope.api.diagnose.KernelLog unreadableLog() {
        throw new io.github.procscope.api.events.EventsUnavailableException("the kernel log is disabled for this test");
    }

    @Test
    void theCgroupsOomKillCounterIsEvidenceEnoughWithoutTheKernelLog() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for cgroups and netlink");
        assumeTrue(MemoryCgroup.create("procscope-oom-counter", 48L << 20).map(cg -> {
            cg.close();
            return true;
        }).orElse(false), "no writable memory cgroup controller here");
        String hog = NativeHelpers.executable("oom_hog").toString();
        stageUntilSeen("the OOM kill", () -> {
            ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
            try (MemoryCgroup cg = MemoryCgroup.create("procscope-oom-counter", 48L << 20).orElseThrow();
                 Spawned spawned = new Spawned();
                 EventSubscription sub = LiveEvents.of(LinuxProcfs.at(Path.of("/proc")), ProcessEventsOomIT::unreadableLog)
                         .subscribe(c, Duration.ofMillis(50), EventSource.NETLINK)) {
                assertEquals(EventSource.NETLINK, sub.source());
                Process p = spawned.start("sh", "-c", cg.enterCommand() + hog + " 1024 300");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the hog ended");
                assertEquals(137, p.exitValue());
                long pid = p.pid();
                Optional<ProcessEvent> seen = c.awaitOrLoss(e -> e.type() == EventType.EXIT && e.pid() == pid,
                        "exit of the hog " + pid, sub);
                if (seen.isEmpty()) {
                    return false;
                }
                ProcessEvent exit = seen.get();
                assertEquals(9, exit.signal().orElseThrow());
                assertEquals(Optional.of(ExitCause.OOM_KILLED), exit.cause(), exit.toString());
                String evidence = exit.evidence().orElseThrow();
                assertTrue(evidence.contains(cg.dir().toString()) && evidence.contains("oom_kill rose from 0 to 1"),
                        evidence);
                assertTrue(!evidence.contains("kernel log"), evidence);
                return true;
            }
        });
    }

    @Test
    void aWatchedTreeThroughPidfdsCarriesTheOomCauseToo() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for cgroups");
        var maybe = MemoryCgroup.create("procscope-oom-pidfd", 48L << 20);
        assumeTrue(maybe.isPresent(), "no writable memory cgroup controller here");
        String hog = NativeHelpers.executable("oom_hog").toString();
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (MemoryCgroup cg = maybe.get(); Spawned spawned = new Spawned()) {
            // the shell enters the cgroup, then forks the hog, which waits before allocating so that it is seen
            Process p = spawned.start("sh", "-c", cg.enterCommand() + "sh -c '" + hog + " 1024 500; exit 7'");
            LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
            var root = proc.process(p.pid(), java.util.Set.of()).key();
            try (EventSubscription sub = LiveEvents.of(proc, ProcessEventsOomIT::unreadableLog)
                    .subscribeTree(root, c, Duration.ofMillis(50), EventSource.PIDFD)) {
                assertEquals(EventSource.PIDFD, sub.source());
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the shell ended");
                assertEquals(7, p.exitValue());
                ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.signal().orElse(0) == 9,
                        "exit of the hog by SIGKILL");
                assertEquals(Optional.of("oom_hog"), exit.comm());
                assertEquals(Optional.of(ExitCause.OOM_KILLED), exit.cause(), exit.toString());
                assertTrue(exit.evidence().orElseThrow().contains("oom_kill rose from 0 to 1"), exit.toString());
            }
        }
    }

    private static long oomKillCount() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/vmstat"))) {
            if (line.startsWith("oom_kill ")) {
                return Long.parseLong(line.substring("oom_kill ".length()).strip());
            }
        }
        return -1;
    }

    @SuppressWarnings("try") // the resource is held for its scope, not used by name
    @Test
    void exitsBySigkillThatNoOomKillExplainsDoNotReadTheKernelLogEachTime() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for netlink and the kernel log");
        long before = oomKillCount();
        assumeTrue(before >= 0, "no oom_kill count in /proc/vmstat (Linux older than 4.13)");
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        io.github.procscope.api.diagnose.KernelLog log = Procscope.system().kernelLog();
        io.github.procscope.api.diagnose.KernelLog counted = () -> {
            reads.incrementAndGet();
            return log.oomKills();
        };
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        java.util.List<Process> sleepers = new java.util.ArrayList<>();
        try (Spawned spawned = new Spawned();
             EventSubscription sub = LiveEvents.of(LinuxProcfs.at(Path.of("/proc")), () -> counted).subscribe(c,
                     Duration.ofMillis(50), EventSource.NETLINK)) {
            for (int i = 0; i < 50; i++) {
                sleepers.add(spawned.start("sleep", "60"));
            }
            for (Process p : sleepers) {
                p.destroyForcibly();
            }
            for (Process p : sleepers) {
                p.waitFor();
                ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.pid() == p.pid(), "exit of " + p.pid());
                assertEquals(9, exit.signal().orElseThrow());
                assertEquals(Optional.empty(), exit.cause());
            }
        }
        long oomKills = oomKillCount() - before;
        // One look, and one more 200 ms later, per change of the count (other processes of this machine may be
        // OOM-killed meanwhile), and the first: not two reads of the whole log for every SIGKILL.
        System.out.printf("50 SIGKILL exits: %d reads of the kernel log, %d OOM kills on the machine meanwhile%n",
                reads.get(), oomKills);
        assertTrue(reads.get() <= 2 * (oomKills + 1), reads.get() + " reads for " + oomKills + " OOM kills");
    }
}
