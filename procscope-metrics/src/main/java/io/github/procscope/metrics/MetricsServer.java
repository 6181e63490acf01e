package io.github.procscope.metrics;

import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * An HTTP endpoint for Prometheus: {@code /metrics} answers in the Prometheus text format, or in OpenMetrics when
 * the scraper asks for it ({@code Accept: application/openmetrics-text}); {@code /healthz} answers {@code ok}.
 * Built on the Prometheus Java client's HTTP server. Close it to stop listening.
 */
public final class MetricsServer implements AutoCloseable {
    private final HTTPServer server;
    private final InetSocketAddress address;

    private MetricsServer(HTTPServer server, InetSocketAddress address) {
        this.server = server;
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
        try {
            HTTPServer server = HTTPServer.builder()
                    .inetAddress(listen.getAddress())
                    .port(listen.getPort())
                    .registry(registry)
                    .registerHealthHandler(false)
                    .defaultHandler(MetricsServer::other)
                    .buildAndStart();
            return new MetricsServer(server, new InetSocketAddress(listen.getAddress(), server.getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + listen.getAddress().getHostAddress() + ":"
                    + listen.getPort() + ": " + e.getMessage(), e);
        }
    }

    /** {@code /healthz}: ok; anything else but {@code /metrics}: not found. */
    private static void other(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            boolean health = "/healthz".equals(path);
            byte[] body = (health ? "ok\n" : "not found: try /metrics or /healthz\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(health ? 200 : 404, body.length);
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
        server.close();
    }
}
