package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Parser of {@code /dev/kmsg} records ({@code Documentation/ABI/testing/dev-kmsg}):
 * {@code PRIO,SEQ,USEC,FLAGS[,...];MESSAGE\n}, followed by continuation lines that start with a space
 * ({@code  SUBSYSTEM=...}), which are skipped. {@code PRIO} is {@code facility << 3 | level}.
 * Non-printable bytes of the message arrive as {@code \xNN} and are decoded. The input may hold one
 * record (a read of the device) or many (a saved copy).
 */
public final class KmsgParser {
    private KmsgParser() {
    }

    public static List<KmsgRecord> parse(Path source, byte[] buf, int len) {
        List<KmsgRecord> out = new ArrayList<>();
        ByteCursor c = new ByteCursor(source, buf, len);
        while (!c.atEnd()) {
            if (c.peek() == ' ' || c.peek() == '\n') { // continuation (dictionary) line, or blank
                c.nextLine();
                continue;
            }
            long prio = c.unsignedAtMost(Integer.MAX_VALUE, "priority");
            c.expect(',');
            long seq = c.unsignedAtMost(Long.MAX_VALUE, "sequence number");
            c.expect(',');
            long usec = c.unsignedAtMost(Long.MAX_VALUE, "timestamp");
            c.expect(',');
            while (!c.atLineEnd() && c.peek() != ';') { // flags and any future fields
                c.next();
            }
            c.expect(';');
            int start = c.position();
            while (!c.atLineEnd()) {
                c.next();
            }
            String message = unescape(buf, start, c.position());
            out.add(new KmsgRecord((int) (prio & 7), (int) (prio >>> 3), seq, usec, message));
            c.nextLine();
        }
        return out;
    }

    private static String unescape(byte[] b, int from, int to) {
        byte[] out = new byte[to - from];
        int n = 0;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\' && i + 3 < to && b[i + 1] == 'x' && hex(b[i + 2]) >= 0 && hex(b[i + 3]) >= 0) {
                out[n++] = (byte) (hex(b[i + 2]) << 4 | hex(b[i + 3]));
                i += 3;
            } else {
                out[n++] = b[i];
            }
        }
        return ByteCursor.text(out, 0, n);
    }

    private static int hex(byte c) {
        return Character.digit(c, 16);
    }
}
