package io.github.procscope.linux;

import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ExitCause;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.testing.MemoryCgroup;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** An OOM kill in a 48 MiB memory cgroup arrives as an EXIT by SIGKILL with the cause OOM_KILLED. */
class ProcessEventsOomIT {
    @Test
    void anOomKillArrivesAsExitWithItsCause() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for cgroups, netlink and the kernel log");
        var maybe = MemoryCgroup.create("procscope-oom-events", 48L << 20);
        assumeTrue(maybe.isPresent(), "no writable memory cgroup controller here");
        String hog = NativeHelpers.executable("oom_hog").toString();
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (MemoryCgroup cg = maybe.get(); Spawned spawned = new Spawned();
             EventSubscription sub = LinuxProcessEvents.of(LinuxProcfs.system()).subscribe(c, Duration.ofMillis(50))) {
            assertEquals(EventSource.NETLINK, sub.source());
            Process p = spawned.start("sh", "-c", cg.enterCommand() + hog + " 1024");
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the hog ended");
            assertEquals(137, p.exitValue());
            long pid = p.pid();
            ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.pid() == pid, "exit of the hog " + pid);
            assertEquals(9, exit.signal().orElseThrow());
            assertEquals(Optional.of(ExitCause.OOM_KILLED), exit.cause(), exit.toString());
            assertTrue(exit.evidence().orElseThrow().contains("Killed process " + pid + " (oom_hog)"), exit.toString());
        }
        // and a SIGKILL that is no OOM kill carries no cause
        ProcessEventsIT.Collector c2 = new ProcessEventsIT.Collector();
        try (EventSubscription sub = LinuxProcessEvents.of(LinuxProcfs.system()).subscribe(c2, Duration.ofMillis(50))) {
            Process sleeper = new ProcessBuilder("sleep", "30").start();
            Thread.sleep(200);
            sleeper.destroyForcibly();
            sleeper.waitFor();
            ProcessEvent exit = c2.await(e -> e.type() == EventType.EXIT && e.pid() == sleeper.pid(), "exit of sleep");
            assertEquals(9, exit.signal().orElseThrow());
            assertEquals(Optional.empty(), exit.cause());
        }
    }
}
