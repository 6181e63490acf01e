package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Parser of {@code /proc/uptime}: seconds since boot and seconds all CPUs spent idle, each with two
 * decimals ({@code "350735.47 234388.90"}). Only the uptime is returned.
 */
public final class UptimeParser {
    private UptimeParser() {
    }

    public static Duration parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        return seconds(c);
    }

    /** Parses {@code S.FF} (any number of fraction digits, nanosecond precision kept). */
    static Duration seconds(ByteCursor c) {
        long whole = c.unsignedDecimal();
        if (whole < 0) {
            throw c.fail("uptime out of range");
        }
        long nanos = 0;
        if (c.skipIf('.')) {
            long scale = 100_000_000L;
            int digits = 0;
            while (!c.atEnd() && c.peek() >= '0' && c.peek() <= '9') {
                int d = c.next() - '0';
                if (scale > 0) {
                    nanos += d * scale;
                    scale /= 10;
                }
                digits++;
            }
            if (digits == 0) {
                throw c.fail("expected digits after the decimal point");
            }
        }
        return Duration.ofSeconds(whole, nanos);
    }
}
