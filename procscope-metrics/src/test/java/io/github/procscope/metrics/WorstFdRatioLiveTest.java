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

    /**
     * One scrape shows {@code pid}'s descriptors over {@code limit}. The descriptors are counted right before and
     * right after the scrape; a child the JDK has just started can still hold its launcher's pipe for a moment, so a
     * scrape during which the count moved is taken again.
     */
    private static void assertWorst(ProcscopeCollector c, String series, long pid, int limit) throws IOException {
        for (int attempt = 0; ; attempt++) {
            int before = openFds(pid);
            double scraped = Exposition.of(c.collect()).get(series);
            int after = openFds(pid);
            if (before == after || attempt == 20) {
                assertEquals(after / (double) limit, scraped, 1e-12, "descriptors " + before + " -> " + after);
                return;
            }
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
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                ExporterOptions.defaults())) {
            run("prlimit", "--pid", Long.toString(a.pid()), "--nofile=1000:4096");
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=2000:4096");
            assertWorst(c, series, a.pid(), 1000);
            // b's limit lowered: b is now the worst.
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=16:4096");
            assertWorst(c, series, b.pid(), 16);
            // and raised again: a is the worst again, at once.
            run("prlimit", "--pid", Long.toString(b.pid()), "--nofile=4000:4096");
            assertWorst(c, series, a.pid(), 1000);
        }
    }
}
