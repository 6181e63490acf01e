package io.github.procscope.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;

/**
 * An HTTP endpoint for Prometheus: {@code /metrics} answers in the Prometheus text format, or in OpenMetrics when
 * the scraper asks for it ({@code Accept: application/openmetrics-text}), gzip-compressed when the scraper accepts
 * it; {@code /healthz} answers {@code ok}. Built on the JDK's HTTP server and the Prometheus Java client's exposition
 * formats (see {@link ScrapeWriter} for the one place the text differs from the client's: dcgm-exporter's counters
 * without {@code _total}). Requests are answered on two daemon threads. Close it to stop listening.
 */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;
    private final InetSocketAddress address;

    private MetricsServer(HttpServer server, ExecutorService executor, InetSocketAddress address) {
        this.server = server;
        this.executor = executor;
        this.address = address;
    }

    /**
     * Starts serving a collector on its own registry.
     *
     * @param listen    where to listen; port 0 picks a free port
     * @param collector what to serve
     * @return the running server
     * @throws UncheckedIOException naming the address when it cannot be bound (in use, not local, no permission)
     */
    public static MetricsServer start(InetSocketAddress listen, MultiCollector collector) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(Objects.requireNonNull(collector, "collector"));
        return start(listen, registry);
    }

    /**
     * Starts serving a registry.
     *
     * @param listen   where to listen; port 0 picks a free port
     * @param registry what to serve
     * @return the running server
     * @throws UncheckedIOException naming the address when it cannot be bound (in use, not local, no permission)
     */
    public static MetricsServer start(InetSocketAddress listen, PrometheusRegistry registry) {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(registry, "registry");
        if (listen.isUnresolved()) {
            throw new IllegalArgumentException("cannot listen on " + listen.getHostString()
                    + ": the host name does not resolve");
        }
        HttpServer server;
        try {
            server = HttpServer.create(listen, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + listen.getAddress().getHostAddress() + ":"
                    + listen.getPort() + ": " + e.getMessage(), e);
        }
        ScrapeWriter writer = new ScrapeWriter();
        server.createContext("/", exchange -> handle(exchange, registry, writer));
        // Two threads: a client that sends its request slowly cannot hold up the scraper (scrapes themselves are
        // serialized by the collector).
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "procscope-metrics-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new MetricsServer(server, executor, new InetSocketAddress(listen.getAddress(),
                server.getAddress().getPort()));
    }

    /** {@code /metrics}: the scrape; {@code /healthz}: ok; anything else: not found. */
    private static void handle(HttpExchange exchange, PrometheusRegistry registry, ScrapeWriter writer)
            throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if ("/metrics".equals(path)) {
                metrics(exchange, registry, writer);
                return;
            }
            boolean health = "/healthz".equals(path);
            answer(exchange, health ? 200 : 404, "text/plain; charset=utf-8",
                    (health ? "ok\n" : "not found: try /metrics or /healthz\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void metrics(HttpExchange exchange, PrometheusRegistry registry, ScrapeWriter writer)
            throws IOException {
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        MetricSnapshots snapshots;
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        try {
            snapshots = registry.scrape();
            writer.write(accept, snapshots, body);
        } catch (RuntimeException e) {
            answer(exchange, 500, "text/plain; charset=utf-8",
                    ("scrape failed: " + e + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        String encoding = exchange.getRequestHeaders().getFirst("Accept-Encoding");
        byte[] bytes = body.toByteArray();
        if (encoding != null && encoding.contains("gzip")) {
            ByteArrayOutputStream zipped = new ByteArrayOutputStream(bytes.length / 4 + 64);
            try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
                gz.write(bytes);
            }
            bytes = zipped.toByteArray();
            exchange.getResponseHeaders().set("Content-Encoding", "gzip");
        }
        answer(exchange, 200, writer.contentType(accept), bytes);
    }

    private static void answer(HttpExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** @return the address it listens on, with the port it got */
    public InetSocketAddress address() {
        return address;
    }

    /** Stops listening. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
