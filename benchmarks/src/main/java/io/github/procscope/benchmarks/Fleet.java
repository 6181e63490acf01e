package io.github.procscope.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * N idle processes for the benchmarks to read: the children of one {@code idle fleet N} process (see
 * {@code src/main/c/idle.c}), each waiting in {@code pause()}. {@link #close()} ends every child by its
 * pid, waits until each is gone from {@code /proc}, then ends the parent by its pid and waits for it.
 */
final class Fleet implements AutoCloseable {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Process parent;
    private final long[] pids;
    private boolean closed;

    private Fleet(Process parent, long[] pids) {
        this.parent = parent;
        this.pids = pids;
    }

    /**
     * Starts a fleet with the helper of {@link NativeParts#idle()}.
     *
     * @param n how many idle processes
     * @return the fleet, every process verified present in {@code /proc}
     * @throws IllegalStateException if the helper is missing (it is compiled by {@code benchmarks/run.sh})
     *                               or a process did not start
     */
    static Fleet start(int n) {
        return start(NativeParts.idle(), n);
    }

    /**
     * @param idle the compiled {@code idle} helper
     * @param n    how many idle processes
     * @return the fleet, every process verified present in {@code /proc}
     */
    static Fleet start(Path idle, int n) {
        if (n < 0) {
            throw new IllegalArgumentException("fleet size " + n);
        }
        Process parent = Helper.start(List.of(idle.toString(), "fleet", Integer.toString(n)));
        List<Long> started = new ArrayList<>(n);
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(),
                    StandardCharsets.US_ASCII));
            for (String line = out.readLine(); !"ready".equals(line); line = out.readLine()) {
                if (line == null) {
                    throw new IllegalStateException("the fleet helper ended after starting " + started.size()
                            + " of " + n + " processes (exit status " + parent.waitFor() + "; see its message above)");
                }
                started.add(Long.parseLong(line.strip()));
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            new Fleet(parent, started.stream().mapToLong(Long::longValue).toArray()).close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e instanceof RuntimeException r ? r : new IllegalStateException("starting the fleet failed", e);
        }
        Fleet fleet = new Fleet(parent, started.stream().mapToLong(Long::longValue).toArray());
        for (long pid : fleet.pids) {
            if (!Files.isDirectory(Path.of("/proc", Long.toString(pid)))) {
                fleet.close();
                throw new IllegalStateException("fleet process " + pid + " is not in /proc");
            }
        }
        return fleet;
    }

    /** @return the idle processes' pids */
    long[] pids() {
        return pids.clone();
    }

    /** @return the pid of the process that forked them */
    long parentPid() {
        return parent.pid();
    }

    /** Ends every idle process by its pid, waits until each is gone, then ends the parent and waits for it. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Helper.endAll(pids);
        Helper.end(parent);
    }

    /** Starting and ending helper processes, always by pid. */
    static final class Helper {
        private Helper() {
        }

        /** @return the started process; its standard error goes to ours */
        static Process start(List<String> command) {
            try {
                return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + command, e);
            }
        }

        /** Kills each process by its pid (never a pid at or below 1), then waits until all are gone. */
        static void endAll(long[] pids) {
            for (long pid : pids) {
                if (pid <= 1) {
                    throw new IllegalArgumentException("refusing to signal pid " + pid);
                }
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            long deadline = System.nanoTime() + WAIT_NANOS;
            for (long pid : pids) {
                Path dir = Path.of("/proc", Long.toString(pid));
                while (Files.exists(dir) && System.nanoTime() < deadline) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (Files.exists(dir)) {
                    throw new IllegalStateException("process " + pid + " is still there after SIGKILL");
                }
            }
        }

        /** Kills a child process by its pid and waits for it. */
        static void end(Process process) {
            process.destroyForcibly();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("process " + process.pid() + " did not end after SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                process.getOutputStream().close();
                process.getInputStream().close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
