package io.github.procscope.linux.parse;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.disk.DiskStat;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parser of {@code /proc/diskstats} ({@code Documentation/admin-guide/iostats.rst}): per line, the major
 * and minor numbers, the device name, then 11 counters (14 fields in all, every kernel since 2.6.25),
 * 15 (18 fields, Linux 4.18+: discards) or 17 (20 fields, Linux 5.5+: flushes). More fields, from kernels
 * yet to come, are ignored; other counts are a parse error. Sectors become bytes (&times; 512) and
 * milliseconds durations.
 */
public final class DiskstatsParser {
    private static final long SECTOR = 512;
    private static final int MAX_FIELDS = 17;
    /** The counters' names ({@code Documentation/admin-guide/iostats.rst}), fields 4 to 20. */
    private static final String[] FIELD_NAMES = {"reads completed", "reads merged", "sectors read",
        "milliseconds reading", "writes completed", "writes merged", "sectors written", "milliseconds writing",
        "I/Os in progress", "milliseconds doing I/O", "weighted milliseconds doing I/O", "discards completed",
        "discards merged", "sectors discarded", "milliseconds discarding", "flushes completed",
        "milliseconds flushing"};

    private DiskstatsParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return every device's counters, in the file's order
     * @throws ProcfsParseException if a line is malformed or has an unknown number of fields
     */
    public static List<DiskStat> parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        List<DiskStat> out = new ArrayList<>(16);
        long[] v = new long[MAX_FIELDS];
        while (!c.atEnd()) {
            c.skipBlanks();
            if (c.atLineEnd()) {
                c.nextLine();
                continue;
            }
            int lineStart = c.position();
            long major = c.unsignedDecimal();
            blanks(c);
            long minor = c.unsignedDecimal();
            if (major < 0 || minor < 0 || major > DeviceNumber.MAX_MAJOR || minor > DeviceNumber.MAX_MINOR) {
                throw c.failAt(lineStart, "device number out of range");
            }
            blanks(c);
            int nameAt = c.position();
            String name = c.word();
            if (name.isEmpty()) {
                throw c.failAt(nameAt, "expected the device name");
            }
            int n = 0;
            c.skipBlanks();
            while (!c.atLineEnd()) {
                long x = c.unsignedDecimal();
                if (n < MAX_FIELDS) {
                    v[n] = x;
                }
                n++;
                if (!c.atLineEnd()) {
                    blanks(c);
                }
            }
            if (n != 11 && n != 15 && n < 17) {
                throw c.failAt(lineStart, "expected 14, 18 or 20 fields, found " + (n + 3));
            }
            for (int i = 0; i < Math.min(n, MAX_FIELDS); i++) {
                if (v[i] < 0 || (v[i] > Long.MAX_VALUE / SECTOR && (i == 2 || i == 6 || i == 13))) {
                    throw c.failAt(lineStart, name + ": " + FIELD_NAMES[i] + " (field " + (i + 4) + ") out of range: "
                            + Long.toUnsignedString(v[i]));
                }
            }
            Optional<DiskStat.Discards> discards = n >= 15
                    ? Optional.of(new DiskStat.Discards(v[11], v[12], v[13] * SECTOR, ms(v[14])))
                    : Optional.empty();
            Optional<DiskStat.Flushes> flushes = n >= 17
                    ? Optional.of(new DiskStat.Flushes(v[15], ms(v[16])))
                    : Optional.empty();
            out.add(new DiskStat(new DeviceNumber((int) major, (int) minor), name,
                    v[0], v[1], v[2] * SECTOR, ms(v[3]),
                    v[4], v[5], v[6] * SECTOR, ms(v[7]),
                    v[8], ms(v[9]), ms(v[10]), discards, flushes));
            c.nextLine();
        }
        return out;
    }

    private static void blanks(ByteCursor c) {
        if (c.peek() != ' ' && c.peek() != '\t') {
            throw c.fail("expected a blank");
        }
        c.skipBlanks();
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
