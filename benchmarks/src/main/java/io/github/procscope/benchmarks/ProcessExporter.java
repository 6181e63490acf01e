package io.github.procscope.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * prometheus-process-exporter (the Debian package's {@code prometheus-process-exporter}, or the binary named by the
 * system property {@value #PROPERTY}) started on a free localhost port with a configuration file, scraped over HTTP
 * as Prometheus scrapes it, and ended by its pid. Its CPU time is read from {@code /proc/PID/stat}.
 */
final class ProcessExporter implements AutoCloseable {
    /** The system property naming the process-exporter binary. */
    static final String PROPERTY = "procscope.bench.process-exporter";

    /** Groups every process by its command name, as {@code procscope serve} does by default. */
    static final String BY_COMMAND_NAME = "process_names:\n  - name: \"{{.Comm}}\"\n    cmdline:\n    - '.+'\n";
    /**
     * The two rules of {@link ScrapeBenchmark#scrapeRules} ({@code idle=cmdline:idle}, {@code other=.*}): the fleet
     * by a regular expression on the command line, everything else in one group. process-exporter's matchers are
     * regular expressions on the command line; its first matching name wins, as procscope's first matching rule.
     */
    static final String BY_RULES = "process_names:\n  - name: idle\n    cmdline:\n    - 'idle'\n"
            + "  - name: other\n    cmdline:\n    - '.*'\n";

    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final Process process;
    private final Path config;
    private final int port;
    private final byte[] request;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 20);
    private final byte[] chunk = new byte[64 << 10];

    private ProcessExporter(Process process, Path config, int port) {
        this.process = process;
        this.config = config;
        this.port = port;
        this.request = ("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/plain\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Starts the exporter without per-thread families and without {@code smaps} ({@code -threads=false
     * -gather-smaps=false}), as {@code procscope serve} reads by default, and waits for its first answer.
     *
     * @param configuration the YAML configuration
     * @return the started exporter
     */
    static ProcessExporter start(String configuration) {
        String binary = System.getProperty(PROPERTY, "prometheus-process-exporter");
        Path config;
        int port;
        try {
            config = Files.createTempFile("process-exporter", ".yml");
            Files.writeString(config, configuration);
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Process p = Fleet.Helper.start(List.of(binary, "-web.listen-address", "127.0.0.1:" + port,
                "-config.path", config.toString(), "-threads=false", "-gather-smaps=false"));
        ProcessExporter exporter = new ProcessExporter(p, config, port);
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            try {
                exporter.scrape();
                return exporter;
            } catch (UncheckedIOException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    exporter.close();
                    throw new IllegalStateException(binary + " did not answer on port " + port
                            + (p.isAlive() ? "" : " (it ended with status " + p.exitValue() + ")"), e);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    exporter.close();
                    throw new IllegalStateException("interrupted", x);
                }
            }
        }
    }

    /**
     * One scrape of {@code /metrics}, read to its end.
     *
     * @return the bytes of the answer, head included
     * @throws UncheckedIOException if it cannot be had, or is not a 200
     */
    int scrape() {
        body.reset();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = s.getInputStream();
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                body.write(chunk, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String head = body.size() >= 12 ? new String(body.toByteArray(), 0, 12, StandardCharsets.US_ASCII) : "";
        if (!head.startsWith("HTTP/1.") || !head.endsWith(" 200")) {
            throw new UncheckedIOException(new IOException("the exporter answered " + head));
        }
        return body.size();
    }

    /** @return the body of the last scrape, as text */
    String lastBody() {
        return body.toString(StandardCharsets.UTF_8);
    }

    /** @return the exporter's pid */
    long pid() {
        return process.pid();
    }

    /** @return the exporter's CPU time (user and system, its threads' together) in clock ticks */
    long cpuTicks() {
        return CpuTime.ticksOf(process.pid());
    }

    /** Ends the exporter by its pid and waits for it; removes its configuration. */
    @Override
    public void close() {
        Fleet.Helper.end(process);
        try {
            Files.deleteIfExists(config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
