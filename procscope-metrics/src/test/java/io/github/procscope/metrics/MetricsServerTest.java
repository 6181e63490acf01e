package io.github.procscope.metrics;

import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
            var health = get(s, "/healthz", null);
            assertEquals(200, health.statusCode());
            assertEquals("ok\n", health.body());
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
}
