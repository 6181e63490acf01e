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
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parity with Debian's {@code prometheus-process-exporter} (0.7.10) through a real Prometheus that scrapes both it
 * and {@code procscope serve --threads --gather-smaps} every second: every family process-exporter writes is there
 * under the same name with the same label names, and for a staged group (processes this test starts, each with
 * worker threads of a known name that have slept a known number of times) the thread counts, context switches,
 * swapped memory and descriptor ratio equal process-exporter's and what the test reads from {@code /proc} itself;
 * proportional resident memory is within 5%. Then a thread whose name holds a newline and bytes that are not UTF-8
 * is reported by serve, escaped, and Prometheus keeps scraping it. Every process the test starts is ended by its pid.
 */
class ServeParityIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STAGED = 2;
    private static final int WORKERS = 2;
    private static final String WORKER = "pxworker";

    /** Every family process-exporter writes with -threads and -gather-smaps, and the label names of its series. */
    private static final Map<String, List<String>> FAMILIES = Map.ofEntries(
            Map.entry("namedprocess_namegroup_context_switches_total", List.of("ctxswitchtype", "groupname")),
            Map.entry("namedprocess_namegroup_cpu_seconds_total", List.of("groupname", "mode")),
            Map.entry("namedprocess_namegroup_major_page_faults_total", List.of("groupname")),
            Map.entry("namedprocess_namegroup_minor_page_faults_total", List.of("groupname")),
            Map.entry("namedprocess_namegroup_memory_bytes", List.of("groupname", "memtype")),
            Map.entry("namedprocess_namegroup_num_procs", List.of("groupname")),
            Map.entry("namedprocess_namegroup_num_threads", List.of("groupname")),
            Map.entry("namedprocess_namegroup_oldest_start_time_seconds", List.of("groupname")),
            Map.entry("namedprocess_namegroup_open_filedesc", List.of("groupname")),
            Map.entry("namedprocess_namegroup_read_bytes_total", List.of("groupname")),
            Map.entry("namedprocess_namegroup_write_bytes_total", List.of("groupname")),
            Map.entry("namedprocess_namegroup_states", List.of("groupname", "state")),
            Map.entry("namedprocess_namegroup_worst_fd_ratio", List.of("groupname")),
            Map.entry("namedprocess_namegroup_threads_wchan", List.of("groupname", "wchan")),
            Map.entry("namedprocess_namegroup_thread_count", List.of("groupname", "threadname")),
            Map.entry("namedprocess_namegroup_thread_cpu_seconds_total", List.of("groupname", "mode", "threadname")),
            Map.entry("namedprocess_namegroup_thread_io_bytes_total", List.of("groupname", "iomode", "threadname")),
            Map.entry("namedprocess_namegroup_thread_major_page_faults_total", List.of("groupname", "threadname")),
            Map.entry("namedprocess_namegroup_thread_minor_page_faults_total", List.of("groupname", "threadname")),
            Map.entry("namedprocess_namegroup_thread_context_switches_total",
                    List.of("ctxswitchtype", "groupname", "threadname")),
            Map.entry("namedprocess_scrape_errors", List.of()),
            Map.entry("namedprocess_scrape_partial_errors", List.of()),
            Map.entry("namedprocess_scrape_procread_errors", List.of()));

    private final Deque<Process> started = new ArrayDeque<>();
    private Thread serve;

    @AfterEach
    void endEverythingStarted() throws Exception {
        if (serve != null) {
            serve.interrupt();
            serve.join(TimeUnit.SECONDS.toMillis(30));
        }
        while (!started.isEmpty()) {
            end(started.pop());
        }
    }

    private static void end(Process p) throws InterruptedException {
        p.destroy(); // SIGTERM to this pid
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process start(Path log, String... cmd) throws IOException {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
        b.redirectOutput(log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(log.toFile()));
        Process p = b.start();
        started.push(p);
        return p;
    }

    private static String which(String tool) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/sbin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(p)) {
                return p.toString();
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
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(java.time.Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
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
                    throw new AssertionError(url + " never answered: " + e.getMessage() + "\n" + Files.readString(log));
                }
                Thread.sleep(200);
            }
        }
    }

    /** @return the results of an instant query (possibly none) */
    private static JsonNode results(int port, String promql) throws Exception {
        String body = get("http://127.0.0.1:" + port + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        return JSON.readTree(body).path("data").path("result");
    }

    /** @return the value of the query's single result, once Prometheus has one */
    private static double query(int port, String promql) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        JsonNode r = results(port, promql);
        while (r.size() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
            r = results(port, promql);
        }
        assertEquals(1, r.size(), promql + ": " + r);
        return Double.parseDouble(r.get(0).path("value").get(1).asText());
    }

    /**
     * @return the value both jobs give the series once they agree with {@code expected} (the two exporters are
     *         scraped at different moments; the staged processes sleep, so their values stop moving); fails with
     *         both values after 90 s
     */
    private static double bothEqual(int port, String series, double expected, double tolerance) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String ours = withJob(series, "procscope");
        String theirs = withJob(series, "process-exporter");
        double a = query(port, ours);
        double b = query(port, theirs);
        while ((Math.abs(a - expected) > tolerance || Math.abs(b - expected) > tolerance)
                && System.nanoTime() < deadline) {
            Thread.sleep(500);
            a = query(port, ours);
            b = query(port, theirs);
        }
        assertEquals(expected, b, tolerance, "process-exporter: " + theirs);
        assertEquals(expected, a, tolerance, "procscope: " + ours);
        return a;
    }

    /** @return the query's single value once it is {@code expected}, or the last one after 90 s */
    private static double awaitValue(int port, String promql, double expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        double v = query(port, promql);
        while (v != expected && System.nanoTime() < deadline) {
            Thread.sleep(500);
            v = query(port, promql);
        }
        return v;
    }

    private static String withJob(String series, String job) {
        int brace = series.indexOf('{');
        return brace < 0 ? series + "{job=\"" + job + "\"}"
                : series.substring(0, brace + 1) + "job=\"" + job + "\"," + series.substring(brace + 1);
    }

    /** @return the label names of a family's series under a job, without the target's own */
    private static TreeSet<String> labelNames(int port, String family, String job) throws Exception {
        String body = get("http://127.0.0.1:" + port + "/api/v1/series?match[]="
                + URLEncoder.encode(family + "{job=\"" + job + "\"}", StandardCharsets.UTF_8));
        TreeSet<String> names = new TreeSet<>();
        for (JsonNode s : JSON.readTree(body).path("data")) {
            s.fieldNames().forEachRemaining(names::add);
        }
        names.removeAll(List.of("__name__", "job", "instance"));
        return names;
    }

    /** Sums a field of /proc/PID/task/TID/status over the staged processes' threads of one name (null: all). */
    private static long sumThreadStatus(List<Process> procs, String threadName, String key) throws IOException {
        long sum = 0;
        for (Process p : procs) {
            try (var tasks = Files.list(Path.of("/proc/" + p.pid() + "/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    if (threadName != null && !Files.readString(t.resolve("comm")).strip().equals(threadName)) {
                        continue;
                    }
                    sum += statusValue(t.resolve("status"), key);
                }
            }
        }
        return sum;
    }

    /** The workers' and the processes' context-switch series of one type. */
    private static List<String> contextSwitchSeries(String type, String g) {
        return List.of("namedprocess_namegroup_thread_context_switches_total{ctxswitchtype=\"" + type + "\"," + g
                + ",threadname=\"" + WORKER + "\"}", "namedprocess_namegroup_context_switches_total{ctxswitchtype=\""
                + type + "\"," + g + "}");
    }

    /** @return whether every worker thread of the staged processes sleeps in that kernel function */
    private static boolean workersIn(List<Process> procs, String wchan) throws IOException {
        for (Process p : procs) {
            try (var tasks = Files.list(Path.of("/proc/" + p.pid() + "/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    if (Files.readString(t.resolve("comm")).strip().equals(WORKER)
                            && !Files.readString(t.resolve("wchan")).strip().equals(wchan)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static long statusValue(Path status, String key) throws IOException {
        Matcher m = Pattern.compile("(?m)^" + key + ":\\s+(\\d+)").matcher(Files.readString(status));
        assertTrue(m.find(), key + " in " + status);
        return Long.parseLong(m.group(1));
    }

    @Test
    void processExporterFamiliesAndTheStagedGroupsValuesMatchThroughPrometheus(@TempDir Path tmp) throws Exception {
        String prometheus = which("prometheus");
        String processExporter = which("prometheus-process-exporter");

        // The staged group: copies of perl under a name no other process has; each starts WORKERS threads that
        // name themselves WORKER and block opening a FIFO for reading (no CPU, no context switch) until the test
        // opens it for writing; then each sleeps 25 times for 10 ms (25 voluntary context switches or more), leaves
        // a file saying so and waits for good. The main thread waits until the workers are named, writes a file,
        // and sleeps.
        String name = "pxit" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String hostile = "hx" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30), 36);
        Path perl = tmp.resolve(name);
        Files.copy(Path.of(which("perl")), perl);
        assertTrue(perl.toFile().setExecutable(true));
        String script = "use threads; use threads::shared; my $named :shared = 0; my @t = map { my $n = $_;"
                + " threads->create(sub { open(my $c, '>', '/proc/thread-self/comm') or die; print $c '" + WORKER
                + "'; close($c); { lock($named); $named++; } open(my $f, '<', $ARGV[1]) or die; close($f);"
                + " select(undef, undef, undef, 0.01) for 1..25; open(my $d, '>', $ARGV[2] . $n) or die; close($d);"
                + " sleep 600; }) } 1.." + WORKERS + ";"
                + " until ($named == " + WORKERS + ") { select(undef, undef, undef, 0.02) }"
                + " open(my $r, '>', $ARGV[0]) or die; close($r); sleep 600;";
        List<Process> staged = new ArrayList<>();
        List<Path> fifos = new ArrayList<>();
        for (int i = 0; i < STAGED; i++) {
            Path ready = tmp.resolve("ready" + i);
            Path fifo = tmp.resolve("go" + i);
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
            fifos.add(fifo);
            staged.add(start(null, perl.toString(), "-e", script, ready.toString(), fifo.toString(),
                    tmp.resolve("done" + i + "-").toString()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(ready) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.exists(ready), "staged process " + i + " never started its workers");
        }

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        serve = new Thread(() -> ProcscopeCli.run(o, e, "serve", "--listen", "127.0.0.1:0", "--no-doctor",
                "--no-gpu", "--threads", "--gather-smaps", "--group-by", name + "=^" + name + "$",
                "--group-by", hostile + "=^" + hostile + "$",
                "--deleted-files-every", "1h"), "procscope-serve");
        serve.start();
        int servePort = servedPort(out, err);

        int pePort = freePort();
        Path peConfig = tmp.resolve("process-exporter.yml");
        Files.writeString(peConfig, "process_names:\n  - name: \"{{.Comm}}\"\n    comm:\n    - " + name + "\n");
        Path peLog = tmp.resolve("process-exporter.log");
        Process pe = start(peLog, processExporter, "-config.path", peConfig.toString(),
                "-web.listen-address", "127.0.0.1:" + pePort, "-children=false", "-threads=true",
                "-gather-smaps=true");
        awaitHttp("http://127.0.0.1:" + pePort + "/metrics", pe, peLog);

        int promPort = freePort();
        Path promConfig = tmp.resolve("prometheus.yml");
        Files.writeString(promConfig, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                + "  - job_name: procscope\n    static_configs:\n      - targets: [\"127.0.0.1:" + servePort + "\"]\n"
                + "  - job_name: process-exporter\n    static_configs:\n"
                + "      - targets: [\"127.0.0.1:" + pePort + "\"]\n");
        Path promLog = tmp.resolve("prometheus.log");
        Process prom = start(promLog, prometheus, "--config.file=" + promConfig,
                "--storage.tsdb.path=" + tmp.resolve("data"), "--web.listen-address=127.0.0.1:" + promPort);
        awaitHttp("http://127.0.0.1:" + promPort + "/-/ready", prom, promLog);

        String g = "groupname=\"" + name + "\"";
        assertEquals(STAGED, bothEqual(promPort, "namedprocess_namegroup_num_procs{" + g + "}", STAGED, 0));

        // Every family, under both jobs, with the same label names.
        Map<String, String> mismatches = new TreeMap<>();
        for (Map.Entry<String, List<String>> f : FAMILIES.entrySet()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            TreeSet<String> ours = labelNames(promPort, f.getKey(), "procscope");
            TreeSet<String> theirs = labelNames(promPort, f.getKey(), "process-exporter");
            TreeSet<String> expected = new TreeSet<>(f.getValue());
            while ((!ours.equals(expected) || !theirs.equals(expected)) && System.nanoTime() < deadline) {
                Thread.sleep(500);
                ours = labelNames(promPort, f.getKey(), "procscope");
                theirs = labelNames(promPort, f.getKey(), "process-exporter");
            }
            if (!ours.equals(expected) || !theirs.equals(expected)) {
                mismatches.put(f.getKey(), "procscope " + ours + ", process-exporter " + theirs);
            }
        }
        assertTrue(mismatches.isEmpty(), "families missing or labelled otherwise: " + mismatches);

        // Threads: exactly the staged ones, by name.
        int threads = STAGED * (WORKERS + 1);
        bothEqual(promPort, "namedprocess_namegroup_num_threads{" + g + "}", threads, 0);
        bothEqual(promPort, "namedprocess_namegroup_thread_count{" + g + ",threadname=\"" + WORKER + "\"}",
                STAGED * WORKERS, 0);
        bothEqual(promPort, "namedprocess_namegroup_thread_count{" + g + ",threadname=\"" + name + "\"}", STAGED, 0);
        // Every staged thread sleeps in the kernel, so each has a wchan: serve counts each thread once;
        // process-exporter counts a multi-threaded process's own wchan (its main thread's) a second time.
        String wchans = "sum(namedprocess_namegroup_threads_wchan{" + g + "})";
        assertEquals(threads, awaitValue(promPort, withJob(wchans, "procscope"), threads));
        assertEquals(threads + STAGED, awaitValue(promPort, withJob(wchans, "process-exporter"), threads + STAGED));

        // Context switches: process-exporter counts what a process it found at its start does from then on, serve
        // all a process has done; both count every switch made after both have seen the group. The workers now
        // wake and sleep 25 times each; the increase of their own counters and of their processes' (the sum of
        // their threads': /proc/PID/status has the main thread's only) is, in both exporters, exactly what
        // /proc/PID/task/TID/status says it is.
        Map<String, double[]> before = new TreeMap<>();
        Map<String, Long> procBefore = new TreeMap<>();
        for (String type : List.of("voluntary", "nonvoluntary")) {
            for (String series : contextSwitchSeries(type, g)) {
                before.put(series, new double[] {query(promPort, withJob(series, "procscope")),
                        query(promPort, withJob(series, "process-exporter"))});
            }
            procBefore.put(type + "/threads", sumThreadStatus(staged, WORKER, type + "_ctxt_switches"));
            procBefore.put(type + "/processes", sumThreadStatus(staged, null, type + "_ctxt_switches"));
        }
        for (Path fifo : fifos) {
            try (var w = Files.newOutputStream(fifo)) {
                w.flush();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < STAGED; i++) {
            for (int n = 1; n <= WORKERS; n++) {
                Path done = tmp.resolve("done" + i + "-" + n);
                while (!Files.exists(done) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(Files.exists(done), "worker " + n + " of staged process " + i + " never finished");
            }
        }
        // Each worker's last switch: its entry into sleep(600), where it now stays.
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!workersIn(staged, "hrtimer_nanosleep") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(workersIn(staged, "hrtimer_nanosleep"), "the workers never went to sleep for good");
        for (String type : List.of("voluntary", "nonvoluntary")) {
            long threadsUp = sumThreadStatus(staged, WORKER, type + "_ctxt_switches") - procBefore.get(type + "/threads");
            long procsUp = sumThreadStatus(staged, null, type + "_ctxt_switches") - procBefore.get(type + "/processes");
            if (type.equals("voluntary")) {
                assertTrue(threadsUp >= STAGED * WORKERS * 25L, "each worker slept 25 times: " + threadsUp);
            }
            List<String> series = contextSwitchSeries(type, g);
            long[] expected = {threadsUp, procsUp};
            for (int k = 0; k < 2; k++) {
                double[] b0 = before.get(series.get(k));
                assertEquals(b0[0] + expected[k], awaitValue(promPort, withJob(series.get(k), "procscope"),
                        b0[0] + expected[k]), "procscope: " + series.get(k));
                assertEquals(b0[1] + expected[k], awaitValue(promPort, withJob(series.get(k), "process-exporter"),
                        b0[1] + expected[k]), "process-exporter: " + series.get(k));
            }
        }

        // Swapped memory: VmSwap summed (0 where the machine has no swap, for both), and proportional memory.
        long swap = 0;
        for (Process p : staged) {
            swap += statusValue(Path.of("/proc/" + p.pid() + "/status"), "VmSwap") * 1024;
        }
        bothEqual(promPort, "namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"swapped\"}", swap, 0);
        double pss = query(promPort, withJob("namedprocess_namegroup_memory_bytes{" + g
                + ",memtype=\"proportionalResident\"}", "process-exporter"));
        assertTrue(pss > 0, "proportional resident memory " + pss);
        bothEqual(promPort, "namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"proportionalResident\"}", pss,
                pss * 0.05);
        bothEqual(promPort, "namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"proportionalSwapped\"}", 0, 0);

        // The descriptor ratio: the largest of open descriptors over the soft limit.
        double worst = 0;
        for (Process p : staged) {
            String[] fds = new java.io.File("/proc/" + p.pid() + "/fd").list();
            assertTrue(fds != null, "fd of " + p.pid());
            Matcher m = Pattern.compile("(?m)^Max open files\\s+(\\d+)").matcher(
                    Files.readString(Path.of("/proc/" + p.pid() + "/limits")));
            assertTrue(m.find());
            worst = Math.max(worst, fds.length / (double) Long.parseLong(m.group(1)));
        }
        bothEqual(promPort, "namedprocess_namegroup_worst_fd_ratio{" + g + "}", worst, 1e-9);
        assertEquals(0, query(promPort, "namedprocess_scrape_errors{job=\"procscope\"}"));

        // A thread with a newline and bytes that are not UTF-8 in its name: process-exporter stops here (it
        // panics on such names), serve escapes it and Prometheus keeps scraping serve.
        end(pe);
        started.remove(pe);
        Path hostilePerl = tmp.resolve(hostile);
        Files.copy(perl, hostilePerl);
        Path ready = tmp.resolve("hostile-ready");
        start(null, hostilePerl.toString(), "-e", "use threads; threads->create(sub { open(my $c, '>',"
                + " '/proc/thread-self/comm') or die; binmode($c); print $c \"a\\nb\\xff\\xfez\"; close($c);"
                + " sleep 600 }); select(undef, undef, undef, 0.2); open(my $r, '>', $ARGV[0]) or die; close($r);"
                + " sleep 600;", ready.toString());
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(ready) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(ready), "the hostile process never named its thread");
        assertEquals(1.0, awaitUp(promPort, "groupname=\"" + hostile + "\",threadname=~\"a\\nb.*\""),
                "Prometheus took serve's scrape with the hostile thread name");
        String text = get("http://127.0.0.1:" + servePort + "/metrics");
        // The newline escaped as \n, each byte that is not UTF-8 replaced by U+FFFD.
        assertTrue(text.contains("threadname=\"a\\nb\uFFFD\uFFFDz\""), text);
        for (String line : text.split("\n")) {
            assertTrue(line.isEmpty() || line.startsWith("#") || line.matches("^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{.*})? \\S+$"),
                    "an exposition line that is not one sample: " + line);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).isEmpty(), err.toString(StandardCharsets.UTF_8));
    }

    /** @return the thread count Prometheus has for the hostile name, once it has scraped the restarted serve */
    private static double awaitUp(int port, String matcher) throws Exception {
        return query(port, "namedprocess_namegroup_thread_count{job=\"procscope\"," + matcher + "}");
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
