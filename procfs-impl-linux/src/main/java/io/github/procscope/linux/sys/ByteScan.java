package io.github.procscope.linux.sys;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Searches within a byte array eight bytes at a time: the kernel's text files are mostly padding and values a
 * parser passes over (a status file's signal masks and CPU lists, a limits file's columns of blanks), and a loop
 * that looks at one byte at a time spends more there than on the values it reads. Each search reads the array
 * as little-endian {@code long}s and finds the first byte that matches in a word with the usual bit trick: for
 * {@code x = word ^ (b * 0x0101...01)}, {@code (x - 0x0101...01) & ~x & 0x8080...80} marks every byte of
 * {@code x} that is zero and perhaps some above one; its lowest mark is always the first zero byte. The last few
 * bytes are looked at one by one. Every method answers exactly what the obvious byte loop answers
 * ({@code ByteScanTest} compares them over generated arrays and every offset).
 */
public final class ByteScan {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGHS = 0x8080_8080_8080_8080L;
    private static final long LOWS = 0x7F7F_7F7F_7F7F_7F7FL;
    private static final long NEWLINES = '\n' * ONES;
    private static final long COLONS = ':' * ONES;
    private static final long SPACES = ' ' * ONES;

    private ByteScan() {
    }

    /** @return the index of the first {@code '\n'} in {@code buf[from, to)}, or {@code to} if there is none */
    public static int newline(byte[] buf, int from, int to) {
        int p = from;
        while (p + Long.BYTES <= to) {
            long word = (long) LONGS.get(buf, p);
            long marks = zeros(word ^ NEWLINES);
            if (marks != 0) {
                return p + (Long.numberOfTrailingZeros(marks) >>> 3);
            }
            p += Long.BYTES;
        }
        while (p < to && buf[p] != '\n') {
            p++;
        }
        return p;
    }

    /**
     * @return the index of the first {@code ':'} or {@code '\n'} in {@code buf[from, to)}, or {@code to} if there
     *         is neither
     */
    public static int colonOrNewline(byte[] buf, int from, int to) {
        int p = from;
        while (p + Long.BYTES <= to) {
            long word = (long) LONGS.get(buf, p);
            long marks = zeros(word ^ NEWLINES) | zeros(word ^ COLONS);
            if (marks != 0) {
                return p + (Long.numberOfTrailingZeros(marks) >>> 3);
            }
            p += Long.BYTES;
        }
        while (p < to && buf[p] != '\n' && buf[p] != ':') {
            p++;
        }
        return p;
    }

    /**
     * @return the index of the first byte in {@code buf[from, to)} that is neither {@code ' '} nor {@code '\t'}, or
     *         {@code to} if every one is
     */
    public static int pastBlanks(byte[] buf, int from, int to) {
        int p = from;
        while (true) {
            while (p + Long.BYTES <= to) {
                long x = (long) LONGS.get(buf, p) ^ SPACES;
                // the high bit of each byte of x that is not zero: exact, since no byte carries into the next
                long marks = (((x & LOWS) + LOWS) | x) & HIGHS;
                if (marks != 0) {
                    p += Long.numberOfTrailingZeros(marks) >>> 3;
                    break;
                }
                p += Long.BYTES;
            }
            while (p < to && buf[p] == ' ') {
                p++;
            }
            if (p < to && buf[p] == '\t') {
                p++; // rare in the kernel's files: go on past it
                continue;
            }
            return p;
        }
    }

    /** The high bit of each zero byte of {@code x}, and perhaps of some above one; the lowest is exact. */
    private static long zeros(long x) {
        return (x - ONES) & ~x & HIGHS;
    }
}
