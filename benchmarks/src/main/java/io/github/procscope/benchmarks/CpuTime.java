package io.github.procscope.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's CPU time from {@code /proc/PID/stat}: its user and system time, in clock ticks. */
final class CpuTime {
    private CpuTime() {
    }

    /** The clock ticks per second of {@code /proc/PID/stat} ({@code USER_HZ}, 100 on every Linux architecture). */
    static final long TICKS_PER_SECOND = 100;

    /**
     * @param pid a live process
     * @return {@code utime + stime} of it (fields 14 and 15), in clock ticks
     */
    static long ticksOf(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ticks(stat);
    }

    /**
     * @param stat the text of a {@code /proc/PID/stat}
     * @return its {@code utime + stime}
     */
    static long ticks(String stat) {
        // The fields after the command name, which ends at the last ')': state is field 3, utime 14, stime 15.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
        return Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
    }
}
