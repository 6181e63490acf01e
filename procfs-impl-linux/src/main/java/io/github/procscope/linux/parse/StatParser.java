package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalSet;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.KernelConstants;

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
 *
 * <p>Every field is read as a number of the kernel's 64-bit types, -2^63 to 2^64-1, and then held to what the
 * field can mean; a number outside that is an error naming the field and the number, never "not a number" and
 * never a wrapped value. Per field ({@code fs/proc/array.c} prints each with a sign or without):
 * <ul>
 * <li>tick counts (14-17, 42-44) are exact {@code Duration}s over the whole unsigned range: the kernel holds
 *     them unsigned; it prints cutime, cstime and cguest_time (16, 17, 44) with a sign, so a negative number
 *     there is the unsigned count with the same 64 bits (-2^63 is 2^63 ticks);</li>
 * <li>addresses (26-30, 45-51), wchan (35), the flags word (9) and the signal masks (31-34) are bits: up to
 *     2^64-1, held as the {@code long} with those bits (an address at or above 2^63 is a negative {@code long};
 *     read it with {@link Long#toUnsignedString(long)} or {@link Long#toHexString(long)});</li>
 * <li>rsslim (25) is empty at 2^64-1 ({@code RLIM_INFINITY}) and at or above 2^63 bytes, which a process may
 *     set ({@code setrlimit} takes any value) but no address space reaches: no limit in effect;</li>
 * <li>counts and sizes (10-13, 22-24, 36, 37) are {@code long}s: at or above 2^63 is an error naming the field;
 *     itrealvalue (21) takes any signed value;</li>
 * <li>ids, priorities, thread and CPU numbers, the policy and exit code (4-8, 18-20, 38-41, 52) are held to
 *     their kernel ranges.</li>
 * </ul>
 * A negative number in a field the kernel prints without a sign is an error naming the field.
 */
public final class StatParser {
    /** The fields every supported kernel prints (through {@code policy}, field 41). */
    static final int REQUIRED_FIELDS = 41;
    /** All fields of current kernels. */
    public static final int ALL_FIELDS = 52;

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
     * @throws io.github.procscope.api.core.ProcfsParseException if the content is not a stat line
     */
    public static ProcessStat parse(Path source, byte[] buf, int len, KernelConstants k) {
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
    public static ProcessStat parse(ByteCursor.Source source, byte[] buf, int len, KernelConstants k, long[] f) {
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

        // Fields 4..52: parsed in order into a fixed array; field n is at index n, as its 64 bits.
        Arrays.fill(f, 0L);
        int count = 3;
        while (count < ALL_FIELDS && c.skipIf(' ')) {
            count++;
            int at = c.position();
            long v = c.wideDecimal();
            if (c.wasNegative()) {
                if (!isSigned(count)) {
                    throw c.failAt(at, NAMES[count] + " (field " + count + ") is negative, which the kernel never"
                            + " prints there: " + v);
                }
            } else if (v < 0 && !isUnsigned64(count)) {
                throw c.failAt(at, NAMES[count] + " (field " + count + ") out of range: " + Long.toUnsignedString(v));
            }
            if (isInt(count) && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
                throw c.failAt(at, NAMES[count] + " (field " + count + ") out of range: " + v);
            }
            f[count] = v;
        }
        if (count < REQUIRED_FIELDS) {
            throw c.fail("expected at least " + REQUIRED_FIELDS + " fields, found " + count);
        }
        if (!c.atLineEnd() && c.peek() != ' ') {
            throw c.fail("unexpected character after field " + count);
        }
        if (f[24] > Long.MAX_VALUE / k.pageSizeBytes()) {
            throw c.fail("rss (field 24) out of range: " + f[24] + " pages of " + k.pageSizeBytes() + " bytes");
        }
        checkRanges(c, f, count);

        return new ProcessStat(
                pid, comm, state,
                // pgrp and session are -1 for a task past exit_notify (seen on live kernels): none, so 0.
                f[4], Math.max(f[5], 0), Math.max(f[6], 0), (int) f[7], f[8] < 0 ? OptionalLong.empty() : OptionalLong.of(f[8]), f[9],
                f[10], f[11], f[12], f[13],
                k.ticks(f[14]), k.ticks(f[15]), k.ticks(f[16]), k.ticks(f[17]),
                f[18], (int) f[19], (int) f[20], f[21], f[22], f[23], k.pages(f[24]),
                f[25] < 0 ? OptionalLong.empty() : OptionalLong.of(f[25]), // 2^63 and up: no limit in effect
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
     * start before boot or a nice of 40: ids below their range, nice outside -20..19, a negative thread count
     * or CPU number. (Numbers beyond what a field's type holds were refused as they were read.)
     */
    private static void checkRanges(ByteCursor c, long[] f, int count) {
        range(c, f, 4, 0, Integer.MAX_VALUE);
        range(c, f, 5, -1, Integer.MAX_VALUE);
        range(c, f, 6, -1, Integer.MAX_VALUE);
        range(c, f, 8, -1, Integer.MAX_VALUE);
        range(c, f, 18, -101, 39);
        range(c, f, 19, -20, 19);
        range(c, f, 20, 0, Integer.MAX_VALUE);
        range(c, f, 38, -1, 255);
        range(c, f, 39, 0, Integer.MAX_VALUE);
        range(c, f, 40, 0, 99);
        range(c, f, 41, 0, 255);
    }

    private static void range(ByteCursor c, long[] f, int field, long min, long max) {
        if (f[field] < min || f[field] > max) {
            throw c.fail(NAMES[field] + " (field " + field + ") out of range: " + f[field]);
        }
    }

    /** The fields' names in {@code proc(5)}, by number. */
    static final String[] NAMES = {null, "pid", "comm", "state", "ppid", "pgrp", "session", "tty_nr", "tpgid",
        "flags", "minflt", "cminflt", "majflt", "cmajflt", "utime", "stime", "cutime", "cstime", "priority", "nice",
        "num_threads", "itrealvalue", "starttime", "vsize", "rss", "rsslim", "startcode", "endcode", "startstack",
        "kstkesp", "kstkeip", "signal", "blocked", "sigignore", "sigcatch", "wchan", "nswap", "cnswap",
        "exit_signal", "processor", "rt_priority", "policy", "delayacct_blkio_ticks", "guest_time", "cguest_time",
        "start_data", "end_data", "start_brk", "arg_start", "arg_end", "env_start", "env_end", "exit_code"};

    /**
     * Fields the kernel prints with a sign ({@code seq_put_decimal_ll}): ppid, pgrp, session, tty_nr, tpgid (4-8),
     * cutime and cstime (16, 17), priority, nice, num_threads (18-20), exit_signal, processor (38, 39), cguest_time
     * (44) and exit_code (52); and itrealvalue (21), taken with a sign too (it is always 0). Every other field is
     * printed unsigned, where a minus sign is damage.
     */
    private static boolean isSigned(int field) {
        return (SIGNED >>> field & 1) != 0;
    }

    private static final long SIGNED = bits(4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 38, 39, 44, 52);

    /**
     * Fields held as their 64 bits, so that the kernel's whole unsigned range is a value: the flags word (9), tick
     * counts (14-17, 42-44), rsslim (25), addresses, signal masks and wchan (26-35, 45-51).
     */
    private static boolean isUnsigned64(int field) {
        return (UNSIGNED_64 >>> field & 1) != 0;
    }

    private static final long UNSIGNED_64 = bits(9, 14, 15, 16, 17, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 42,
            43, 44, 45, 46, 47, 48, 49, 50, 51);

    /** Fields held as {@code int}: tty_nr, nice, num_threads, exit_signal, processor, rt_priority, policy, exit_code. */
    private static boolean isInt(int field) {
        return (INT >>> field & 1) != 0;
    }

    private static final long INT = bits(7, 19, 20, 38, 39, 40, 41, 52);

    /** @return a mask with the bit of each field number set (every number is below 64) */
    private static long bits(int... fields) {
        long mask = 0;
        for (int f : fields) {
            mask |= 1L << f;
        }
        return mask;
    }

    private static OptionalLong address(long v) {
        return v == 0 ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
