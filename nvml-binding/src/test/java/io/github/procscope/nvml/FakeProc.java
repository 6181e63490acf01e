package io.github.procscope.nvml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a small procfs tree for tests, in {@code proc(5)}'s formats: {@code stat} (with {@code btime}),
 * {@code uptime}, and per process a 52-field {@code PID/stat} and {@code PID/fd/N} links.
 */
final class FakeProc {
    private final Path root;

    FakeProc(Path root) {
        this.root = root;
        write("stat", "cpu  1 2 3 4 5 6 7 0 0 0\nbtime 1700000000\nprocesses 5000\nprocs_running 1\nprocs_blocked 0\n");
        write("uptime", "86400.00 100000.00\n");
    }

    Path root() {
        return root;
    }

    /** Adds a process started 1000 s after boot. */
    FakeProc process(long pid, String comm, long ppid, long pgrp, long sid) {
        StringBuilder sb = new StringBuilder();
        sb.append(pid).append(" (").append(comm).append(") S ").append(ppid).append(' ').append(pgrp).append(' ')
                .append(sid).append(" 0 -1 4194560");
        // minflt cminflt majflt cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
        sb.append(" 100 0 0 0 50 10 0 0 20 0 1 0");
        // starttime vsize rss
        sb.append(" 100000 104857600 2560");
        // rsslim .. exit_code (fields 25 to 52)
        for (int f = 25; f <= 52; f++) {
            sb.append(f == 25 ? " 18446744073709551615" : " 0");
        }
        sb.append('\n');
        write(pid + "/stat", sb.toString());
        try {
            Files.createDirectories(root.resolve(pid + "/fd"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Adds an open descriptor: a link {@code PID/fd/N -> target}. */
    FakeProc fd(long pid, int fd, String target) {
        try {
            Files.createSymbolicLink(root.resolve(pid + "/fd/" + fd), Path.of(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    private void write(String relative, String content) {
        try {
            Path file = root.resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
