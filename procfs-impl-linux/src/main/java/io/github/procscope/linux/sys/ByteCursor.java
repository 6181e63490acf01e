package io.github.procscope.linux.sys;

import io.github.procscope.api.core.ProcfsParseException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A lexer over the bytes of one kernel file: numbers, words and line ends, parsed in place without
 * regular expressions, splitting or intermediate strings. Every failure becomes a
 * {@link ProcfsParseException} naming the file and the line at the cursor.
 *
 * <p>Not thread-safe; short-lived (one per parse).
 */
public final class ByteCursor {
    /** Names a file for messages only, so that a caller reading thousands of files builds no path for each. */
    @FunctionalInterface
    public interface Source {
        /** @return the file's path */
        Path path();
    }

    private final Source source;
    private final byte[] buf;
    private final int end;
    private int pos;

    ByteCursor(Path source, byte[] buf, int start, int end) {
        this(() -> source, buf, start, end);
    }

    public ByteCursor(Path source, byte[] buf, int length) {
        this(source, buf, 0, length);
    }

    /** A cursor whose file is named only if a message needs it. */
    public ByteCursor(Source source, byte[] buf, int length) {
        this(source, buf, 0, length);
    }

    public ByteCursor(Source source, byte[] buf, int start, int end) {
        this.source = source;
        this.buf = buf;
        this.pos = start;
        this.end = end;
    }

    public int position() {
        return pos;
    }

    public void position(int p) {
        pos = p;
    }

    public int end() {
        return end;
    }

    public byte[] buffer() {
        return buf;
    }

    Path source() {
        return source.path();
    }

    public boolean atEnd() {
        return pos >= end;
    }

    /** @return the byte at the cursor, or -1 at the end */
    public int peek() {
        return pos < end ? buf[pos] & 0xff : -1;
    }

    /** @return the byte at the cursor, advancing past it */
    public int next() {
        if (pos >= end) {
            throw fail("unexpected end of data");
        }
        return buf[pos++] & 0xff;
    }

    /** Consumes {@code b}, or fails. */
    public void expect(char b) {
        if (pos >= end || buf[pos] != (byte) b) {
            throw fail("expected '" + printable(b) + "'");
        }
        pos++;
    }

    /** Consumes {@code b} if it is at the cursor. */
    public boolean skipIf(char b) {
        if (pos < end && buf[pos] == (byte) b) {
            pos++;
            return true;
        }
        return false;
    }

    /** Skips spaces and tabs. */
    public void skipBlanks() {
        if (pos < end && (buf[pos] == ' ' || buf[pos] == '\t')) {
            pos = ByteScan.pastBlanks(buf, pos + 1, end);
        }
    }

    /** Moves past the next newline (or to the end). */
    public void nextLine() {
        pos = ByteScan.newline(buf, pos, end);
        if (pos < end) {
            pos++;
        }
    }

    /** @return whether the cursor is at a newline or the end */
    public boolean atLineEnd() {
        return pos >= end || buf[pos] == '\n';
    }

    /**
     * Parses an unsigned decimal number. Values above {@link Long#MAX_VALUE} up to 2^64-1 (the kernel's
     * unsigned longs) are returned as their two's-complement bits.
     */
    public long unsignedDecimal() {
        int start = pos;
        long v = leadingDigits();
        while (pos < end) {
            int d = buf[pos] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            if (Long.compareUnsigned(v, 0x1999_9999_9999_9999L) > 0) {
                throw fail("number larger than 2^64-1");
            }
            long next = v * 10 + d;
            if (Long.compareUnsigned(next, v * 10) < 0) {
                throw fail("number larger than 2^64-1");
            }
            v = next;
            pos++;
        }
        if (pos == start) {
            throw fail("expected a number");
        }
        return v;
    }

    /**
     * Accumulates up to 18 digits at the cursor, which cannot overflow, so the common path checks nothing per
     * digit; the cursor stops after them. Callers continue with checked digits.
     */
    private long leadingDigits() {
        int fast = Math.min(end, pos + 18);
        long v = 0;
        int p = pos;
        while (p < fast) {
            int d = buf[p] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
            p++;
        }
        pos = p;
        return v;
    }

