package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Parser of {@code /proc/stat}: the {@code btime}, {@code processes}, {@code procs_running},
 * {@code procs_blocked} and {@code ctxt} lines ({@code cpu} and {@code intr} lines are skipped).
 * {@code btime} is required.
 */
public final class KernelStatParser {
    private KernelStatParser() {
    }

    /** @return whether a line of {@code buf[0, len)} starts with {@code btime}, however the rest of it reads */
    public static boolean hasBootTime(byte[] buf, int len) {
        for (int i = 0; i + 5 < len; i++) {
            if ((i == 0 || buf[i - 1] == '\n') && buf[i] == 'b' && buf[i + 1] == 't' && buf[i + 2] == 'i'
                    && buf[i + 3] == 'm' && buf[i + 4] == 'e' && (buf[i + 5] == ' ' || buf[i + 5] == '\t')) {
                return true;
            }
        }
        return false;
    }

    public static KernelStat parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long btime = -1;
        long processes = 0;
        long running = 0;
        long blocked = 0;
        long ctxt = 0;
        while (!c.atEnd()) {
            String key = c.word();
            c.skipBlanks();
            switch (key) {
                case "btime": btime = c.unsignedAtMost(Instant.MAX.getEpochSecond(), key); break;
                case "processes": processes = c.unsignedAtMost(Long.MAX_VALUE, key); break;
                case "procs_running": running = c.unsignedAtMost(Long.MAX_VALUE, key); break;
                case "procs_blocked": blocked = c.unsignedAtMost(Long.MAX_VALUE, key); break;
                case "ctxt": ctxt = c.unsignedAtMost(Long.MAX_VALUE, key); break;
                default: break;
            }
            c.nextLine();
        }
        if (btime < 0) {
            throw new ProcfsParseException(source, new String(buf, 0, Math.min(len, 80), StandardCharsets.ISO_8859_1),
                    "no btime line");
        }
        return new KernelStat(Instant.ofEpochSecond(btime), processes, running, blocked, ctxt);
    }
}
