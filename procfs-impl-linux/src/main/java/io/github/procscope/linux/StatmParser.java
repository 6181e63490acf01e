package io.github.procscope.linux;

import io.github.procscope.api.ProcessStatm;

import java.nio.file.Path;

/**
 * Parser of {@code /proc/PID/statm}: seven page counts on one line,
 * {@code size resident shared text lib data dt}; {@code lib} and {@code dt} are always 0 since
 * Linux 2.6 and are skipped. Pages become bytes.
 */
final class StatmParser {
    private StatmParser() {
    }

    static ProcessStatm parse(Path source, byte[] buf, int len, KernelConstants k) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long[] v = new long[7];
        for (int i = 0; i < 7; i++) {
            if (i > 0) {
                c.expect(' ');
            }
            v[i] = c.unsignedDecimal();
            if (v[i] < 0 || v[i] > Long.MAX_VALUE / k.pageSizeBytes()) {
                throw c.fail("page count out of range");
            }
        }
        if (!c.atLineEnd()) {
            throw c.fail("expected the end of the line after seven numbers");
        }
        return new ProcessStatm(k.pages(v[0]), k.pages(v[1]), k.pages(v[2]), k.pages(v[3]), k.pages(v[5]));
    }
}
