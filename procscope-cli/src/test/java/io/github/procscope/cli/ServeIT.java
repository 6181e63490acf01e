package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STAGED = 3;
    private static final int WRITTEN = 4_000_000;

    private final Deque<Process> started = new ArrayDeque<>();
    private Thread serve;

    @AfterEach
    void endEverythingStarted() throws Exception {
        if (serve != null) {
            serve.interrupt();
            serve.join(TimeUnit.SECONDS.toMillis(30));
        }
        while (!started.isEmpty()) {
            Process p = started.pop();
            p.destroy(); // SIGTERM to this pid
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private Process start(Path log, String... cmd) throws IOException {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
        b.redirectOutput(log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(log.toFile()));
        Process p = b.start();
        started.push(p);
        return p;
    }

    private static String which(String tool) throws Exception {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        for (String dir : List.of("/usr/bin", "/usr/sbin", "/bin")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return Path.of(dir, tool).toString();
            }
        }
        throw new AssertionError(tool + " is not installed: .ci/run installs the Debian packages prometheus and "
                + "prometheus-process-exporter (apt-get install prometheus prometheus-process-exporter)");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": HTTP " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private static void awaitHttp(String url, Process owner, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                get(url);
                return;
            } catch (IOException e) {
                if (!owner.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError(url + " never answered: " + e.getMessage()
                            + (log == null ? "" : "\n" + Files.readString(log)));
                }
                Thread.sleep(200);
            }
        }
    }

    /** @return the value of the query's single result, once Prometheus has one */
    private static double query(int prometheusPort, String promql) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = "";
        while (System.nanoTime() < deadline) {
            last = get("http://127.0.0.1:" + prometheusPort + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            JsonNode result = JSON.readTree(last).path("data").path("result");
            if (result.size() == 1) {
                return Double.parseDouble(result.get(0).path("value").get(1).asText());
            }
            if (result.size() > 1) {
                throw new AssertionError(promql + " has " + result.size() + " results: " + last);
            }
            Thread.sleep(500);
        }
        throw new AssertionError(promql + " found nothing within 60 s: " + last);
    }

    /**
     * @return the query's single value once it is within {@code tolerance} of {@code expected} (the scrapes may lag
     *         what the processes did); fails with the last value after 60 s
     */
    private static double awaitValue(int prometheusPort, String promql, double expected, double tolerance)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        double v = query(prometheusPort, promql);
        while (Math.abs(v - expected) > tolerance && System.nanoTime() < deadline) {
            Thread.sleep(500);
            v = query(prometheusPort, promql);
        }
        assertEquals(expected, v, tolerance, promql);
        return v;
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
        String prometheus = which("prometheus");
        String processExporter = which("prometheus-process-exporter");

        // The staged group: copies of perl under a name no other process has, each holding ~40 MB and three more
        // descriptors (/dev/null) and a file it writes WRITTEN bytes to once told (a file appears). The files are on
        // the build directory's file system: on a tmpfs nothing would reach storage and write_bytes would stay 0.
        String name = "psit" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Path perl = tmp.resolve(name);
        Files.copy(Path.of(which("perl")), perl);
        assertTrue(perl.toFile().setExecutable(true));
        Path disk = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "serve-it");
        Path go = disk.resolve("go");
        List<Process> staged = new java.util.ArrayList<>();
        for (int i = 0; i < STAGED; i++) {
            staged.add(start(null, perl.toString(), "-e", "$x = 'a' x 40_000_000; open(A, '<', '/dev/null');"
                    + " open(B, '<', '/dev/null'); open(C, '<', '/dev/null'); open(W, '>', $ARGV[0]) or die;"
                    + " until (-e $ARGV[1]) { select(undef, undef, undef, 0.05) } syswrite(W, 'w' x " + WRITTEN + ");"
                    + " sleep 600", disk.resolve("out" + i).toString(), go.toString()));
        }
        // The staged zombie: sh forks "sleep 0", then becomes a sleep that never reaps it.
        Process zombieParent = start(null, "sh", "-c", "sleep 0 & exec sleep 600");

        // The NVML test double's GPU 0 holds 23,456 MiB (and a little more, which dcgm-exporter rounds away).
        var nvml = NvmlDouble.reset();
        NvmlDouble.ok(nvml.ndSetValue(0, "memory.used", 23_456L * (1 << 20) + 4096));
        AutoCloseable restoreNvml = NvmlDouble.use(NvmlDouble.library());
        try {
            // procscope serve, in this JVM (so that it loads the scripted double), on a port it picks itself.
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
            int[] status = {-1};
            serve = new Thread(() -> status[0] = ProcscopeCli.run(o, e, "serve", "--listen", "127.0.0.1:0",
                    "--no-doctor"), "procscope-serve");
            serve.start();
            int servePort = servedPort(out, err);
            assertEquals("ok\n", get("http://127.0.0.1:" + servePort + "/healthz"));

            // process-exporter, grouping the staged name as process-exporter users do.
            int pePort = freePort();
            Path peConfig = tmp.resolve("process-exporter.yml");
            Files.writeString(peConfig, "process_names:\n  - name: \"{{.Comm}}\"\n    comm:\n    - " + name + "\n");
            Path peLog = tmp.resolve("process-exporter.log");
            Process pe = start(peLog, processExporter, "-config.path", peConfig.toString(),
                    "-web.listen-address", "127.0.0.1:" + pePort, "-children=false", "-threads=false");
            awaitHttp("http://127.0.0.1:" + pePort + "/metrics", pe, peLog);

            // Prometheus with the README's scrape configuration, plus a job for process-exporter.
            int promPort = freePort();
            String config = readmeScrapeConfig().replace("127.0.0.1:9464", "127.0.0.1:" + servePort)
                    .replace("scrape_interval: 15s", "scrape_interval: 1s")
                    + "  - job_name: process-exporter\n    scrape_interval: 1s\n    static_configs:\n"
                    + "      - targets: [\"127.0.0.1:" + pePort + "\"]\n";
            assertTrue(config.contains("127.0.0.1:" + servePort), config);
            Path promConfig = tmp.resolve("prometheus.yml");
            Files.writeString(promConfig, config);
            Path promLog = tmp.resolve("prometheus.log");
            Process prom = start(promLog, prometheus, "--config.file=" + promConfig,
                    "--storage.tsdb.path=" + tmp.resolve("data"), "--web.listen-address=127.0.0.1:" + promPort);
            awaitHttp("http://127.0.0.1:" + promPort + "/-/ready", prom, promLog);

            String g = "groupname=\"" + name + "\"";
            assertEquals(STAGED, query(promPort, "namedprocess_namegroup_num_procs{job=\"procscope\"," + g + "}"));
            assertEquals(STAGED, query(promPort, "namedprocess_namegroup_num_procs{job=\"process-exporter\"," + g + "}"));
            double ours = query(promPort, "namedprocess_namegroup_memory_bytes{job=\"procscope\"," + g
                    + ",memtype=\"resident\"}");
            double theirs = query(promPort, "namedprocess_namegroup_memory_bytes{job=\"process-exporter\"," + g
                    + ",memtype=\"resident\"}");
            assertTrue(theirs > STAGED * 40e6, "each staged process holds 40 MB: " + theirs);
            assertEquals(theirs, ours, theirs * 0.05, "resident memory within 5% of process-exporter's");
            assertEquals(23_456, query(promPort, "DCGM_FI_DEV_FB_USED{job=\"procscope\",gpu=\"0\"}"));

            // Open descriptors: exactly the entries of the staged processes' /proc/PID/fd, for both exporters.
            long fds = 0;
            for (Process p : staged) {
                String[] entries = new java.io.File("/proc/" + p.pid() + "/fd").list();
                assertTrue(entries != null && entries.length >= 7, "stdio, three /dev/null and the file: " + p.pid());
                fds += entries.length;
            }
            for (String job : List.of("procscope", "process-exporter")) {
                assertEquals(fds, awaitValue(promPort, "namedprocess_namegroup_open_filedesc{job=\"" + job + "\"," + g
                        + "}", fds, 0), job);
            }
            // Storage bytes: each process now writes WRITTEN bytes; both exporters count them, within 5%.
            Files.createFile(go);
            double expected = STAGED * (double) WRITTEN;
            double ourWrites = awaitValue(promPort, "namedprocess_namegroup_write_bytes_total{job=\"procscope\"," + g
                    + "}", expected, expected * 0.05);
            double theirWrites = awaitValue(promPort, "namedprocess_namegroup_write_bytes_total{job=\"process-exporter\","
                    + g + "}", expected, expected * 0.05);
            assertEquals(theirWrites, ourWrites, expected * 0.05, "write bytes within 5% of process-exporter's");
            double ourReads = query(promPort, "namedprocess_namegroup_read_bytes_total{job=\"procscope\"," + g + "}");
            double theirReads = query(promPort, "namedprocess_namegroup_read_bytes_total{job=\"process-exporter\"," + g
                    + "}");
            assertEquals(theirReads, ourReads, Math.max(theirReads * 0.05, 1 << 20), "read bytes");
            assertEquals(1, query(promPort, "procscope_zombies{job=\"procscope\",parent_pid=\"" + zombieParent.pid()
                    + "\"}"));
            // Prometheus keeps its connection to serve alive between scrapes: it dialled far fewer times than it
            // scraped (a scrape cut off by its 1 s timeout on a loaded machine costs a new connection).
            double scrapes = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (scrapes < 20 && System.nanoTime() < deadline) {
                Thread.sleep(500);
                scrapes = query(promPort, "count_over_time(up{job=\"procscope\"}[1h])");
            }
            Matcher dialled = Pattern.compile(
                    "(?m)^net_conntrack_dialer_conn_established_total\\{dialer_name=\"procscope\"} (\\S+)$")
                    .matcher(get("http://127.0.0.1:" + promPort + "/metrics"));
            assertTrue(dialled.find(), "Prometheus counts its connections per job");
            double connections = Double.parseDouble(dialled.group(1));
            System.out.printf("Prometheus: %.0f scrapes of serve over %.0f connections%n", scrapes, connections);
            assertTrue(scrapes >= 20 && connections >= 1 && connections <= scrapes / 2,
                    scrapes + " scrapes over " + connections + " connections");
            assertTrue(err.toString(StandardCharsets.UTF_8).isEmpty(), err.toString(StandardCharsets.UTF_8));
        } finally {
            if (serve != null) {
                serve.interrupt();
                serve.join(TimeUnit.SECONDS.toMillis(30));
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

    private int servedPort(ByteArrayOutputStream out, ByteArrayOutputStream err) throws InterruptedException {
        Pattern p = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/metrics");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && serve.isAlive()) {
            Matcher m = p.matcher(out.toString(StandardCharsets.UTF_8));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("procscope serve did not start: " + out.toString(StandardCharsets.UTF_8)
                + err.toString(StandardCharsets.UTF_8));
    }
}
