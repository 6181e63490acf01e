package io.github.procscope.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPOutputStream;

/**
 * An HTTP endpoint for Prometheus: {@code /metrics} answers in the Prometheus text format, or in OpenMetrics when
 * the scraper asks for it ({@code Accept: application/openmetrics-text}), gzip-compressed when the scraper accepts
 * it; {@code /healthz} answers {@code ok}. {@code GET} and {@code HEAD} are answered; any other method gets
 * {@code 405} with {@code Allow: GET, HEAD}. Close it to stop listening.
 *
 * <p>It is its own small HTTP/1.1 server ({@link HttpLoop}, {@link HttpRequestHead}), built to stay answerable when
 * clients misbehave, as any local user's can (or anyone's, listening beyond the loopback interface):
 * <ul>
 *   <li>One thread reads and writes every connection with non-blocking sockets, so a client that sends its
 *       request slowly, or never reads its answer, holds a few kilobytes and no thread. Each state of a connection
 *       has a deadline ({@link Limits}): a request head must arrive within the request timeout ({@code 408}
 *       after it), a kept-alive connection may wait the idle timeout for its next request, an answer must be
 *       taken within the response timeout.</li>
 *   <li>Connections are bounded; at the bound a new connection closes the one that has waited longest on its
 *       client, so held-open connections cannot lock a scraper out.</li>
 *   <li>A request line over 8 KiB is answered {@code 414}, header fields over 16 KiB or 100 lines {@code 431}, and
 *       the rest of what the client sent is read and discarded before the connection closes, so the client reads
 *       the answer instead of a reset.</li>
 *   <li>Scrapes run on one thread of their own, one at a time: the requests that arrive while one runs are all
 *       answered by the next, from one scrape rendered once per format, so many scrapers at once cost one scrape
 *       and share the answer's bytes.</li>
 * </ul>
 * The JDK's {@code com.sun.net.httpserver}, which served before, gives none of this to one server: it reads a
 * request on a thread of its executor with no time limit by default (its limits are JVM-wide system properties,
 * read once when its classes load), so two half-sent requests held both threads of a two-thread executor and no
 * scrape was answered for minutes; it bounds no connections by default, and it reset the connection of a request
 * with a 1 MB target or header field instead of answering it.
 */
public final class MetricsServer implements AutoCloseable {
    private static final String[] ALLOW = {"Allow", "GET, HEAD"};
    private static final String[] VARY = {"Vary", "Accept, Accept-Encoding"};

    private final HttpLoop loop;
    private final Scraper scraper;
    private final Thread scrapeThread;
    private final InetSocketAddress address;

