package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parser of the cgroup "flat keyed" files ({@code Documentation/admin-guide/cgroup-v2.rst}): one
 * {@code key value} pair per line, the value an unsigned decimal. cgroup v2's {@code memory.events} and
 * {@code memory.stat}, and v1's {@code memory.oom_control} and {@code memory.stat}, are all in this form.
 */
public final class FlatKeyedParser {
    private FlatKeyedParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the pairs in file order
     * @throws io.github.procscope.api.core.ProcfsParseException if a line is not {@code key number}
     */
    public static Map<String, Long> parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        Map<String, Long> out = new LinkedHashMap<>();
        while (!c.atEnd()) {
            if (c.peek() == '\n') {
                c.nextLine();
                continue;
            }
            int start = c.position();
            while (!c.atLineEnd() && c.peek() != ' ') {
                c.next();
            }
            if (c.position() == start || !c.skipIf(' ')) {
                throw c.failAt(start, "expected \"key value\"");
            }
            String key = new String(buf, start, c.position() - 1 - start, StandardCharsets.ISO_8859_1);
            long v = c.unsignedAtMost(Long.MAX_VALUE, key);
            if (!c.atLineEnd()) {
                throw c.fail("unexpected text after the value of " + key);
            }
            out.put(key, v);
            c.nextLine();
        }
        return Collections.unmodifiableMap(out);
    }
}
