package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ProcessStatm;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.KernelConstants;

import java.nio.file.Path;

/**
 * Parser of {@code /proc/PID/statm}: seven page counts on one line,
 * {@code size resident shared text lib data dt}; {@code lib} and {@code dt} are always 0 since
 * Linux 2.6 and are skipped. Pages become bytes.
 */
public final class StatmParser {
    private StatmParser() {
    }

    static ProcessStatm parse(Path source, byte[] buf, int len, KernelConstants k) {
        return parse(() -> source, buf, len, k);
    }

    /** As {@link #parse(Path, byte[], int, KernelConstants)}, the file named only if the content is bad. */
    public static ProcessStatm parse(ByteCursor.Source source, byte[] buf, int len, KernelConstants k) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long size = pages(c, k);
        c.expect(' ');
        long resident = pages(c, k);
        c.expect(' ');
        long shared = pages(c, k);
        c.expect(' ');
        long text = pages(c, k);
        c.expect(' ');
        pages(c, k); // lib
        c.expect(' ');
        long data = pages(c, k);
        c.expect(' ');
        pages(c, k); // dt
        if (!c.atLineEnd()) {
            throw c.fail("expected the end of the line after seven numbers");
        }
        return new ProcessStatm(k.pages(size), k.pages(resident), k.pages(shared), k.pages(text), k.pages(data));
    }

    private static long pages(ByteCursor c, KernelConstants k) {
        return c.unsignedAtMost(Long.MAX_VALUE / k.pageSizeBytes(), "page count");
    }
}
