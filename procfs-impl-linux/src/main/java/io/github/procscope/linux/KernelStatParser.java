package io.github.procscope.linux;

import io.github.procscope.api.ProcfsParseException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Parser of {@code /proc/stat}: the {@code btime}, {@code processes}, {@code procs_running},
 * {@code procs_blocked} and {@code ctxt} lines ({@code cpu} and {@code intr} lines are skipped).
 * {@code btime} is required.
 */
final class KernelStatParser {
    private KernelStatParser() {
    }

    static KernelStat parse(Path source, byte[] buf, int len) {
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
                case "btime": btime = c.unsignedDecimal(); break;
                case "processes": processes = c.unsignedDecimal(); break;
                case "procs_running": running = c.unsignedDecimal(); break;
                case "procs_blocked": blocked = c.unsignedDecimal(); break;
                case "ctxt": ctxt = c.unsignedDecimal(); break;
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
