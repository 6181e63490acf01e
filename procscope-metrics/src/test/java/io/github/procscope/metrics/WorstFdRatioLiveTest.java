package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
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

/**
 * {@code namedprocess_namegroup_worst_fd_ratio} of a staged group follows {@code prlimit}: the limit is read again
 * in every scrape (as process-exporter does), so a change shows in the very next one.
 */
class WorstFdRatioLiveTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endWhatWasStarted() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
    }

    private static int openFds(long pid) throws IOException {
        try (var s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) s.count();
        }
    }

    @Test
    void aLimitChangedBetweenTwoScrapesShowsInTheSecond(@TempDir Path tmp) throws Exception {
        // A copy of sleep under a name no other process has: a group of its own.
        Path bin = tmp.resolve("pfd" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36));
        Files.copy(Path.of("/bin/sleep"), bin);
        bin.toFile().setExecutable(true);
        Process a = new ProcessBuilder(bin.toString(), "120").start();
        started.add(a);
        Process b = new ProcessBuilder(bin.toString(), "120").start();
        started.add(b);
        String series = "namedprocess_namegroup_worst_fd_ratio{groupname=\"" + bin.getFileName() + "\"}";
        int fdsA = openFds(a.pid());
        int fdsB = openFds(b.pid());
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                ExporterOptions.defaults())) {
            run("prlimit", "--pid", Long.toString(a.pid()), "--nofile=1000:4096");
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=2000:4096");
            assertEquals(fdsA / 1000.0, Exposition.of(c.collect()).get(series), 1e-12);
            // b's limit lowered: b is now the worst.
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=16:4096");
            assertEquals(fdsB / 16.0, Exposition.of(c.collect()).get(series), 1e-12);
            // and raised again: a is the worst again, at once.
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=4000:4096");
            assertEquals(fdsA / 1000.0, Exposition.of(c.collect()).get(series), 1e-12);
        }
    }
}
