package io.github.procscope.linux.parse;

import io.github.procscope.api.system.LoadAverage;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;

/**
 * Parser of {@code /proc/loadavg} ({@code fs/proc/loadavg.c}): three load averages printed as
 * {@code %lu.%02lu}, then {@code runnable/total} tasks and the last pid, separated by single spaces:
 * {@code "0.20 0.18 0.12 1/80 11206\n"}.
 */
public final class LoadavgParser {
    private LoadavgParser() {
    }

    public static LoadAverage parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        double one = average(c);
        c.expect(' ');
        double five = average(c);
        c.expect(' ');
        double fifteen = average(c);
        c.expect(' ');
        int runnable = count(c, "runnable tasks");
        c.expect('/');
        int total = count(c, "total tasks");
        c.expect(' ');
        long lastPid = c.unsignedDecimal();
        if (lastPid < 0 || lastPid > Integer.MAX_VALUE) {
            throw c.fail("last pid out of range");
        }
        if (!c.atLineEnd()) {
            throw c.fail("expected the end of the line after the last pid");
        }
        return new LoadAverage(one, five, fifteen, runnable, total, lastPid);
    }

    /** Parses {@code W.FF}: whole and hundredths, kept exact until the one division. */
    private static double average(ByteCursor c) {
        long whole = c.unsignedDecimal();
        if (whole < 0 || whole > Integer.MAX_VALUE) {
            throw c.fail("load average out of range");
        }
        c.expect('.');
        int start = c.position();
        long hundredths = c.unsignedDecimal();
        if (c.position() - start != 2) {
            throw c.failAt(start, "expected two decimals in a load average");
        }
        return (whole * 100 + hundredths) / 100.0;
    }

    private static int count(ByteCursor c, String what) {
        long v = c.unsignedDecimal();
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw c.fail(what + " out of range");
        }
        return (int) v;
    }
}
