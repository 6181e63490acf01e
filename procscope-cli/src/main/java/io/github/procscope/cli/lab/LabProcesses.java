package io.github.procscope.cli.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Every process the lab starts, ended by its own pid when the lab finishes, fails, or is interrupted
 * (a shutdown hook covers Ctrl-C). Ending goes through {@link ProcessHandle}, which checks the pid's
 * start time, so a recycled pid is never signalled.
 */
final class LabProcesses implements AutoCloseable {
    private final List<ProcessHandle> handles = new ArrayList<>();
    private final List<Process> children = new ArrayList<>();
    private final Thread hook = new Thread(this::endAll, "lab-cleanup");

    LabProcesses() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts a command with piped stdin/stdout; stderr is discarded. */
    synchronized Process start(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            children.add(p);
            handles.add(p.toHandle());
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Starts a JVM running a class of this jar (or class path). */
    Process startJava(Class<?> main, String... jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.addAll(List.of(jvmOptions));
        // A helper that binds native code (step 5's mmap through jnr-ffi) is granted what it uses, so that a
        // JDK 22+ prints no warning into the lab's output: native access, and on 23+ the sun.misc.Unsafe
        // memory access jffi still makes.
        int feature = Runtime.version().feature();
        if (feature >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        if (feature >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        String stubDir = System.getProperty("jffi.boot.library.path");
        if (stubDir != null) {
            cmd.add("-Djffi.boot.library.path=" + stubDir); // the stub this JVM loaded: nothing to extract
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        return start(cmd);
    }

    /** Registers a process started by one of ours (an orphan), so that it is ended too. */
    synchronized void adopt(long pid) {
        ProcessHandle.of(pid).ifPresent(handles::add);
    }

    /** @return the next line the process prints, waiting at most 30 seconds */
    static String readLine(Process p) {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            while (!r.ready()) {
                if (!p.isAlive() && !r.ready()) {
                    throw new IllegalStateException("helper " + p.pid() + " ended before printing a line");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("helper " + p.pid() + " printed nothing within 30 s");
                }
                Thread.sleep(10);
            }
            String line = r.readLine();
            if (line == null) {
                throw new IllegalStateException("helper " + p.pid() + " closed its output");
            }
            return line.strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private synchronized void endAll() {
        for (ProcessHandle h : handles) {
            h.destroyForcibly();
        }
        for (Process p : children) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        handles.clear();
        children.clear();
    }

    @Override
    public void close() {
        endAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook is running or ran
        }
    }
}
