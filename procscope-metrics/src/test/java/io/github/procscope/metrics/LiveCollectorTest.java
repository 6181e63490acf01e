package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The collector on this machine, against processes the test starts (and ends, by their pids). */
class LiveCollectorTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endWhatWasStarted() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A copy of sleep under a name no other process has, so that its command name is a group of its own. */
    private static Path uniqueSleep(Path dir) throws IOException {
        Path bin = dir.resolve("psm" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36));
        Files.copy(Path.of("/bin/sleep"), bin);
        bin.toFile().setExecutable(true);
        return bin;
    }

    private Process start(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        started.add(p);
        return p;
    }

    private static long psRssBytes(long pid) throws IOException, InterruptedException {
        Process ps = new ProcessBuilder("ps", "-o", "rss=", "-p", Long.toString(pid)).start();
        String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        ps.waitFor();
        return Long.parseLong(out) * 1024;
    }

    @Test
    void aStagedGroupHasItsProcessesAndPsResidentMemory(@TempDir Path tmp) throws Exception {
        Path sleep = uniqueSleep(tmp);
        String comm = sleep.getFileName().toString();
        for (int i = 0; i < 3; i++) {
            start(sleep.toString(), "60");
        }
        waitForComm(comm, 3);
        long psRss = 0;
        for (Process p : started) {
            psRss += psRssBytes(p.pid());
        }
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                ExporterOptions.defaults())) {
            Exposition e = Exposition.of(c.collect());
            String g = "groupname=\"" + comm + "\"";
            assertEquals(3, e.get("namedprocess_namegroup_num_procs{" + g + "}"));
            double rss = e.get("namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"resident\"}");
            assertEquals(psRss, rss, psRss * 0.05, "ps says " + psRss);
            assertEquals(3, e.get("namedprocess_namegroup_num_threads{" + g + "}"));
            double oldest = e.get("namedprocess_namegroup_oldest_start_time_seconds{" + g + "}");
            double now = System.currentTimeMillis() / 1000.0;
            assertTrue(oldest <= now && oldest > now - 120, "started just now: " + oldest);
            // Ended: the group stays, at 0.
            for (Process p : started) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Exposition after = Exposition.of(c.collect());
            assertEquals(0, after.get("namedprocess_namegroup_num_procs{" + g + "}"));
        }
    }

    @Test
    void aStagedZombieIsCountedUnderItsParent(@TempDir Path tmp) throws Exception {
        Path sleep = uniqueSleep(tmp);
        // sh forks a child that ends once sh has become the unique sleep, which never reaps it: a zombie.
        Process parent = start("sh", "-c", "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec " + sleep + " 60");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String series = "procscope_zombies{parent_comm=\"" + sleep.getFileName() + "\",parent_pid=\"" + parent.pid() + "\"}";
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                ExporterOptions.defaults())) {
            Exposition e = Exposition.of(c.collect());
            while (!e.samples().containsKey(series) && System.nanoTime() < deadline) {
                Thread.sleep(50);
                e = Exposition.of(c.collect());
            }
            assertEquals(1, e.get(series));
            assertTrue(e.get("procscope_zombie_processes") >= 1);
        }
    }

    private static void waitForComm(String comm, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            long seen = Procscope.system().processes().snapshot().processes().stream().filter(p -> p.comm().equals(comm)).count();
            if (seen == n) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(n + " processes named " + comm + " did not appear");
    }
}
