package io.github.procscope.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Prometheus server (Debian's {@code prometheus}) scrapes {@code procscope serve} and Debian's
 * {@code prometheus-process-exporter} with the README's scrape configuration; PromQL through Prometheus's HTTP API
 * then sees what the test staged: a group of processes under a name no other process has (its size exactly, its
 * resident memory within 5% of process-exporter's for the same group, its open descriptors exactly and the bytes
 * it writes to storage within 5%, as both exporters count them), the NVML test double's GPU memory in MiB, and a
 * zombie under its parent; and Prometheus keeps its connection to serve alive across scrapes. Every process the test
 * starts is ended by its pid.
 */
class ServeIT {
    private static final int STAGED = 3;
    private static final int WRITTEN = 4_000_000;

    private final Deque<Process> started = new ArrayDeque<>();
    private InProcessServe serve;
    private PrometheusServer prometheus;

    @AfterEach
    void endEverythingStarted() throws Exception {
        if (serve != null) {
            serve.close();
        }
        if (prometheus != null) {
            prometheus.close();
        }
        while (!started.isEmpty()) {
            PrometheusServer.end(started.pop());
        }
    }

    private Process start(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        started.push(p);
        return p;
    }

    /** The README's scrape configuration, with the port procscope serve got and a 1 s interval. */
    static String readmeScrapeConfig() {
        String section = Readme.section(Readme.text(), "### Scraping it");
        List<String> yaml = Readme.blocks(section, "yaml");
        assertEquals(1, yaml.size(), "the README shows one scrape configuration");
        return yaml.get(0);
    }

    @Test
    void prometheusSeesTheStagedGroupGpuMemoryAndZombieThroughServe(@TempDir Path tmp) throws Exception {
        // The staged group: copies of perl under a name no other process has, each holding ~40 MB and three more
        // descriptors (/dev/null) and a file it writes WRITTEN bytes to once told (a file appears). The files are on
        // the build directory's file system: on a tmpfs nothing would reach storage and write_bytes would stay 0.
        String name = "psit" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Path perl = tmp.resolve(name);
        Files.copy(Path.of(PrometheusServer.which("perl")), perl);
        assertTrue(perl.toFile().setExecutable(true));
        Path disk = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "serve-it");
        Path go = disk.resolve("go");
        List<Process> staged = new java.util.ArrayList<>();
        for (int i = 0; i < STAGED; i++) {
            staged.add(start(perl.toString(), "-e", "$x = 'a' x 40_000_000; open(A, '<', '/dev/null');"
                    + " open(B, '<', '/dev/null'); open(C, '<', '/dev/null'); open(W, '>', $ARGV[0]) or die;"
                    + " until (-e $ARGV[1]) { select(undef, undef, undef, 0.05) } syswrite(W, 'w' x " + WRITTEN + ");"
                    + " sleep 600", disk.resolve("out" + i).toString(), go.toString()));
        }
        // The staged zombie: sh forks a child that ends once sh has become a sleep, which never reaps it (sh would
        // reap a child that ended before its next command: on a loaded machine there was then no zombie).
        Process zombieParent = start("sh", "-c", "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 600");

        // The NVML test double's GPU 0 holds 23,456 MiB (and a little more, which dcgm-exporter rounds away).
        var nvml = NvmlDouble.reset();
        NvmlDouble.ok(nvml.ndSetValue(0, "memory.used", 23_456L * (1 << 20) + 4096));
        AutoCloseable restoreNvml = NvmlDouble.use(NvmlDouble.library());
        try {
            // procscope serve, in this JVM (so that it loads the scripted double), on a port it picks itself.
            serve = InProcessServe.start("--no-doctor");
            int servePort = serve.port();
            assertEquals("ok\n", PrometheusServer.get("http://127.0.0.1:" + servePort + "/healthz"));

            // process-exporter, grouping the staged name as process-exporter users do.
            PrometheusServer.ProcessExporter pe = PrometheusServer.startProcessExporter(tmp,
                    "process_names:\n  - name: \"{{.Comm}}\"\n    comm:\n    - " + name + "\n",
                    "-children=false", "-threads=false");
            started.push(pe.process());
            int pePort = pe.port();

            // Prometheus with the README's scrape configuration, plus a job for process-exporter.
            String config = readmeScrapeConfig().replace("127.0.0.1:9464", "127.0.0.1:" + servePort)
                    .replace("scrape_interval: 15s", "scrape_interval: 1s")
                    + "  - job_name: process-exporter\n    scrape_interval: 1s\n    static_configs:\n"
                    + "      - targets: [\"127.0.0.1:" + pePort + "\"]\n";
            assertTrue(config.contains("127.0.0.1:" + servePort), config);
            prometheus = PrometheusServer.start(tmp, config);
            PrometheusServer prom = prometheus;

            String g = "groupname=\"" + name + "\"";
            assertEquals(STAGED, prom.query("namedprocess_namegroup_num_procs{job=\"procscope\"," + g + "}"));
            assertEquals(STAGED, prom.query("namedprocess_namegroup_num_procs{job=\"process-exporter\"," + g + "}"));
            double ours = prom.query("namedprocess_namegroup_memory_bytes{job=\"procscope\"," + g
                    + ",memtype=\"resident\"}");
            double theirs = prom.query("namedprocess_namegroup_memory_bytes{job=\"process-exporter\"," + g
                    + ",memtype=\"resident\"}");
            assertTrue(theirs > STAGED * 40e6, "each staged process holds 40 MB: " + theirs);
            assertEquals(theirs, ours, theirs * 0.05, "resident memory within 5% of process-exporter's");
            assertEquals(23_456, prom.query("DCGM_FI_DEV_FB_USED{job=\"procscope\",gpu=\"0\"}"));

            // Open descriptors: exactly the entries of the staged processes' /proc/PID/fd, for both exporters.
            long fds = 0;
            for (Process p : staged) {
                java.io.File dir = new java.io.File("/proc/" + p.pid() + "/fd");
                // the memory came first: the descriptors may still be opening
                io.github.procscope.testing.Spawned.await(java.time.Duration.ofSeconds(60),
                        "stdio, three /dev/null and the file: " + p.pid(), () -> dir.list() != null
                                && dir.list().length >= 7);
                fds += dir.list().length;
            }
            for (String job : List.of("procscope", "process-exporter")) {
                assertEquals(fds, prom.awaitValue("namedprocess_namegroup_open_filedesc{job=\"" + job + "\"," + g
                        + "}", fds, 0), job);
            }
            // Storage bytes: each process now writes WRITTEN bytes; both exporters count them, within 5%.
            Files.createFile(go);
            double expected = STAGED * (double) WRITTEN;
            double ourWrites = prom.awaitValue("namedprocess_namegroup_write_bytes_total{job=\"procscope\"," + g
                    + "}", expected, expected * 0.05);
            double theirWrites = prom.awaitValue("namedprocess_namegroup_write_bytes_total{job=\"process-exporter\","
                    + g + "}", expected, expected * 0.05);
            assertEquals(expected, ourWrites, expected * 0.05, "procscope's write bytes");
            assertEquals(expected, theirWrites, expected * 0.05, "process-exporter's write bytes");
            assertEquals(theirWrites, ourWrites, expected * 0.05, "write bytes within 5% of process-exporter's");
            double ourReads = prom.query("namedprocess_namegroup_read_bytes_total{job=\"procscope\"," + g + "}");
            double theirReads = prom.query("namedprocess_namegroup_read_bytes_total{job=\"process-exporter\"," + g
                    + "}");
            assertEquals(theirReads, ourReads, Math.max(theirReads * 0.05, 1 << 20), "read bytes");
            assertEquals(1, prom.query("procscope_zombies{job=\"procscope\",parent_pid=\"" + zombieParent.pid()
                    + "\"}"));
            // Prometheus keeps its connection to serve alive between scrapes: it dialled far fewer times than it
            // scraped (a scrape cut off by its 1 s timeout on a loaded machine costs a new connection).
            double scrapes = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (scrapes < 20 && System.nanoTime() < deadline) {
                Thread.sleep(500);
                scrapes = prom.query("count_over_time(up{job=\"procscope\"}[1h])");
            }
            Matcher dialled = Pattern.compile(
                    "(?m)^net_conntrack_dialer_conn_established_total\\{dialer_name=\"procscope\"} (\\S+)$")
                    .matcher(prom.api("/metrics"));
            assertTrue(dialled.find(), "Prometheus counts its connections per job");
            double connections = Double.parseDouble(dialled.group(1));
            System.out.printf("Prometheus: %.0f scrapes of serve over %.0f connections%n", scrapes, connections);
            assertTrue(scrapes >= 20 && connections >= 1 && connections <= scrapes / 2,
                    scrapes + " scrapes over " + connections + " connections");
            assertTrue(serve.err().isEmpty(), serve.err());
        } finally {
            if (serve != null) {
                serve.close();
                serve = null;
            }
            restoreNvml.close();
        }
        NvmlDouble.assertClosed();
        try (var files = Files.list(disk)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f);
            }
        }
        Files.delete(disk);
    }
}
