package io.github.procscope.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A JVM the test starts and ends by its pid, and what it printed. */
record ChildJvm(int exitCode, String stdout, String stderr) {
    /** The JDK running the tests ({@code -Djvm=...} picks it). */
    static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * @param command the whole command line
     * @param limit   how long it may run before it is killed and the test fails
     * @return its exit code and output
     */
    static ChildJvm run(List<String> command, Duration limit) {
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        try {
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p, false), ChildJvm::ownThread);
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p, true), ChildJvm::ownThread);
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("still running after " + limit + ": " + command);
            }
            return new ChildJvm(p.exitValue(), out.join(), err.join());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * @return the command that starts {@code main} on this JVM's class path, less the test tools a user's class
     *         path would not have (ArchUnit and the logging facade it brings), with these JVM options
     */
    static List<String> onClassPath(List<String> jvmOptions, Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java().toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> !e.contains("/com/tngtech/archunit/") && !e.contains("/org/slf4j/"))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator)));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String read(Process p, boolean err) {
        try {
            return new String((err ? p.getErrorStream() : p.getInputStream()).readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A reader of its own: the common pool may have one worker, and the two streams must be read at once. */
    private static void ownThread(Runnable task) {
        Thread t = new Thread(task, "child-jvm-reader");
        t.setDaemon(true);
        t.start();
    }
}
