package io.github.procscope.linux;

import io.github.procscope.api.ProcessStat;
import io.github.procscope.api.ProcessState;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalSet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/stat} and {@code /proc/PID/task/TID/stat}: all 52 fields of
 * {@code proc(5)}.
 *
 * <p>The command name (field 2) is printed raw between parentheses and may itself hold spaces,
 * parentheses and newlines, so it is taken from the first {@code (} to the <em>last</em> {@code )} of
 * the whole buffer. The fields after it are single-space separated and end at a newline; anything
 * after that newline is ignored. Fields 42 to 52 appeared in Linux 2.6.18 to 3.5 and are optional;
 * fewer than 41 fields is a parse error.
 */
final class StatParser {
    /** The fields every supported kernel prints (through {@code policy}, field 41). */
    static final int REQUIRED_FIELDS = 41;
    /** All fields of current kernels. */
    static final int ALL_FIELDS = 52;

    private static final ProcessState[] STATES = new ProcessState[128];

    static {
        for (char c = 0; c < 128; c++) {
            STATES[c] = ProcessState.fromLetter(c).orElse(null);
        }
    }

    private StatParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @param k      clock tick rate and page size
     * @return every field, typed
     * @throws io.github.procscope.api.ProcfsParseException if the content is not a stat line
     */
    static ProcessStat parse(Path source, byte[] buf, int len, KernelConstants k) {
        return parse(() -> source, buf, len, k);
    }

    /** As {@link #parse(Path, byte[], int, KernelConstants)}, the file named only if the content is bad. */
    static ProcessStat parse(ByteCursor.Source source, byte[] buf, int len, KernelConstants k) {
        return parse(source, buf, len, k, new long[ALL_FIELDS + 1]);
    }

    /**
     * As {@link #parse(ByteCursor.Source, byte[], int, KernelConstants)}, with a caller's scratch array of at
     * least {@code ALL_FIELDS + 1} longs, reused across the processes of a snapshot.
     */
    static ProcessStat parse(ByteCursor.Source source, byte[] buf, int len, KernelConstants k, long[] f) {
        int open = -1;
        for (int i = 0; i < len; i++) {
            if (buf[i] == '(') {
                open = i;
                break;
            }
        }
        int close = -1;
        for (int i = len - 1; i > open; i--) {
            if (buf[i] == ')') {
                close = i;
                break;
            }
        }
        ByteCursor c = new ByteCursor(source, buf, len);
        if (open < 0 || close < 0) {
            throw c.failAt(0, "no command name in parentheses");
        }
        long pid = c.decimal();
        if (pid <= 0) {
            throw c.failAt(0, "pid must be positive");
        }
        if (c.position() != open - 1 || buf[open - 1] != ' ') {
            throw c.failAt(c.position(), "expected \" (\" after the pid");
        }
        String comm = ByteCursor.text(buf, open + 1, close);
        c.position(close + 1);
        c.expect(' ');
        int letter = c.next();
        ProcessState state = letter < 128 ? STATES[letter] : null;
        if (state == null) {
            throw c.failAt(c.position() - 1, "unknown process state letter");
        }

        // Fields 4..52: parsed in order into a fixed array; field n is at index n.
        Arrays.fill(f, 0L);
        int count = 3;
        while (count < ALL_FIELDS && c.skipIf(' ')) {
            count++;
            long v = isSigned(count) ? c.decimal() : c.unsignedDecimal();
            if (isInt(count) && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
                throw c.fail("field " + count + " out of range");
            }
            f[count] = v;
        }
        if (count < REQUIRED_FIELDS) {
            throw c.fail("expected at least " + REQUIRED_FIELDS + " fields, found " + count);
        }
        if (!c.atLineEnd() && c.peek() != ' ') {
            throw c.fail("unexpected character after field " + count);
        }
        if (f[24] < 0 || f[24] > Long.MAX_VALUE / k.pageSizeBytes()) {
            throw c.fail("rss (field 24) out of range: " + Long.toUnsignedString(f[24]) + " pages");
        }
        checkRanges(c, f, count);

        return new ProcessStat(
                pid, comm, state,
                // pgrp and session are -1 for a task past exit_notify (seen on live kernels): none, so 0.
                f[4], Math.max(f[5], 0), Math.max(f[6], 0), (int) f[7], f[8] < 0 ? OptionalLong.empty() : OptionalLong.of(f[8]), f[9],
                f[10], f[11], f[12], f[13],
                k.ticks(f[14]), k.ticks(f[15]), k.ticks(f[16]), k.ticks(f[17]),
                f[18], (int) f[19], (int) f[20], f[21], f[22], f[23], k.pages(f[24]),
                f[25] == -1L ? OptionalLong.empty() : OptionalLong.of(f[25]),
                address(f[26]), address(f[27]), address(f[28]), address(f[29]), address(f[30]),
                SignalSet.fromMask(f[31]), SignalSet.fromMask(f[32]), SignalSet.fromMask(f[33]),
                SignalSet.fromMask(f[34]),
                f[35], f[36], f[37],
                f[38] >= 1 && f[38] <= Signal.MAX_NUMBER ? Optional.of(Signal.of((int) f[38])) : Optional.empty(),
                (int) f[39], (int) f[40], (int) f[41],
                count >= 42 ? Optional.of(k.ticks(f[42])) : Optional.<Duration>empty(),
                count >= 43 ? Optional.of(k.ticks(f[43])) : Optional.<Duration>empty(),
                count >= 44 ? Optional.of(k.ticks(f[44])) : Optional.<Duration>empty(),
                count >= 45 ? address(f[45]) : OptionalLong.empty(),
                count >= 46 ? address(f[46]) : OptionalLong.empty(),
                count >= 47 ? address(f[47]) : OptionalLong.empty(),
                count >= 48 ? address(f[48]) : OptionalLong.empty(),
                count >= 49 ? address(f[49]) : OptionalLong.empty(),
                count >= 50 ? address(f[50]) : OptionalLong.empty(),
                count >= 51 ? address(f[51]) : OptionalLong.empty(),
                count >= 52 && f[52] != 0 ? OptionalInt.of((int) f[52]) : OptionalInt.empty());
    }

