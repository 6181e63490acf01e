package io.github.procscope.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A small C process a test scripts line by line ({@code helpers/memhelper.c} among the test resources,
 * compiled with {@code gcc} once per JVM): it reserves and touches anonymous memory, opens and creates
 * files with given flags, and answers each command with one line. Start it through {@link Spawned}, which
 * ends it by its pid.
 *
 * <pre>{@code
 * try (Spawned spawned = new Spawned()) {
 *     ScriptedProcess p = ScriptedProcess.start(spawned);
 *     p.send("reserve 300");
 *     p.send("touch 80");
 * }
 * }</pre>
 */
public final class ScriptedProcess {
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final BufferedReader out;
    private final Writer in;

    private ScriptedProcess(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts one (compiling the helper first if this JVM has not yet).
     *
     * @param spawned where the process is registered to be ended
     * @return the running helper
     */
    public static ScriptedProcess start(Spawned spawned) {
        return new ScriptedProcess(spawned.start(new ProcessBuilder(binary().toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)));
    }

    /** @return the helper's process id */
    public long pid() {
        return process.pid();
    }

    /** @return the helper's process */
    public Process process() {
        return process;
    }

    /**
     * Sends one command and waits for its answer.
     *
     * @param command a command line (see the helper's source)
     * @return the answer after {@code "ok"}, trimmed (empty when there is nothing after it)
     * @throws AssertionError if the helper answers with an error or does not answer in time
     */
    public String send(String command) {
        try {
            in.write(command + "\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to helper " + pid(), e);
        }
        // Read on a thread of its own: the common pool may be busy with the test's other asynchronous work
        // (on two cores, JDK 25 gives it a single worker).
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, task -> {
            Thread t = new Thread(task, "scripted-process-answer");
            t.setDaemon(true);
            t.start();
        });
        String answer;
        try {
            answer = line.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("helper " + pid() + " did not answer \"" + command + "\" within " + ANSWER_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
        if (answer == null) {
            throw new AssertionError("helper " + pid() + " exited instead of answering \"" + command + "\"");
        }
        if (!answer.startsWith("ok")) {
            throw new AssertionError("helper " + pid() + " answered \"" + answer + "\" to \"" + command + "\"");
        }
        return answer.substring(2).trim();
    }

    /** @return the compiled helper ({@code src/test/c/memhelper.c}), compiling it on first use */
    public static Path binary() {
        return NativeHelpers.executable("memhelper");
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort at exit
        }
    }
}
