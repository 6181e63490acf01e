package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetricsServerTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> get(MetricsServer s, String path, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.address().getPort() + path));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static MetricsServer serve() {
        var collector = new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), ExporterOptions.defaults());
        return MetricsServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), collector);
    }

    @Test
    void servesPrometheusTextOpenMetricsAndHealth() throws Exception {
        try (MetricsServer s = serve()) {
            assertTrue(s.address().getPort() > 0);
            var text = get(s, "/metrics", null);
            assertEquals(200, text.statusCode());
            assertTrue(text.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                    text.headers().toString());
            assertTrue(text.body().contains("namedprocess_namegroup_num_procs{groupname=\"python3\"} 1"), text.body());
            var om = get(s, "/metrics", "application/openmetrics-text; version=1.0.0; charset=utf-8");
            assertTrue(om.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"),
                    om.headers().toString());
            assertTrue(om.body().endsWith("# EOF\n"), om.body());
            long before = java.time.Instant.now().getEpochSecond();
            var health = get(s, "/healthz", null);
            long after = java.time.Instant.now().getEpochSecond();
            assertEquals(200, health.statusCode());
            assertEquals("ok\n", health.body());
            // the Date field (RFC 9110's IMF-fixdate), as java.time reads it back, within the request's seconds
            long date = java.time.ZonedDateTime.parse(health.headers().firstValue("Date").orElse(""),
                    java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
            assertTrue(date >= before && date <= after, health.headers().toString());
            assertEquals(404, get(s, "/nothing", null).statusCode());
        }
    }

    @Test
    void aPortInUseIsRefusedNamingTheAddress() {
        try (MetricsServer s = serve()) {
            var e = assertThrows(UncheckedIOException.class, () -> MetricsServer.start(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), s.address().getPort()),
                    new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), ExporterOptions.defaults())));
            assertTrue(e.getMessage().contains("127.0.0.1:" + s.address().getPort()), e.getMessage());
        }
    }

    @Test
    void listenAddressesAreParsedOrRefusedWithTheReason() {
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9464), ListenAddress.parse(ListenAddress.DEFAULT));
        assertEquals(9464, ListenAddress.parse(":9464").getPort());
        assertTrue(ListenAddress.parse(":9464").getAddress().isAnyLocalAddress());
        assertEquals(9464, ListenAddress.parse("[::1]:9464").getPort());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ListenAddress.parse("9464"))
                .getMessage().contains("HOST:PORT"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ListenAddress.parse("127.0.0.1:65536"))
                .getMessage().contains("0 to 65535"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ListenAddress.parse("127.0.0.1:http"))
                .getMessage().contains("not a number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ListenAddress.parse("no-such-host.invalid:1"))
                .getMessage().contains("does not resolve"));
    }

    private static final String GET_METRICS = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";

    private static MetricsServer serve(MetricsServer.Limits limits) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), ExporterOptions.defaults()));
        return MetricsServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), registry, limits);
    }

    private static MetricsServer.Limits limits(int connections, Duration request, Duration idle, Duration response) {
        return new MetricsServer.Limits(connections, request, idle, response);
    }

    private static InetSocketAddress to(MetricsServer s) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.address().getPort());
    }

    /** One request on a connection of its own; the answer, read to its end. */
    private static RawHttp.Answer once(MetricsServer s, String request) throws IOException {
        try (RawHttp c = new RawHttp(to(s))) {
            return c.send(request).read(request.startsWith("HEAD "));
        }
    }

    @Test
    void aScrapeIsAnsweredWhileTwoHalfSentRequestsAndTwoHundredIdleConnectionsAreHeldOpen() throws Exception {
        // The live machine, so that the scrape is a real one; the default limits.
        List<RawHttp> held = new ArrayList<>();
        try (var collector = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes()),
                ExporterOptions.defaults());
             MetricsServer s = MetricsServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                     collector)) {
            for (int i = 0; i < 2; i++) {
                held.add(new RawHttp(to(s)).send("GET /metrics HTTP/1.1\r\nHost: t\r\nAccept: text/plain\r\n"));
            }
            for (int i = 0; i < 200; i++) {
                held.add(new RawHttp(to(s)));
            }
            long worst = 0;
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                RawHttp.Answer a = once(s, GET_METRICS);
                long took = System.nanoTime() - start;
                worst = Math.max(worst, took);
                assertEquals(200, a.status());
                assertTrue(a.text().contains("namedprocess_namegroup_num_procs{groupname=\"java\"}"), a.text());
            }
            System.out.printf("scrape with 2 half-sent requests and 200 idle connections held: worst of 5 %.1f ms%n",
                    worst / 1e6);
            // A generous bound: the JDK server this replaced answered nothing for more than 150 s.
            assertTrue(worst < TimeUnit.SECONDS.toNanos(20), "a scrape took " + worst / 1e6 + " ms");
        } finally {
            for (RawHttp h : held) {
                h.close();
            }
        }
    }

    @Test
    void aHalfSentRequestGets408AfterTheRequestTimeoutAndSilentConnectionsAreClosed() throws Exception {
        // Long enough for this test to send its first bytes on a loaded machine, short enough to wait for.
        Duration shortTime = Duration.ofSeconds(2);
        try (MetricsServer s = serve(limits(16, shortTime, shortTime, Duration.ofSeconds(30)));
             RawHttp half = new RawHttp(to(s));
             RawHttp silent = new RawHttp(to(s))) {
            half.send("GET /metrics HTTP/1.1\r\nHost: t\r\n");
            RawHttp.Answer a = half.read();
            assertEquals(408, a.status());
            assertEquals("close", a.field("Connection"));
            assertTrue(half.closedByServer());
            assertTrue(silent.closedByServer(), "a connection that never sends a request is closed");
            try (RawHttp kept = new RawHttp(to(s))) {
                assertEquals(200, kept.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").read().status());
                assertTrue(kept.closedByServer(), "a kept-alive connection is closed after the idle timeout");
            }
        }
    }

    @Test
    void atTheConnectionBoundTheConnectionThatWaitedLongestMakesRoom() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        try (MetricsServer s = serve(limits(8, Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofMinutes(1)))) {
            for (int i = 0; i < 30; i++) {
                RawHttp h = new RawHttp(to(s));
                held.add(h);
                // Each one answered before the next, so that the server has accepted them in this order.
                assertEquals(200, h.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").read().status());
            }
            RawHttp.Answer a = once(s, GET_METRICS);
            assertEquals(200, a.status());
            assertTrue(a.text().contains("namedprocess_namegroup_num_procs"), a.text());
            int open = 0;
            for (int i = 0; i < held.size(); i++) {
                boolean closed = held.get(i).closedWithin(i < 20 ? 10_000 : 200);
                if (i < 20) {
                    assertTrue(closed, "connection " + i + " of 30 is one of the oldest and was closed");
                }
                open += closed ? 0 : 1;
            }
            assertTrue(open <= 8 && open >= 6, open + " of the newest connections still open");
            assertFalse(held.get(held.size() - 1).closedWithin(1), "the newest connection is open");
        } finally {
            for (RawHttp h : held) {
                h.close();
            }
        }
    }

    @Test
    void onlyGetAndHeadAreAnsweredOtherMethodsGet405WithAllow() throws Exception {
        try (MetricsServer s = serve(MetricsServer.Limits.defaults())) {
            for (String method : List.of("POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "FOO", "get")) {
                RawHttp.Answer a = once(s, method + " /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
                assertEquals(405, a.status(), method);
                assertEquals("GET, HEAD", a.field("Allow"), method);
                assertFalse(a.text().contains("namedprocess"), method + ": " + a.text());
            }
            assertEquals(405, once(s, "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n").status());
            assertEquals(405, once(s, "CONNECT t:443 HTTP/1.1\r\nHost: t\r\n\r\n").status(), "authority form");
            // A POST with a body it never reads: the answer arrives whole, and the connection is closed after it.
            try (RawHttp c = new RawHttp(to(s))) {
                byte[] body = new byte[200_000];
                Arrays.fill(body, (byte) 'x');
                c.send("POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length + "\r\n\r\n").send(body);
                RawHttp.Answer a = c.read();
                assertEquals(405, a.status());
                assertEquals("close", a.field("Connection"));
                assertTrue(c.closedByServer());
            }
        }
    }

    @Test
    void headAnswersTheFieldsOfGetWithoutTheBodyAndTheConnectionGoesOn() throws Exception {
        try (MetricsServer s = serve(MetricsServer.Limits.defaults()); RawHttp c = new RawHttp(to(s))) {
            RawHttp.Answer head = c.send("HEAD /metrics HTTP/1.1\r\nHost: t\r\n\r\n").read(true);
            assertEquals(200, head.status());
            assertTrue(head.field("Content-Type").startsWith("text/plain; version=0.0.4"), head.fields().toString());
            assertTrue(Integer.parseInt(head.field("Content-Length")) > 1000, head.fields().toString());
            assertEquals(0, head.body().length);
            // Had the body been sent, this would read its first bytes as the status line.
            RawHttp.Answer health = c.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertEquals(200, health.status());
            assertEquals("ok\n", health.text());
            RawHttp.Answer headHealth = c.send("HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n").read(true);
            assertEquals("3", headHealth.field("Content-Length"));
            assertEquals(404, c.send("GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n").read().status());
            assertEquals(200, c.send(GET_METRICS).read().status());
        }
    }

    @Test
    void anOversizedRequestLineIs414AndOversizedHeaderFieldsAre431AnsweredNotReset() throws Exception {
        try (MetricsServer s = serve(MetricsServer.Limits.defaults())) {
            String mb = "a".repeat(1 << 20);
            RawHttp.Answer url = once(s, "GET /metrics?" + mb + " HTTP/1.1\r\nHost: t\r\n\r\n");
            assertEquals(414, url.status());
            assertEquals("close", url.field("Connection"));
            RawHttp.Answer field = once(s, "GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: " + mb + "\r\n\r\n");
            assertEquals(431, field.status());
            StringBuilder many = new StringBuilder("GET /metrics HTTP/1.1\r\nHost: t\r\n");
            for (int i = 0; i < 101; i++) {
                many.append("X-").append(i).append(": y\r\n");
            }
            assertEquals(431, once(s, many + "\r\n").status());
            // Just inside the limits: answered.
            String line = "GET /metrics?" + "a".repeat(HttpRequestHead.MAX_REQUEST_LINE - 35) + " HTTP/1.1";
            assertEquals(200, once(s, line + "\r\nHost: t\r\n\r\n").status());
            // The server still answers after all that.
            assertEquals(200, once(s, GET_METRICS).status());
        }
    }

    @Test
    void keptAliveConnectionsAnswerRequestsInOrderIncludingPipelinedOnes() throws Exception {
        try (MetricsServer s = serve(MetricsServer.Limits.defaults())) {
            try (RawHttp c = new RawHttp(to(s))) {
                for (int i = 0; i < 3; i++) {
                    RawHttp.Answer a = c.send(GET_METRICS).read();
                    assertEquals(200, a.status());
                    assertNull(a.field("Connection"), "HTTP/1.1 stays open: " + a.fields());
                }
                c.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /nothing HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "HEAD /metrics HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n"
                        + "Connection: close\r\n\r\n");
                assertEquals("ok\n", c.read().text());
                assertEquals(404, c.read().status());
                assertEquals(200, c.read(true).status());
                RawHttp.Answer last = c.read();
                assertEquals("ok\n", last.text());
                assertEquals("close", last.field("Connection"));
                assertTrue(c.closedByServer());
            }
            try (RawHttp c = new RawHttp(to(s))) {
                RawHttp.Answer a = c.send("GET /healthz HTTP/1.0\r\n\r\n").read();
                assertEquals("close", a.field("Connection"), "HTTP/1.0 closes unless asked to keep alive");
                assertTrue(c.closedByServer());
            }
            try (RawHttp c = new RawHttp(to(s))) {
                RawHttp.Answer a = c.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
                assertEquals("keep-alive", a.field("Connection"));
                assertEquals(200, c.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read().status());
            }
            // A client that ends its side after its request still gets its answer.
            try (RawHttp c = new RawHttp(to(s))) {
                c.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").socket().shutdownOutput();
                assertEquals("ok\n", c.read().text());
                assertTrue(c.closedByServer());
            }
        }
    }

    @Test
    void malformedRequestsAre400AndOtherVersions505() throws Exception {
        try (MetricsServer s = serve(MetricsServer.Limits.defaults())) {
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\n\r\n").status(), "no Host");
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").status(), "two Hosts");
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\nHost : t\r\n\r\n").status(), "space before colon");
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n").status(), "folded");
            assertEquals(400, once(s, "GET  /metrics HTTP/1.1\r\nHost: t\r\n\r\n").status(), "two spaces");
            assertEquals(400, once(s, "GET metrics HTTP/1.1\r\nHost: t\r\n\r\n").status(), "no slash");
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\nHost: t\r\nX: a\0b\r\n\r\n").status(), "NUL");
            assertEquals(400, once(s, "GET /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n").status());
            assertEquals(505, once(s, "GET /metrics HTTP/2.0\r\nHost: t\r\n\r\n").status());
            assertEquals(400, once(s, "GET /metrics\r\n\r\n").status(), "HTTP/0.9");
            // A TLS client hello is refused from its first bytes, without waiting for a line end.
            try (RawHttp c = new RawHttp(to(s))) {
                RawHttp.Answer a = c.send(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01}).read();
                assertEquals(400, a.status());
            }
            // An absolute-form target is served by its path.
            assertEquals("ok\n", once(s, "GET http://t/healthz HTTP/1.1\r\nHost: t\r\n\r\n").text());
        }
    }

    @Test
    void clientsThatNeverReadTheirAnswerHoldNoScrapeAndAreClosedAfterTheResponseTimeout() throws Exception {
        // A scrape of about 13 MB, far more than the sockets' buffers hold.
        MultiCollector big = () -> {
            GaugeSnapshot.Builder g = GaugeSnapshot.builder().name("big").help("many series");
            for (int i = 0; i < 160_000; i++) {
                g.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(Labels.of("series", "s" + i + "-".repeat(40))).value(i).build());
            }
            return new MetricSnapshots(g.build());
        };
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(big);
        List<RawHttp> stalled = new ArrayList<>();
        try (MetricsServer s = MetricsServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                registry, limits(64, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(2)))) {
            for (int i = 0; i < 20; i++) {
                stalled.add(new RawHttp(to(s), 4096).send(GET_METRICS));
            }
            long start = System.nanoTime();
            RawHttp.Answer a = once(s, GET_METRICS);
            System.out.printf("scrape of %d bytes with 20 clients not reading theirs: %.1f ms%n", a.body().length,
                    (System.nanoTime() - start) / 1e6);
            assertEquals(200, a.status());
            assertTrue(a.body().length > 10_000_000, a.body().length + " bytes");
            // Each stalled client is closed after the response timeout: it reads part of its answer, then the end.
            awaitCondition(() -> s.openConnections() == 0, "every connection closed");
            for (RawHttp r : stalled) {
                byte[] got = r.socket().getInputStream().readAllBytes();
                assertTrue(got.length < a.body().length, got.length + " bytes of " + a.body().length);
            }
        } finally {
            for (RawHttp r : stalled) {
                r.close();
            }
        }
    }

    @Test
    void requestsThatArriveDuringAScrapeShareTheNextOne() throws Exception {
        AtomicInteger collects = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        MultiCollector slow = () -> {
            if (collects.incrementAndGet() == 1) {
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new MetricSnapshots(GaugeSnapshot.builder().name("n").help("collects")
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(collects.get()).build()).build());
        };
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(slow);
        List<RawHttp> clients = new ArrayList<>();
        try (MetricsServer s = MetricsServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                registry)) {
            for (int i = 0; i < 20; i++) {
                clients.add(new RawHttp(to(s)).send(i % 2 == 0 ? GET_METRICS
                        : "GET /metrics HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n"));
                if (i == 0) {
                    awaitCondition(() -> collects.get() == 1, "the first scrape starts");
                }
            }
            awaitCondition(() -> s.waitingForScrape() == 19, "19 requests wait for the next scrape");
            release.countDown();
            List<byte[]> bodies = new ArrayList<>();
            for (RawHttp c : clients) {
                RawHttp.Answer a = c.read();
                assertEquals(200, a.status());
                bodies.add("gzip".equals(a.field("Content-Encoding"))
                        ? new GZIPInputStream(new ByteArrayInputStream(a.body())).readAllBytes() : a.body());
            }
            assertEquals(2, collects.get(), "one scrape for the first request, one for the 19 others");
            String second = new String(bodies.get(1), StandardCharsets.UTF_8);
            assertTrue(second.contains("n 2.0"), second);
            for (int i = 2; i < bodies.size(); i++) {
                assertArrayEquals(bodies.get(1), bodies.get(i), "request " + i);
            }
        } finally {
            for (RawHttp c : clients) {
                c.close();
            }
        }
    }

    @Test
    void ipv4AndIpv6AreListenedOnAsAsked() throws Exception {
        try (MetricsServer s = MetricsServer.start(new InetSocketAddress(InetAddress.getByName("::1"), 0),
                new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), ExporterOptions.defaults()))) {
            assertEquals("[::1]:" + s.address().getPort(), ListenAddress.format(s.address()));
            var health = HTTP.send(HttpRequest.newBuilder(URI.create("http://[::1]:" + s.address().getPort()
                    + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("ok\n", health.body());
        }
        try (MetricsServer s = MetricsServer.start(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0),
                new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), ExporterOptions.defaults()))) {
            assertEquals("0.0.0.0:" + s.address().getPort(), ListenAddress.format(s.address()));
            assertEquals(200, once(s, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").status());
            // 0.0.0.0 is IPv4 only: no IPv6 socket listens on that port.
            assertThrows(ConnectException.class, () -> new Socket(InetAddress.getByName("::1"), s.address().getPort())
                    .close());
        }
    }

    @Test
    void addressesAreWrittenAsTheyAreListenedOn() throws Exception {
        assertEquals("127.0.0.1:9464", ListenAddress.format(ListenAddress.parse("127.0.0.1:9464")));
        assertEquals("[::]:9464", ListenAddress.format(ListenAddress.parse("[::]:9464")));
        assertEquals("[::1]:1", ListenAddress.format(ListenAddress.parse("[::1]:1")));
        assertEquals("[2001:db8::1:0:0:1]:80", ListenAddress.format(ListenAddress.parse("[2001:db8:0:0:1:0:0:1]:80")));
        assertEquals("[1:0:1:1:1:1:1:1]:80", ListenAddress.format(ListenAddress.parse("[1:0:1:1:1:1:1:1]:80")));
        assertEquals("[fe80::fc:ff:fe00:1]:80",
                ListenAddress.format(ListenAddress.parse("[fe80:0:0:0:fc:ff:fe00:1]:80")));
        assertEquals("[1::]:80", ListenAddress.format(ListenAddress.parse("[1:0:0:0:0:0:0:0]:80")));
    }

    @Test
    void acceptEncodingIsReadWithItsWeights() {
        assertTrue(MetricsServer.acceptsGzip("gzip"));
        assertTrue(MetricsServer.acceptsGzip("deflate, gzip;q=0.5"));
        assertTrue(MetricsServer.acceptsGzip("*"));
        assertFalse(MetricsServer.acceptsGzip(null));
        assertFalse(MetricsServer.acceptsGzip("identity"));
        assertFalse(MetricsServer.acceptsGzip("gzip;q=0"));
        assertFalse(MetricsServer.acceptsGzip("*, gzip;q=0"));
        assertFalse(MetricsServer.acceptsGzip("gzip;q=zero"));
    }

    @Test
    void limitsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> limits(0, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> limits(1, Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> limits(1, Duration.ofSeconds(1), Duration.ofSeconds(-1),
                Duration.ofSeconds(1)));
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + ": not within 30 s");
            Thread.sleep(10);
        }
    }
}
