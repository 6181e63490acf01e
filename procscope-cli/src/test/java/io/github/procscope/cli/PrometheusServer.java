package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A real Prometheus server (Debian's {@code prometheus}) for one test: started on a free loopback port with the
 * test's configuration and its own storage directory, asked through its HTTP API, and ended by its pid in
 * {@link #close()}. Also the pieces the Prometheus-backed tests share: finding a tool on the path, a free port, an
 * HTTP GET, waiting for an endpoint, and starting Debian's {@code prometheus-process-exporter}.
 */
final class PrometheusServer implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long a query waits for Prometheus to have a result (a loaded machine scrapes late). */
    static final Duration QUERY_DEADLINE = Duration.ofSeconds(90);

    private final Process process;
    private final int port;
    private final Path log;

    private PrometheusServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts Prometheus with a configuration and waits until it is ready.
     *
     * @param dir    a directory of the test's: the configuration, the log and the storage go there
     * @param config the configuration (YAML)
     * @return the running server
     */
    static PrometheusServer start(Path dir, String config) throws Exception {
        String prometheus = which("prometheus");
        Path promConfig = dir.resolve("prometheus.yml");
        Files.writeString(promConfig, config);
        Path promLog = dir.resolve("prometheus.log");
        int port = freePort();
        Process p = new ProcessBuilder(prometheus, "--config.file=" + promConfig,
                "--storage.tsdb.path=" + dir.resolve("prometheus-data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(promLog.toFile()).start();
        PrometheusServer server = new PrometheusServer(p, port, promLog);
        try {
            awaitHttp("http://127.0.0.1:" + port + "/-/ready", p, promLog);
        } catch (Throwable t) {
            server.close();
            throw t;
        }
        return server;
    }

    /** A running {@code prometheus-process-exporter}, the loopback port it listens on, and its log. */
    record ProcessExporter(Process process, int port, Path log) {
        /** @return the end of its log, for a failure's message */
        String logTail() throws IOException {
            String text = Files.readString(log);
            return text.length() <= 4000 ? text : "…" + text.substring(text.length() - 4000);
        }
    }

    /**
     * Starts {@code prometheus-process-exporter} on a free loopback port and waits until it answers.
     *
     * @param dir    where its configuration and log go
     * @param config its configuration (YAML, {@code process_names: …})
     * @param flags  its other flags ({@code -children=false}, {@code -threads=true}, …)
     * @return the exporter; the caller ends its process by its pid ({@link #end(Process)})
     */
    static ProcessExporter startProcessExporter(Path dir, String config, String... flags) throws Exception {
        String exporter = which("prometheus-process-exporter");
        Path peConfig = dir.resolve("process-exporter.yml");
        Files.writeString(peConfig, config);
        Path peLog = dir.resolve("process-exporter.log");
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(exporter, "-config.path", peConfig.toString(),
                "-web.listen-address", "127.0.0.1:" + port));
        cmd.addAll(List.of(flags));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(peLog.toFile()).start();
        try {
            awaitHttp("http://127.0.0.1:" + port + "/metrics", p, peLog);
        } catch (Throwable t) {
            end(p);
            throw t;
        }
        return new ProcessExporter(p, port, peLog);
    }

    /** @return the port Prometheus listens on (loopback) */
    int port() {
        return port;
    }

    /** @return its pid */
    long pid() {
        return process.pid();
    }

    /** @return what it has written to its log so far */
    String log() throws IOException {
        return Files.readString(log);
    }

    /**
     * @param promql an instant query
     * @return its results now (possibly none); fails when Prometheus refuses the query
     */
    JsonNode results(String promql) throws Exception {
        JsonNode answer = JSON.readTree(get(url("/api/v1/query?query=" + URLEncoder.encode(promql,
                StandardCharsets.UTF_8))));
        assertEquals("success", answer.path("status").asText(), promql + ": " + answer);
        return answer.path("data").path("result");
    }

    /**
     * @param promql an instant query
     * @return the value of its single result, once Prometheus has one; fails after {@link #QUERY_DEADLINE}, or at
     *         once when it has several
     */
    double query(String promql) throws Exception {
        long deadline = System.nanoTime() + QUERY_DEADLINE.toNanos();
        JsonNode r = results(promql);
        while (r.size() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
            r = results(promql);
        }
        assertEquals(1, r.size(), promql + ": " + r);
        return Double.parseDouble(r.get(0).path("value").get(1).asText());
    }

    /**
     * @return the query's single value once it is within {@code tolerance} of {@code expected} (the scrapes may lag
     *         what the processes did), or the last value after {@link #QUERY_DEADLINE}; the caller asserts
     */
    double awaitValue(String promql, double expected, double tolerance) throws Exception {
        long deadline = System.nanoTime() + QUERY_DEADLINE.toNanos();
        double v = query(promql);
        while (Math.abs(v - expected) > tolerance && System.nanoTime() < deadline) {
            Thread.sleep(500);
            v = query(promql);
        }
        return v;
    }

    /** @return the answer to a GET of a path of Prometheus's HTTP API (or its own {@code /metrics}) */
    String api(String pathAndQuery) throws Exception {
        return get(url(pathAndQuery));
    }

    private String url(String pathAndQuery) {
        return "http://127.0.0.1:" + port + pathAndQuery;
    }

    /** Ends Prometheus by its pid: TERM, then KILL after 20 s (at once if this thread is interrupted). */
    @Override
    public void close() {
        try {
            end(process);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Ends a process the test started by its pid: TERM, then KILL after 20 s. */
    static void end(Process p) throws InterruptedException {
        p.destroy(); // SIGTERM to this pid
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** @return the path of an installed tool; fails naming the Debian packages when it is missing */
    static String which(String tool) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/sbin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new AssertionError(tool + " is not installed: .ci/run installs the Debian packages prometheus and "
                + "prometheus-process-exporter (apt-get install prometheus prometheus-process-exporter)");
    }

    /** @return a loopback port that was free a moment ago */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** @return the body of a GET answered 200; an {@link IOException} otherwise */
    static String get(String url) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": HTTP " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    /** Waits up to 60 s for a URL to answer 200, failing early (with the log) when its owner exits. */
    static void awaitHttp(String url, Process owner, Path log) throws Exception {
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
}
