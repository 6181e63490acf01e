import com.sun.net.httpserver.HttpServer;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The smallest JVM HTTP server: the JDK's {@code com.sun.net.httpserver} answering every request with one constant
 * string. {@code benchmarks/serve-rss.sh} runs it under the JVM options of {@code procscope serve} and compares the
 * two resident set sizes: what {@code serve} holds beyond a JVM that serves HTTP at all.
 *
 * <p>{@code java OPTIONS ConstantServer PORT}
 */
public final class ConstantServer {
    private ConstantServer() {
    }

    public static void main(String[] args) throws Exception {
        byte[] body = "# a constant answer\nup 1\n".getBytes(StandardCharsets.US_ASCII);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                Integer.parseInt(args[0])), 16);
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }
}