    /**
     * Parses an unsigned decimal number that must be at most {@code max}: a count or size the kernel keeps in
     * an unsigned long but that never reaches 2^63 (a value there is damage, not a number to show as negative).
     *
     * @param max  the largest value accepted
     * @param what the field, for the message
     */
    public long unsignedAtMost(long max, String what) {
        int at = pos;
        long v = unsignedDecimal();
        if (v < 0 || v > max) {
            throw failAt(at, what + " out of range: " + Long.toUnsignedString(v));
        }
        return v;
    }

    /**
     * Parses a signed decimal number that fits a {@code long}: the whole range, -2^63 (which has no positive
     * counterpart) included.
     */
    public long decimal() {
        int at = pos;
        boolean negative = skipIf('-');
        long v = unsignedDecimal();
        if (negative ? Long.compareUnsigned(v, Long.MIN_VALUE) > 0 : v < 0) {
            throw failAt(at, "number out of range: " + (negative ? "-" : "") + Long.toUnsignedString(v));
        }
        return negative ? -v : v;
    }

    /** Whether the last {@link #wideDecimal()} read a minus sign. */
    private boolean wideNegative;

    /**
     * Parses a decimal number of the kernel's 64-bit types, signed or unsigned: -2^63 to 2^64-1. The result is
     * the number's 64 bits (two's complement); {@link #wasNegative()} then tells a negative number from an
     * unsigned one at or above 2^63, whose bits look alike. The caller decides, per field, what the number
     * means and whether it is in the field's range.
     */
    public long wideDecimal() {
        int at = pos;
        wideNegative = skipIf('-');
        long v = unsignedDecimal();
        if (wideNegative && Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
            throw failAt(at, "number out of range: -" + Long.toUnsignedString(v));
        }
        return wideNegative ? -v : v;
    }

    /** @return whether the last {@link #wideDecimal()} was negative (its bits are then a {@code long}'s) */
    public boolean wasNegative() {
        return wideNegative;
    }

    /** Parses a signed decimal number that fits an {@code int}. */
    public int decimalInt() {
        long v = decimal();
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw fail("number out of range");
        }
        return (int) v;
    }

    /** Parses up to 16 hexadecimal digits. */
    public long hex() {
        int start = pos;
        long v = 0;
        while (pos < end) {
            int d = Character.digit(buf[pos], 16);
            if (d < 0) {
                break;
            }
            if (pos - start >= 16) {
                throw fail("hexadecimal number longer than 64 bits");
            }
            v = (v << 4) | d;
            pos++;
        }
        if (pos == start) {
            throw fail("expected a hexadecimal number");
        }
        return v;
    }

    /** @return the bytes up to the next blank, newline or end, as an ISO-8859-1 string */
    public String word() {
        int start = pos;
        while (pos < end && buf[pos] != ' ' && buf[pos] != '\t' && buf[pos] != '\n') {
            pos++;
        }
        return new String(buf, start, pos - start, StandardCharsets.ISO_8859_1);
    }

    /** @return the rest of the line (the newline not included, and not consumed) */
    public String restOfLine() {
        int start = pos;
        while (pos < end && buf[pos] != '\n') {
            pos++;
        }
        return new String(buf, start, pos - start, StandardCharsets.ISO_8859_1);
    }

    /**
     * @return a parse exception naming the file and the line around the cursor
     */
    public ProcfsParseException fail(String reason) {
        return failAt(pos, reason);
    }

    public ProcfsParseException failAt(int at, String reason) {
        int p = Math.max(0, Math.min(at, end));
        int ls = p;
        while (ls > 0 && buf[ls - 1] != '\n') {
            ls--;
        }
        int le = p;
        while (le < end && buf[le] != '\n') {
            le++;
        }
        String line = new String(buf, ls, le - ls, StandardCharsets.ISO_8859_1);
        return new ProcfsParseException(source(), line, reason + " at column " + (p - ls + 1));
    }

    /**
     * Decodes bytes as text the way the kernel's names are best read: ASCII directly, anything else as
     * UTF-8 with malformed sequences replaced.
     */
    public static String text(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] < 0) {
                return new String(b, from, to - from, StandardCharsets.UTF_8);
            }
        }
        return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static String printable(char c) {
        return c == '\n' ? "\\n" : c == '\t' ? "\\t" : String.valueOf(c);
    }
}
