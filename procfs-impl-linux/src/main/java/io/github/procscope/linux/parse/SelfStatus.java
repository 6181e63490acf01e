package io.github.procscope.linux.parse;

import java.util.List;

/**
 * The two facts of a process's own {@code /proc/self/status} that decide what it may read and open: its file-system
 * uid and its effective capabilities. One reading of the lines for every caller (the open-descriptor count, the
 * process connector's check).
 */
public final class SelfStatus {
    private SelfStatus() {
    }

    /**
     * @param status the lines of {@code /proc/self/status}
     * @return the file-system uid (the fourth id of {@code Uid:}), or -1 if the line is missing or malformed
     */
    public static long fsUid(List<String> status) {
        for (String line : status) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).trim().split("\\s+");
                return ids.length == 4 ? parse(ids[3], 10) : -1;
            }
        }
        return -1;
    }

    /**
     * @param status the lines of {@code /proc/self/status}
     * @return the effective capability set ({@code CapEff:}, hexadecimal), or -1 if the line is missing or
     *         malformed
     */
    public static long effectiveCapabilities(List<String> status) {
        for (String line : status) {
            if (line.startsWith("CapEff:")) {
                return parse(line.substring(7).trim(), 16);
            }
        }
        return -1;
    }

    private static long parse(String s, int radix) {
        try {
            long v = Long.parseUnsignedLong(s, radix);
            return v < 0 ? -1 : v;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
