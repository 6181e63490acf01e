package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.util.Optional;

/**
 * Parser of {@code /proc/PID/wchan} and {@code /proc/PID/task/TID/wchan} ({@code proc_pid_wchan} in
 * {@code fs/proc/base.c}): the name of the kernel function the task sleeps in, without a newline, or {@code 0}
 * when it runs or the kernel withholds the name (to a reader that may not ptrace the task).
 */
public final class WchanParser {
    private WchanParser() {
    }

    /**
     * @param buf the file's bytes
     * @param len how many are valid
     * @return the function's name; empty for {@code 0}, an empty file or one of blanks only
     */
    public static Optional<String> parse(byte[] buf, int len) {
        int from = 0;
        int to = len;
        while (from < to && isBlank(buf[from])) {
            from++;
        }
        while (to > from && isBlank(buf[to - 1])) {
            to--;
        }
        if (from == to || to - from == 1 && buf[from] == '0') {
            return Optional.empty();
        }
        return Optional.of(ByteCursor.text(buf, from, to));
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == 0;
    }
}
