package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ResourceLimit;
import io.github.procscope.api.process.ResourceLimits;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ByteScan;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/limits} ({@code proc_pid_limits} in {@code fs/proc/base.c}): a heading line, then one
 * line per limit printed as {@code "%-25s %-20s %-20s %-10s\n"}: the name (which holds spaces) padded to 25
 * columns, the soft and hard limits (a decimal number or {@code unlimited}), and the unit, left out for the
 * limits that have none:
 * <pre>
 * Limit                     Soft Limit           Hard Limit           Units
 * Max open files            1024                 524288               files
 * Max nice priority         0                    0
 * </pre>
 * A value at or above 2^63 (up to 2^64-2; {@code RLIM_INFINITY} is printed as {@code unlimited}) limits nothing a
 * machine has, and is read as unlimited.
 */
public final class LimitsParser {
    /** The width of the name column, padding included, before the separating space. */
    private static final int NAME_WIDTH = 25;

    private LimitsParser() {
    }

    static ResourceLimits parse(Path source, byte[] buf, int len) {
        return parse(new ByteCursor(source, buf, len));
    }

    /**
     * @param source names the file in messages (a native reader's source names it without building a path)
     * @return every limit of the file
     * @throws io.github.procscope.api.core.ProcfsParseException if the file is not the kernel's format
     */
    public static ResourceLimits parse(ByteCursor.Source source, byte[] buf, int len) {
        return parse(new ByteCursor(source, buf, len));
    }

    private static ResourceLimits parse(ByteCursor c) {
        List<ResourceLimit> limits = new ArrayList<>(16);
        scan(c, (b, nameStart, nameEnd, soft, hard, unitStart, unitEnd) -> {
            String name = ByteCursor.text(b, nameStart, nameEnd).strip();
            if (name.isEmpty()) {
                throw c.failAt(nameStart, "a limit without a name");
            }
            limits.add(new ResourceLimit(name, optional(soft), optional(hard), unitStart < 0 ? Optional.empty()
                    : Optional.of(new String(b, unitStart, unitEnd - unitStart, StandardCharsets.ISO_8859_1))));
            return true;
        });
        return new ResourceLimits(limits);
    }

    /**
     * The soft limit on open descriptors alone ({@link ResourceLimits#OPEN_FILES}), checked as strictly as
     * {@link #parse} checks the whole file but without making a record or a string per line: what a scrape reads
     * for every process. The lines after it are not looked at.
     *
     * @param source names the file in messages
     * @return the soft limit; empty if it is unlimited or the file has no such line
     * @throws io.github.procscope.api.core.ProcfsParseException if the file, up to that line, is not the kernel's
     *         format
     */
    public static OptionalLong openFilesSoft(ByteCursor.Source source, byte[] buf, int len) {
        long[] found = {UNLIMITED};
        scan(new ByteCursor(source, buf, len), (b, nameStart, nameEnd, soft, hard, unitStart, unitEnd) -> {
            if (!isOpenFiles(b, nameStart, nameEnd)) {
                return true;
            }
            found[0] = soft;
            return false;
        });
        return optional(found[0]);
    }

    /** What {@link #scan} hands on of each limit line; a value of {@link #UNLIMITED} is unlimited. */
    @FunctionalInterface
    private interface LimitLine {
        /**
         * @param unitStart where the unit starts, or -1 where the line has none
         * @return whether to go on with the next line
         */
        boolean line(byte[] buf, int nameStart, int nameEnd, long soft, long hard, int unitStart, int unitEnd);
    }

    /** A value of {@link LimitLine}: unlimited (the kernel's {@code unlimited}, or a value at or above 2^63). */
    private static final long UNLIMITED = -1;

    private static final byte[] OPEN_FILES = ResourceLimits.OPEN_FILES.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UNLIMITED_WORD = "unlimited".getBytes(StandardCharsets.US_ASCII);

    /** Checks the heading and each limit line, handing each on until the sink says stop or the file ends. */
    private static void scan(ByteCursor c, LimitLine sink) {
        byte[] buf = c.buffer();
        if (c.atEnd()) {
            throw c.fail("no heading line");
        }
        int headingStart = c.position();
        int headingEnd = wordEnd(c);
        if (!matches(buf, headingStart, headingEnd, LIMIT_WORD)) {
            throw c.failAt(headingStart, "expected the heading line, starting with Limit");
        }
        c.nextLine();
        while (!c.atEnd()) {
            int start = c.position();
            int nameEnd = ByteScan.newline(buf, start, Math.min(c.end(), start + NAME_WIDTH));
            if (nameEnd - start < NAME_WIDTH) {
                throw c.fail("a limit line shorter than its name column");
            }
            int nameStart = start;
            int trimmedEnd = nameEnd;
            while (nameStart < trimmedEnd && isBlank(buf[nameStart])) {
                nameStart++;
            }
            while (trimmedEnd > nameStart && isBlank(buf[trimmedEnd - 1])) {
                trimmedEnd--;
            }
            if (nameStart == trimmedEnd) {
                throw c.fail("a limit without a name");
            }
            c.position(nameEnd);
            c.skipBlanks();
            long soft = value(c);
            c.skipBlanks();
            long hard = value(c);
            c.skipBlanks();
            int unitStart = -1;
            int unitEnd = -1;
            if (!c.atLineEnd()) {
                unitStart = c.position();
                unitEnd = wordEnd(c);
                c.skipBlanks();
                if (!c.atLineEnd()) {
                    throw c.fail("expected the end of the line after the unit");
                }
            }
            if (!sink.line(buf, nameStart, trimmedEnd, soft, hard, unitStart, unitEnd)) {
                return;
            }
            c.nextLine();
        }
    }

    private static final byte[] LIMIT_WORD = {'L', 'i', 'm', 'i', 't'};

    /** Whether the name column holds {@code Max open files}, blanks around it trimmed (as {@code strip} would). */
    private static boolean isOpenFiles(byte[] b, int from, int to) {
        return matches(b, from, to, OPEN_FILES);
    }

    private static boolean matches(byte[] b, int from, int to, byte[] word) {
        return to - from == word.length && Arrays.equals(b, from, to, word, 0, word.length);
    }

    /** Whether {@code String.strip} would take the byte away as white space, for the ASCII bytes a name has. */
    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t' || b >= 0x0b && b <= 0x0d || b >= 0x1c && b <= 0x1f;
    }

    /** Moves past the word at the cursor (up to a blank, newline or the end); @return where it ends */
    private static int wordEnd(ByteCursor c) {
        byte[] b = c.buffer();
        int p = c.position();
        while (p < c.end() && b[p] != ' ' && b[p] != '\t' && b[p] != '\n') {
            p++;
        }
        c.position(p);
        return p;
    }

    private static OptionalLong optional(long v) {
        return v == UNLIMITED ? OptionalLong.empty() : OptionalLong.of(v);
    }

    private static long value(ByteCursor c) {
        int p = c.peek();
        if (p == 'u') {
            int at = c.position();
            if (!matches(c.buffer(), at, wordEnd(c), UNLIMITED_WORD)) {
                throw c.failAt(at, "expected a number or unlimited");
            }
            return UNLIMITED;
        }
        if (p < '0' || p > '9') {
            throw c.fail("expected a number or unlimited");
        }
        long v = c.unsignedDecimal();
        return v < 0 ? UNLIMITED : v;
    }
}
