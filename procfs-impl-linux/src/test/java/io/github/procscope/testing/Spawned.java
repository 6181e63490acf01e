package io.github.procscope.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Processes a test starts, ended by the test, by their own pids. Use with try-with-resources (or close
 * it in {@code @AfterEach}): {@link #close()} sends SIGKILL to every process started or registered
 * here, through {@link ProcessHandle}, which re-checks each pid's start time so a recycled pid is
 * never hit. Never {@code pkill} or {@code killall}.
 */
public final class Spawned implements AutoCloseable {
    private final List<ProcessHandle> handles = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    /**
     * Starts a command with stdout piped (read it with {@link #readLine(Process, Duration)}) and stderr
     * discarded.
     */
    public synchronized Process start(String... command) {
        return start(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD));
    }

    /** Starts a prepared builder. */
    public synchronized Process start(ProcessBuilder builder) {
        try {
            Process p = builder.start();
            processes.add(p);
            handles.add(p.toHandle());
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + builder.command(), e);
        }
    }

    /**
     * Starts a JVM running {@code mainClass} with this JVM's class path.
     *
     * @param jvmOptions options placed before the class name (may be empty)
     * @param mainClass  the class to run
     * @param args       its arguments
     */
    public Process startJava(List<String> jvmOptions, Class<?> mainClass, String... args) {
        return start(javaCommand(jvmOptions, mainClass, args).redirectError(ProcessBuilder.Redirect.INHERIT));
    }

    /** @return a builder for a JVM running {@code mainClass} with this JVM's class path */
    public static ProcessBuilder javaCommand(List<String> jvmOptions, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Xshare:auto");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(jvmOptions);
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    /**
     * Registers a process this test did not start directly (an orphan whose pid a child printed), so
     * that {@link #close()} ends it too. The handle is taken now, fixing the pid's start time.
     */
    public synchronized void adopt(long pid) {
        ProcessHandle.of(pid).ifPresent(handles::add);
    }

    /** Reads one line of the process's stdout, failing the test after the timeout. */
    public static String readLine(Process p, Duration timeout) {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return r.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            String s = line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (s == null) {
                throw new AssertionError("process " + p.pid() + " closed stdout before printing a line");
            }
            return s;
        } catch (TimeoutException e) {
            throw new AssertionError("no line from process " + p.pid() + " within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    /** Polls until the condition holds, failing after the timeout. */
    public static void await(Duration timeout, String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long sleep = 5;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            sleep = Math.min(100, sleep * 2);
        }
    }

    /** Ends every process started or adopted here, by pid, and waits for the direct children. */
    @Override
    public synchronized void close() {
        for (ProcessHandle h : handles) {
            h.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        handles.clear();
        processes.clear();
    }
}
