package io.github.procscope.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code procscope serve} run in the test's own JVM (so that it loads the scripted NVML test double), on a loopback
 * port it picks itself; {@link #close()} interrupts it and waits for it to stop.
 */
final class InProcessServe implements AutoCloseable {
    private final Thread thread;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final int port;

    private InProcessServe(List<String> args) throws InterruptedException {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        List<String> all = new ArrayList<>(List.of("serve", "--listen", "127.0.0.1:0"));
        all.addAll(args);
        thread = new Thread(() -> ProcscopeCli.run(o, e, all.toArray(String[]::new)), "procscope-serve");
        thread.start();
        port = awaitPort();
    }

    /**
     * Starts serve and waits (up to 60 s) until it says where it listens.
     *
     * @param args its options beside {@code --listen 127.0.0.1:0}
     * @return the running serve
     */
    static InProcessServe start(String... args) throws InterruptedException {
        return new InProcessServe(List.of(args));
    }

    /** @return the port serve listens on */
    int port() {
        return port;
    }

    /** @return what serve has written to standard error so far */
    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private int awaitPort() throws InterruptedException {
        Pattern p = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/metrics");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && thread.isAlive()) {
            Matcher m = p.matcher(out.toString(StandardCharsets.UTF_8));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(50);
        }
        close();
        throw new AssertionError("procscope serve did not start: " + out.toString(StandardCharsets.UTF_8) + err());
    }

    /** Stops serve (an interrupt ends it) and waits up to 30 s for it, less if this thread is interrupted. */
    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
