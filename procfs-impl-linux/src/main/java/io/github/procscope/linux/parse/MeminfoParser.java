package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parser of {@code /proc/meminfo} ({@code proc(5)}): {@code Key:   value kB} lines, plus a few without a
 * unit ({@code HugePages_Total:  0}, which count pages). kB values are converted to bytes. Keys may hold
 * parentheses ({@code Active(file)}). Which keys are required is for the caller to say.
 */
public final class MeminfoParser {
    private static final long KIB = 1024;

    private MeminfoParser() {
    }

    /**
     * The lines of the file, in order.
     *
     * @param bytes  the kB lines, in bytes
     * @param counts the lines without a unit
     */
    public record Meminfo(Map<String, Long> bytes, Map<String, Long> counts) {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return every line's value
     * @throws ProcfsParseException if a line is malformed or a key repeats
     */
    public static Meminfo parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        Map<String, Long> bytes = new LinkedHashMap<>(64);
        Map<String, Long> counts = new LinkedHashMap<>(8);
        while (!c.atEnd()) {
            if (c.atLineEnd()) {
                c.nextLine();
                continue;
            }
            int keyStart = c.position();
            while (!c.atLineEnd() && c.peek() != ':') {
                c.next();
            }
            if (c.atLineEnd() || c.position() == keyStart) {
                throw c.failAt(keyStart, "expected \"Key:\"");
            }
            String key = new String(buf, keyStart, c.position() - keyStart, StandardCharsets.ISO_8859_1);
            if (bytes.containsKey(key) || counts.containsKey(key)) {
                throw c.failAt(keyStart, "duplicate key " + key);
            }
            c.expect(':');
            c.skipBlanks();
            int valueAt = c.position();
            long v = c.unsignedAtMost(Long.MAX_VALUE, key);
            c.skipBlanks();
            if (c.skipIf('k')) {
                c.expect('B');
                if (v > Long.MAX_VALUE / KIB) {
                    throw c.failAt(valueAt, key + " out of range: " + v + " kB");
                }
                bytes.put(key, v * KIB);
            } else {
                counts.put(key, v);
            }
            c.skipBlanks();
            if (!c.atLineEnd()) {
                throw c.fail("unexpected text after the value of " + key);
            }
            c.nextLine();
        }
        return new Meminfo(Collections.unmodifiableMap(bytes), Collections.unmodifiableMap(counts));
    }
}