    /**
     * Refuses values no kernel prints, so that damage shows as an error naming the field rather than as a
     * negative size or a start before boot: counts, sizes and times (unsigned longs in the kernel) at or above
     * 2^63, ids below their range, nice outside -20..19, a negative thread count or CPU number.
     */
    private static void checkRanges(ByteCursor c, long[] f, int count) {
        range(c, f, 4, 0, Integer.MAX_VALUE, "ppid");
        range(c, f, 5, -1, Integer.MAX_VALUE, "pgrp");
        range(c, f, 6, -1, Integer.MAX_VALUE, "session");
        range(c, f, 8, -1, Integer.MAX_VALUE, "tpgid");
        for (int n : QUANTITIES) {
            if (n <= count && f[n] < 0) {
                throw c.fail(NAMES[n] + " (field " + n + ") out of range: " + Long.toUnsignedString(f[n]));
            }
        }
        range(c, f, 18, -101, 39, "priority");
        range(c, f, 19, -20, 19, "nice");
        range(c, f, 20, 0, Integer.MAX_VALUE, "num_threads");
        range(c, f, 38, -1, 255, "exit_signal");
        range(c, f, 39, 0, Integer.MAX_VALUE, "processor");
        range(c, f, 40, 0, 99, "rt_priority");
        range(c, f, 41, 0, 255, "policy");
    }

    private static void range(ByteCursor c, long[] f, int field, long min, long max, String name) {
        if (f[field] < min || f[field] > max) {
            throw c.fail(name + " (field " + field + ") out of range: " + f[field]);
        }
    }

    /** Unsigned counts, sizes and times that never reach 2^63. */
    private static final int[] QUANTITIES = {10, 11, 12, 13, 14, 15, 16, 17, 22, 23, 36, 37, 42, 43, 44};
    private static final String[] NAMES = new String[ALL_FIELDS + 1];

    static {
        String[] n = {"minflt", "cminflt", "majflt", "cmajflt", "utime", "stime", "cutime", "cstime"};
        System.arraycopy(n, 0, NAMES, 10, n.length);
        NAMES[22] = "starttime";
        NAMES[23] = "vsize";
        NAMES[36] = "nswap";
        NAMES[37] = "cnswap";
        NAMES[42] = "delayacct_blkio_ticks";
        NAMES[43] = "guest_time";
        NAMES[44] = "cguest_time";
    }

    /**
     * Fields printed with a sign: tty_nr (7), tpgid (8), priority (18), nice (19), num_threads (20),
     * itrealvalue (21), exit_signal (38), processor (39), exit_code (52). Counters that can overflow
     * int but never go negative are unsigned.
     */
    private static boolean isSigned(int field) {
        switch (field) {
            case 4: case 5: case 6: case 7: case 8: case 18: case 19: case 20: case 21:
            case 38: case 39: case 40: case 41: case 52:
                return true;
            default:
                return false;
        }
    }

    /** Fields held as {@code int}: tty_nr, nice, num_threads, exit_signal, processor, rt_priority, policy, exit_code. */
    private static boolean isInt(int field) {
        switch (field) {
            case 7: case 19: case 20: case 38: case 39: case 40: case 41: case 52:
                return true;
            default:
                return false;
        }
    }

    private static OptionalLong address(long v) {
        return v == 0 ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
