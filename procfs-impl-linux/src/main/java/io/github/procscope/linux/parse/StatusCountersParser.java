package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ByteScan;

import java.nio.charset.StandardCharsets;

/**
 * The few values of {@code /proc/PID/status} (or {@code /proc/PID/task/TID/status}) that a metrics scrape reports,
 * parsed on the file's bytes without a string per line or a record of the whole file: {@code VmSwap}, the
 * {@code voluntary_ctxt_switches} and {@code nonvoluntary_ctxt_switches} lines, {@code Threads} and {@code Tgid}
 * (whose file it is). As strict as
 * {@link StatusParser} on what it reads: every line must be {@code Key:}; a value it reads that is malformed, out
 * of range or followed by other text, a second line of a key it knows and a missing required line
 * ({@code Name}, {@code State}, {@code Tgid}, {@code Pid}, {@code PPid}, {@code Uid}, {@code Gid},
 * {@code Threads}) raise the very {@link ProcfsParseException} that {@link StatusParser#parse} raises. The values
 * of the other lines are not looked at.
 */
public final class StatusCountersParser {
    private static final int NAME = 0;
    private static final int STATE = 1;
    private static final int TGID = 2;
    private static final int PID = 3;
    private static final int PPID = 4;
    private static final int UID = 5;
    private static final int GID = 6;
    private static final int THREADS = 7;
    private static final int VM_SWAP = 8;
    private static final int VOLUNTARY = 9;
    private static final int NONVOLUNTARY = 10;
    private static final int REQUIRED = (1 << 8) - 1;
    /** The keys it knows, by the index above. */
    private static final byte[][] KEYS = {
        bytes("Name"), bytes("State"), bytes("Tgid"), bytes("Pid"), bytes("PPid"), bytes("Uid"), bytes("Gid"),
        bytes("Threads"), bytes("VmSwap"), bytes("voluntary_ctxt_switches"), bytes("nonvoluntary_ctxt_switches"),
    };

    /** What one file held; {@code -1} for a line it did not have. Reused across files by its owner. */
    public static final class Values {
        /** {@code VmSwap} in bytes, or -1 (kernel threads and zombies have no memory lines). */
        public long swapBytes;
        /** {@code voluntary_ctxt_switches}, or -1. */
        public long voluntary;
        /** {@code nonvoluntary_ctxt_switches}, or -1. */
        public long nonvoluntary;
        /** {@code Threads}. */
        public int threads;
        /** {@code Tgid}: the process the task belongs to. */
        public long tgid;
    }

    private StatusCountersParser() {
    }

    /**
     * @param source the file, named only for a message
     * @param buf    its bytes
     * @param len    how many are valid
     * @param out    where the values go (all of them are written)
     * @return {@code out}
     * @throws ProcfsParseException as {@link StatusParser#parse} does, for what this reads
     */
    public static Values parse(ByteCursor.Source source, byte[] buf, int len, Values out) {
        ByteCursor c = new ByteCursor(source, buf, len);
        out.swapBytes = -1;
        out.voluntary = -1;
        out.nonvoluntary = -1;
        out.threads = 0;
        out.tgid = -1;
        int seen = 0;
        int pos = 0;
        while (pos < len) {
            int keyStart = pos;
            pos = ByteScan.colonOrNewline(buf, pos, len);
            if (pos >= len || buf[pos] == '\n') {
                if (pos == keyStart) { // blank line
                    pos++;
                    continue;
                }
                throw c.failAt(keyStart, "expected \"Key:\"");
            }
            int key = key(buf, keyStart, pos);
            if (key < 0) {
                pos = skipLine(buf, pos, len);
                continue;
            }
            if ((seen & (1 << key)) != 0) {
                throw c.failAt(keyStart, "duplicate " + name(key) + " line");
            }
            seen |= 1 << key;
            if (key < THREADS && key != TGID) {
                pos = skipLine(buf, pos, len); // a required line whose value is not reported
                continue;
            }
            c.position(pos + 1);
            c.skipBlanks();
            switch (key) {
                case TGID: out.tgid = c.unsignedAtMost(Integer.MAX_VALUE, "Tgid"); break;
                case THREADS: out.threads = (int) c.unsignedAtMost(Integer.MAX_VALUE, "thread count"); break;
                case VM_SWAP: out.swapBytes = StatusParser.kibBytes(c, "VmSwap"); break;
                case VOLUNTARY: out.voluntary = c.unsignedAtMost(Long.MAX_VALUE, "voluntary_ctxt_switches"); break;
                default: out.nonvoluntary = c.unsignedAtMost(Long.MAX_VALUE, "nonvoluntary_ctxt_switches"); break;
            }
            c.skipBlanks();
            if (!c.atLineEnd()) {
                throw c.fail("unexpected text after the value of " + name(key));
            }
            c.nextLine();
            pos = c.position();
        }
        if ((seen & REQUIRED) != REQUIRED) {
            throw new ProcfsParseException(source.path(),
                    new String(buf, 0, Math.min(len, 80), StandardCharsets.ISO_8859_1),
                    "missing one of the required lines Name, State, Tgid, Pid, PPid, Uid, Gid, Threads");
        }
        return out;
    }

    /**
     * @return the index of the key in {@code buf[from, to)}, or -1 for a key not read. Told apart by length and
     *         first byte before the bytes are compared: most of a status file's keys are not read, and each line
     *         asks
     */
    private static int key(byte[] buf, int from, int to) {
        byte first = buf[from];
        int k;
        switch (to - from) {
            case 3: k = first == 'P' ? PID : first == 'U' ? UID : first == 'G' ? GID : -1; break;
            case 4: k = first == 'N' ? NAME : first == 'T' ? TGID : first == 'P' ? PPID : -1; break;
            case 5: k = first == 'S' ? STATE : -1; break;
            case 6: k = first == 'V' ? VM_SWAP : -1; break;
            case 7: k = first == 'T' ? THREADS : -1; break;
            case 23: k = first == 'v' ? VOLUNTARY : -1; break;
            case 26: k = first == 'n' ? NONVOLUNTARY : -1; break;
            default: return -1;
        }
        return k >= 0 && same(buf, from, KEYS[k]) ? k : -1;
    }

    private static boolean same(byte[] buf, int from, byte[] key) {
        for (int i = 1; i < key.length; i++) {
            if (buf[from + i] != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return the position after the newline that ends the line at {@code pos}, or {@code len} */
    private static int skipLine(byte[] buf, int pos, int len) {
        pos = ByteScan.newline(buf, pos, len);
        return pos < len ? pos + 1 : len;
    }


    private static String name(int key) {
        return new String(KEYS[key], StandardCharsets.ISO_8859_1);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
