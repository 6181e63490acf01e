package io.github.procscope.linux.proc;

import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.linux.doctor.LinuxDoctor;
import io.github.procscope.testing.MemoryCgroup;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A real OOM kill in a memory cgroup with a 48 MiB limit, found in the kernel log and by the doctor. */
class OomKillLiveIT {
    private static final long LIMIT = 48L << 20;

    @Test
    void oomKillInAMemoryCgroupIsFoundWithItsPidAndFigures() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for cgroups and the kernel log");
        var maybe = MemoryCgroup.create("procscope-oom", LIMIT);
        assumeTrue(maybe.isPresent(), "no writable memory cgroup controller here");
        String hog = NativeHelpers.executable("oom_hog").toString();
        try (MemoryCgroup cg = maybe.get(); Spawned spawned = new Spawned()) {
            Process p = spawned.start("sh", "-c", cg.enterCommand() + hog + " 1024");
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the hog ended");
            assertEquals(137, p.exitValue(), "sh exec'd the hog, so its status is the hog's: 128 + SIGKILL");
            long pid = p.pid();

            List<OomKill> kills = LinuxKernelLog.system().oomKills();
            OomKill k = kills.stream().filter(x -> x.pid() == pid).findFirst()
                    .orElseThrow(() -> new AssertionError("no OOM kill of " + pid + " in " + kills));
            assertEquals("oom_hog", k.comm());
            assertTrue(k.memoryCgroup());
            assertEquals(cg.path(), k.cgroup().orElseThrow());
            long anon = k.anonRssBytes().orElseThrow();
            assertTrue(anon > LIMIT - (16L << 20) && anon <= LIMIT, "anon-rss near the limit: " + anon);
            assertTrue(k.time().orElseThrow().isAfter(java.time.Instant.now().minus(Duration.ofMinutes(5))));

            Diagnosis d = LinuxDoctor.system().examine(DoctorOptions.defaults().withSampleWindow(Duration.ZERO));
            Finding f = d.of(FindingKind.OOM_KILL).stream().filter(x -> x.pids().equals(List.of(pid))).findFirst()
                    .orElseThrow(() -> new AssertionError("doctor missed the kill of " + pid + ": " + d));
            OomKill kill = ((Evidence.OomKilled) f.evidence()).kill();
            assertEquals("oom_hog", kill.comm());
            assertEquals(java.util.Optional.of(cg.path()), kill.cgroup());
            assertEquals(anon, kill.anonRssBytes().orElseThrow());
            assertTrue(d.hasWarnings());
        }
    }
}
