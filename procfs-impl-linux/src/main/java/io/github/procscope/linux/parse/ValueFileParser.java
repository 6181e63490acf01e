package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Parser of the kernel's one-number files: cgroup v2 {@code memory.max} and {@code memory.current}, cgroup
 * v1 {@code memory.limit_in_bytes} and {@code memory.usage_in_bytes}, and {@code /proc/sys/vm/min_free_kbytes}:
 * one unsigned decimal number (or the word {@code max} where a limit may be absent) and a newline.
 */
public final class ValueFileParser {
    /**
     * cgroup v1 prints {@code PAGE_COUNTER_MAX * PAGE_SIZE} for "no limit": {@link Long#MAX_VALUE} rounded
     * down to a page. Any value within 1 MiB of it (so, whatever the page size) means unlimited.
     */
    static final long V1_UNLIMITED_FLOOR = Long.MAX_VALUE - (1L << 20);

    private ValueFileParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the number
     * @throws ProcfsParseException if the file holds anything else
     */
    public static long number(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long v = c.unsignedAtMost(Long.MAX_VALUE, "value");
        end(c);
        return v;
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the limit, or empty for {@code max} and for cgroup v1's "unlimited" value
     * @throws ProcfsParseException if the file holds anything else
     */
    public static OptionalLong limit(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        if (c.peek() == 'm') {
            c.expect('m');
            c.expect('a');
            c.expect('x');
            end(c);
            return OptionalLong.empty();
        }
        long v = c.unsignedDecimal();
        end(c);
        if (v < 0 || v >= V1_UNLIMITED_FLOOR) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(v);
    }

    private static void end(ByteCursor c) {
        c.skipIf('\n');
        if (!c.atEnd()) {
            throw c.fail("expected a single value");
        }
    }
}
