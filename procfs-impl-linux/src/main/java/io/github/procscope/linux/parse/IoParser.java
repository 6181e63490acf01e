package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ProcessIo;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ByteScan;

/**
 * Parser of {@code /proc/PID/io} ({@code Documentation/filesystems/proc.rst}, "IO statistics"): one
 * {@code key: value} line per counter, the value an unsigned decimal. The seven counters every kernel with task
 * I/O accounting prints are required ({@code rchar}, {@code wchar}, {@code syscr}, {@code syscw},
 * {@code read_bytes}, {@code write_bytes}, {@code cancelled_write_bytes}); keys a later kernel may add are
 * skipped. A value past {@code Long.MAX_VALUE} is refused as out of range.
 */
public final class IoParser {
    private static final byte[][] KEYS = {
        ascii("rchar"), ascii("wchar"), ascii("syscr"), ascii("syscw"), ascii("read_bytes"), ascii("write_bytes"),
        ascii("cancelled_write_bytes")
    };
    private static final String[] NAMES = {
        "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"
    };

    private IoParser() {
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * @param source the file, named only if the content is bad
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the counters
     * @throws io.github.procscope.api.core.ProcfsParseException if a line is not {@code key: number}, a number is out
     *                                                       of range, or a counter is missing or repeated
     */
    public static ProcessIo parse(ByteCursor.Source source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long[] v = new long[KEYS.length];
        int seen = 0;
        while (!c.atEnd()) {
            if (c.peek() == '\n') {
                c.nextLine();
                continue;
            }
            int start = c.position();
            int keyEnd = ByteScan.colonOrNewline(buf, start, c.end());
            c.position(keyEnd);
            if (keyEnd == start || !c.skipIf(':')) {
                throw c.failAt(start, "expected \"key: value\"");
            }
            int key = keyIndex(buf, start, keyEnd, Integer.bitCount(seen));
            if (key < 0) {
                c.nextLine(); // a counter a later kernel added
                continue;
            }
            c.skipIf(' ');
            long value = c.unsignedAtMost(Long.MAX_VALUE, NAMES[key]);
            if (!c.atLineEnd()) {
                throw c.fail("unexpected text after the value of " + NAMES[key]);
            }
            if ((seen & (1 << key)) != 0) {
                throw c.failAt(start, NAMES[key] + " appears twice");
            }
            seen |= 1 << key;
            v[key] = value;
            c.nextLine();
        }
        if (seen != (1 << KEYS.length) - 1) {
            for (int k = 0; k < KEYS.length; k++) {
                if ((seen & (1 << k)) == 0) {
                    throw c.fail("no " + NAMES[k] + " line");
                }
            }
        }
        return new ProcessIo(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    }

    /** @param expected the key the kernel prints next, tried first (it prints them in the order of {@link #KEYS}) */
    private static int keyIndex(byte[] buf, int start, int end, int expected) {
        if (expected < KEYS.length && matches(buf, start, end, KEYS[expected])) {
            return expected;
        }
        for (int k = 0; k < KEYS.length; k++) {
            if (matches(buf, start, end, KEYS[k])) {
                return k;
            }
        }
        return -1;
    }

    private static boolean matches(byte[] buf, int start, int end, byte[] key) {
        return key.length == end - start && java.util.Arrays.equals(buf, start, end, key, 0, key.length);
    }
}