    /**
     * How far the server lets clients go.
     *
     * @param maxConnections  the most connections open at once; at the bound a new connection closes the one that
     *                        has waited longest on its client
     * @param requestTimeout  how long a request head may take to arrive, from the connection's acceptance or from
     *                        the first byte of a request on a kept-alive connection
     * @param idleTimeout     how long a kept-alive connection may wait for its next request
     * @param responseTimeout how long a client may take to read an answer
     */
    public record Limits(int maxConnections, Duration requestTimeout, Duration idleTimeout,
                         Duration responseTimeout) {
        /** @throws IllegalArgumentException if the bound is below 1 or a timeout not above 0 */
        public Limits {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(responseTimeout, "responseTimeout");
            if (maxConnections < 1) {
                throw new IllegalArgumentException("the connection bound must be at least 1: " + maxConnections);
            }
            for (Duration d : List.of(requestTimeout, idleTimeout, responseTimeout)) {
                if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofDays(1)) > 0) {
                    throw new IllegalArgumentException("a timeout must be above 0 and at most a day: " + d);
                }
            }
        }

        /**
         * @return 256 connections, 10 s for a request head, 2 min idle between requests (longer than a scrape
         *         interval of 1 min, so Prometheus keeps its connection), 30 s to read an answer
         */
        public static Limits defaults() {
            return new Limits(256, Duration.ofSeconds(10), Duration.ofMinutes(2), Duration.ofSeconds(30));
        }
    }

    private MetricsServer(HttpLoop loop, Scraper scraper, Thread scrapeThread, InetSocketAddress address) {
        this.loop = loop;
        this.scraper = scraper;
        this.scrapeThread = scrapeThread;
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
     * Starts serving a registry with the {@linkplain Limits#defaults() default limits}.
     *
     * @param listen   where to listen; port 0 picks a free port
     * @param registry what to serve
     * @return the running server
     * @throws UncheckedIOException naming the address when it cannot be bound (in use, not local, no permission)
     */
    public static MetricsServer start(InetSocketAddress listen, PrometheusRegistry registry) {
        return start(listen, registry, Limits.defaults());
    }

    /**
     * Starts serving a registry. An IPv4 address is listened on over IPv4 only ({@code 0.0.0.0}: every IPv4
     * interface); an IPv6 address over IPv6 ({@code ::}: every interface, IPv4 too where the system maps it).
     *
     * @param listen   where to listen; port 0 picks a free port
     * @param registry what to serve
     * @param limits   how far clients may go
     * @return the running server
     * @throws UncheckedIOException naming the address when it cannot be bound (in use, not local, no permission)
     */
    public static MetricsServer start(InetSocketAddress listen, PrometheusRegistry registry, Limits limits) {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(limits, "limits");
        if (listen.isUnresolved()) {
            throw new IllegalArgumentException("cannot listen on " + listen.getHostString()
                    + ": the host name does not resolve");
        }
        ServerSocketChannel channel = null;
        HttpLoop loop;
        InetSocketAddress bound;
        try {
            channel = ServerSocketChannel.open(listen.getAddress() instanceof Inet4Address
                    ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
            channel.bind(listen, 128);
            bound = (InetSocketAddress) channel.getLocalAddress();
            Scraper scraper = new Scraper(registry);
            loop = new HttpLoop(channel, limits, scraper::handle);
            Thread scrapeThread = new Thread(scraper, "procscope-metrics-scrape");
            scrapeThread.setDaemon(true);
            scrapeThread.start();
            loop.start();
            return new MetricsServer(loop, scraper, scrapeThread, bound);
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            throw new UncheckedIOException("cannot listen on " + ListenAddress.format(listen) + ": " + e.getMessage(),
                    e);
        }
    }

    /** @return the address it listens on, as bound: the port it got, and the IPv6 form for an IPv6 socket */
    public InetSocketAddress address() {
        return address;
    }

    /** @return how many connections are open */
    int openConnections() {
        return loop.openConnections();
    }

    /** @return how many requests wait for the next scrape (one running is not counted) */
    int waitingForScrape() {
        return scraper.waiting();
    }

    /** Stops listening, closes every connection and ends its threads. */
    @Override
    public void close() {
        scraper.close();
        try {
            loop.stop();
            scrapeThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param acceptEncoding the request's {@code Accept-Encoding}, or null
     * @return whether it accepts gzip: named ({@code gzip} or {@code x-gzip}), or through {@code *}, with a weight
     *         above 0
     */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        Double gzip = null;
        Double any = null;
        for (String part : acceptEncoding.split(",")) {
            String[] params = part.split(";");
            String coding = params[0].trim().toLowerCase(Locale.ROOT);
            double q = 1;
            for (int i = 1; i < params.length; i++) {
                String p = params[i].trim().toLowerCase(Locale.ROOT);
                if (p.startsWith("q=")) {
                    try {
                        q = Double.parseDouble(p.substring(2));
                    } catch (NumberFormatException e) {
                        q = 0;
                    }
                }
            }
            if (coding.equals("gzip") || coding.equals("x-gzip")) {
                gzip = gzip == null ? q : Math.max(gzip, q);
            } else if (coding.equals("*")) {
                any = q;
            }
        }
        return gzip != null ? gzip > 0 : any != null && any > 0;
    }

    /**
     * Routes requests, and scrapes on its own thread: requests for {@code /metrics} wait for the next scrape, and
     * each scrape answers every request waiting when it starts, rendered once per format.
     */
    private static final class Scraper implements Runnable {
        private final PrometheusRegistry registry;
        private final ScrapeWriter writer = new ScrapeWriter();
        private final ArrayDeque<Waiting> waiting = new ArrayDeque<>(); // guarded by this
        private boolean closed; // guarded by this

        private record Waiting(String accept, boolean gzip, CompletableFuture<HttpReply> reply) {
        }

        Scraper(PrometheusRegistry registry) {
            this.registry = registry;
        }

        /** On the loop's thread: answers at once, or registers for the next scrape. */
        CompletableFuture<HttpReply> handle(HttpRequestHead request) {
            if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                return CompletableFuture.completedFuture(HttpReply.text(405,
                        "method not allowed: this server answers GET and HEAD only", ALLOW));
            }
            switch (request.path()) {
                case "/metrics": {
                    CompletableFuture<HttpReply> reply = new CompletableFuture<>();
                    synchronized (this) {
                        if (closed) {
                            return CompletableFuture.completedFuture(HttpReply.text(503, "the server is stopping"));
                        }
                        waiting.add(new Waiting(request.field("accept"), acceptsGzip(request.field("accept-encoding")),
                                reply));
                        notifyAll();
                    }
                    return reply;
                }
                case "/healthz":
                    return CompletableFuture.completedFuture(HttpReply.text(200, "ok"));
                default:
                    return CompletableFuture.completedFuture(
                            HttpReply.text(404, "not found: try /metrics or /healthz"));
            }
        }

        synchronized int waiting() {
            return waiting.size();
        }

        synchronized void close() {
            closed = true;
            notifyAll();
        }

        @Override
        public void run() {
            while (true) {
                List<Waiting> batch;
                synchronized (this) {
                    while (waiting.isEmpty() && !closed) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            closed = true;
                        }
                    }
                    batch = new ArrayList<>(waiting);
                    waiting.clear();
                    if (closed) {
                        batch.forEach(w -> w.reply.complete(HttpReply.text(503, "the server is stopping")));
                        return;
                    }
                }
                answer(batch);
            }
        }

        private void answer(List<Waiting> batch) {
            MetricSnapshots snapshots;
            try {
                snapshots = registry.scrape();
            } catch (RuntimeException | Error e) {
                // A failed scrape (even out of memory) is that scrape's 500; the thread goes on to the next.
                HttpReply failed = HttpReply.text(500, "scrape failed: " + e);
                batch.forEach(w -> w.reply.complete(failed));
                return;
            }
            Map<String, HttpReply> rendered = new HashMap<>();
            for (Waiting w : batch) {
                String type = writer.contentType(w.accept);
                HttpReply reply = rendered.computeIfAbsent(type + (w.gzip ? "+gzip" : ""),
                        k -> render(snapshots, w.accept, type, w.gzip));
                w.reply.complete(reply);
            }
        }

        private HttpReply render(MetricSnapshots snapshots, String accept, String contentType, boolean gzip) {
            try {
                ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
                writer.write(accept, snapshots, body);
                byte[] bytes = body.toByteArray();
                List<String[]> fields = new ArrayList<>(List.of(new String[] {"Content-Type", contentType}, VARY));
                if (gzip) {
                    ByteArrayOutputStream zipped = new ByteArrayOutputStream(bytes.length / 4 + 64);
                    try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
                        gz.write(bytes);
                    }
                    bytes = zipped.toByteArray();
                    fields.add(new String[] {"Content-Encoding", "gzip"});
                }
                return new HttpReply(200, fields, bytes);
            } catch (IOException | RuntimeException e) {
                return HttpReply.text(500, "scrape failed: " + e);
            }
        }
    }
}
