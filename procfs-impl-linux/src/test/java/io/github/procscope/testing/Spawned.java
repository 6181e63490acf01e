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
    private final List<Long> nativeChildren = new ArrayList<>();
    private static final Object NATIVE_LOCK = new Object();
    private static jnr.posix.POSIX posix;

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

    /**
     * @return a builder for a JVM running {@code mainClass} with this JVM's class path. On JDK 22+ it is granted
     *         native access ({@code --enable-native-access=ALL-UNNAMED}), as the tool's launcher and jar manifest
     *         grant it and as the README tells a consumer to, so that its output holds no JVM warning
     */
    /**
     * The options that keep a child JVM of a test from warning about native access: native calls granted (JDK 22+),
     * and {@code sun.misc.Unsafe}'s memory access allowed for jffi (JDK 24+ warns once per JVM; the system property
     * is what its flag sets, and JDKs before it ignore the property).
     */
    public static final List<String> NATIVE_OPTIONS = Runtime.version().feature() >= 22
            ? List.of("--enable-native-access=ALL-UNNAMED", "-Dsun.misc.unsafe.memory.access=allow") : List.of();

    /**
     * @param command a command
     * @return the command run with every signal at its default disposition, whatever this JVM inherited (a build run
     *         under {@code nohup} ignores HUP, one started as a background job of a shell INT and QUIT, and a child
     *         inherits what is ignored): coreutils' {@code env --default-signal}
     */
    public static List<String> withDefaultSignals(List<String> command) {
        List<String> out = new ArrayList<>(List.of("env", "--default-signal"));
        out.addAll(command);
        return out;
    }

    public static ProcessBuilder javaCommand(List<String> jvmOptions, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Xshare:auto");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(NATIVE_OPTIONS);
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

    /** One reader per process, so that lines buffered by one call are there for the next. */
    private static final java.util.Map<Process, BufferedReader> READERS = new java.util.WeakHashMap<>();

    /**
     * Runs a blocking task on a daemon thread of its own: the common fork-join pool may have a single worker (on
     * JDK 25 with two CPUs), which a test's other blocking task can hold.
     */
    public static void ownThread(Runnable task) {
        Thread t = new Thread(task, "spawned-reader");
        t.setDaemon(true);
        t.start();
    }

    /** Reads one line of the process's stdout, failing the test after the timeout. */
    public static String readLine(Process p, Duration timeout) {
        BufferedReader r;
        synchronized (READERS) {
            r = READERS.computeIfAbsent(p, k -> new BufferedReader(
                    new InputStreamReader(k.getInputStream(), StandardCharsets.UTF_8)));
        }
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return r.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, Spawned::ownThread);
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

    /**
     * Polls a file that a process writes (see {@link #startNative}) until a line matches.
     *
     * @return the first matching line
     */
    public static String awaitLineInFile(java.nio.file.Path file, Duration timeout,
                                         java.util.function.Predicate<String> match) {
        String[] found = new String[1];
        await(timeout, "a matching line in " + file, () -> {
            try {
                if (!java.nio.file.Files.exists(file)) {
                    return false;
                }
                for (String line : java.nio.file.Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (match.test(line)) {
                        found[0] = line;
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return found[0];
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

    /**
     * Starts a command as a child that the JDK does not track: {@code posix_spawnp(3)} through jnr-posix.
     * No JDK reaper waits for it, so it stays a zombie after it ends until {@link #reapNative} (or
     * {@link #close()}) collects its raw wait status; that is how a test sees "exited 143" apart from
     * "killed by SIGTERM", which {@link Process#exitValue()} folds together.
     *
     * @param stdout  file that receives the child's stdout and stderr (created or truncated)
     * @param command the program (looked up on PATH) and its arguments
     * @return the child's pid
     */
    public synchronized long startNative(java.nio.file.Path stdout, List<String> command) {
        List<String> env = new ArrayList<>();
        System.getenv().forEach((k, v) -> env.add(k + "=" + v));
        int flags = 01 | 0100 | 01000; // O_WRONLY | O_CREAT | O_TRUNC
        long pid = posix().posix_spawnp(command.get(0), List.of(
                jnr.posix.SpawnFileAction.open("/dev/null", 0, 0, 0), // stdin: not this JVM's
                jnr.posix.SpawnFileAction.open(stdout.toString(), 1, flags, 0644),
                jnr.posix.SpawnFileAction.dup(1, 2)), command, env);
        if (pid <= 0) {
            throw new AssertionError("posix_spawnp failed for " + command + ": errno " + posix().errno());
        }
        nativeChildren.add(pid);
        return pid;
    }

    /**
     * Waits for a child from {@link #startNative} to end and reaps it.
     *
     * @return its raw wait status (as {@code waitpid(2)} stores it)
     */
    public synchronized int reapNative(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int[] status = new int[1];
        while (true) {
            int r = posix().waitpid(pid, status, 1); // WNOHANG
            if (r == pid) {
                nativeChildren.remove(Long.valueOf(pid));
                return status[0];
            }
            if (r < 0) {
                throw new AssertionError("waitpid(" + pid + ") failed: errno " + posix().errno());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("child " + pid + " did not end within " + timeout);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static jnr.posix.POSIX posix() {
        synchronized (NATIVE_LOCK) {
            if (posix == null) {
                posix = jnr.posix.POSIXFactory.getNativePOSIX();
            }
            return posix;
        }
    }

    /**
     * Ends every process started or adopted here, by pid, and waits for each to be gone (an adopted process too:
     * one that still holds a file open, such as a log on a file system the test unmounts next, must not outlive
     * the close).
     */
    @Override
    public synchronized void close() {
        for (ProcessHandle h : handles) {
            h.destroyForcibly();
        }
        for (ProcessHandle h : handles) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // still there after 10 s: the test that owned it sees it, if it cares
            }
        }
        for (Long pid : new ArrayList<>(nativeChildren)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            try {
                reapNative(pid, Duration.ofSeconds(10));
            } catch (AssertionError e) {
                // reported by the test that owned it, if any
            }
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
