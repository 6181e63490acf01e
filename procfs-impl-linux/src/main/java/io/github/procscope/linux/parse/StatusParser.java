package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.signals.SignalMasks;
import io.github.procscope.api.signals.SignalSet;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/status} and {@code /proc/PID/task/TID/status}: {@code Key:\tvalue} lines.
 * Unknown keys are skipped (kernels add lines); {@code Name}, {@code State}, {@code Tgid}, {@code Pid},
 * {@code PPid}, {@code Uid}, {@code Gid} and {@code Threads} are required. {@code kB} values become bytes.
 */
public final class StatusParser {
    private static final int KIB = 1024;
    /** The largest uid or gid: ids are 32 bits and {@code (uid_t) -1} is no one's. */
    private static final long MAX_ID = 0xFFFF_FFFEL;
    /** The keys read, each allowed once: a second line of one is damage, not a value to take silently. */
    private static final List<String> KNOWN_KEYS = List.of("Name", "State", "Tgid", "Pid", "PPid", "TracerPid",
            "Uid", "Gid", "FDSize", "Groups", "NStgid", "NSpid", "NSpgid", "NSsid", "VmPeak", "VmSize", "VmLck",
            "VmPin", "VmHWM", "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmData", "VmStk", "VmExe", "VmLib",
            "VmPTE", "VmSwap", "HugetlbPages", "Threads", "SigQ", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt",
            "Cpus_allowed_list", "Mems_allowed_list", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches");

    private static final java.util.Map<String, Integer> KEY_BITS = new java.util.HashMap<>();

    static {
        for (int i = 0; i < KNOWN_KEYS.size(); i++) {
            KEY_BITS.put(KNOWN_KEYS.get(i), i);
        }
    }

    private StatusParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the facts, typed
     * @throws io.github.procscope.api.core.ProcfsParseException if a line is malformed or a required key is missing
     */
    public static ProcessStatus parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        String name = null;
        ProcessState state = null;
        long tgid = -1;
        long pid = -1;
        long ppid = -1;
        OptionalLong tracer = OptionalLong.empty();
        ProcessStatus.Ids uid = null;
        ProcessStatus.Ids gid = null;
        OptionalLong fdSize = OptionalLong.empty();
        List<Long> groups = List.of();
        List<Long> nsTgid = List.of();
        List<Long> nsPid = List.of();
        List<Long> nsPgid = List.of();
        List<Long> nsSid = List.of();
        OptionalLong[] vm = new OptionalLong[16];
        java.util.Arrays.fill(vm, OptionalLong.empty());
        int threads = 0;
        boolean threadsSeen = false;
        OptionalLong sigQueued = OptionalLong.empty();
        OptionalLong sigLimit = OptionalLong.empty();
        SignalSet pnd = SignalSet.empty();
        SignalSet shd = SignalSet.empty();
        SignalSet blk = SignalSet.empty();
        SignalSet ign = SignalSet.empty();
        SignalSet cgt = SignalSet.empty();
        List<Integer> cpus = List.of();
        List<Integer> mems = List.of();
        OptionalLong voluntary = OptionalLong.empty();
        OptionalLong nonvoluntary = OptionalLong.empty();

        long seen = 0;
        while (!c.atEnd()) {
            int keyStart = c.position();
            while (!c.atLineEnd() && c.peek() != ':') {
                c.next();
            }
            if (c.atLineEnd()) {
                if (c.position() == keyStart) { // blank line
                    c.nextLine();
                    continue;
                }
                throw c.failAt(keyStart, "expected \"Key:\"");
            }
            String key = new String(buf, keyStart, c.position() - keyStart, java.nio.charset.StandardCharsets.ISO_8859_1);
            c.expect(':');
            c.skipBlanks();
            Integer bit = KEY_BITS.get(key);
            if (bit != null) {
                if ((seen & (1L << bit)) != 0) {
                    throw c.failAt(keyStart, "duplicate " + key + " line");
                }
                seen |= 1L << bit;
            }
            switch (key) {
                case "Name": name = unescapeName(c); break;
                case "State": state = state(c); break;
                case "Tgid": tgid = c.unsignedAtMost(Integer.MAX_VALUE, key); break;
                case "Pid": pid = c.unsignedAtMost(Integer.MAX_VALUE, key); break;
                case "PPid": ppid = c.unsignedAtMost(Integer.MAX_VALUE, key); break;
                case "TracerPid": {
                    long t = c.unsignedAtMost(Integer.MAX_VALUE, key);
                    tracer = t == 0 ? OptionalLong.empty() : OptionalLong.of(t);
                    break;
                }
                case "Uid": uid = ids(c); break;
                case "Gid": gid = ids(c); break;
                case "FDSize": fdSize = OptionalLong.of(c.unsignedAtMost(Integer.MAX_VALUE, key)); break;
                case "Groups": groups = numbers(c, MAX_ID, key); break;
                case "NStgid": nsTgid = numbers(c, Integer.MAX_VALUE, key); break;
                case "NSpid": nsPid = numbers(c, Integer.MAX_VALUE, key); break;
                case "NSpgid": nsPgid = numbers(c, Integer.MAX_VALUE, key); break;
                case "NSsid": nsSid = numbers(c, Integer.MAX_VALUE, key); break;
                case "VmPeak": vm[0] = kib(c, key); break;
                case "VmSize": vm[1] = kib(c, key); break;
                case "VmLck": vm[2] = kib(c, key); break;
                case "VmPin": vm[3] = kib(c, key); break;
                case "VmHWM": vm[4] = kib(c, key); break;
                case "VmRSS": vm[5] = kib(c, key); break;
                case "RssAnon": vm[6] = kib(c, key); break;
                case "RssFile": vm[7] = kib(c, key); break;
                case "RssShmem": vm[8] = kib(c, key); break;
                case "VmData": vm[9] = kib(c, key); break;
                case "VmStk": vm[10] = kib(c, key); break;
                case "VmExe": vm[11] = kib(c, key); break;
                case "VmLib": vm[12] = kib(c, key); break;
                case "VmPTE": vm[13] = kib(c, key); break;
                case "VmSwap": vm[14] = kib(c, key); break;
                case "HugetlbPages": vm[15] = kib(c, key); break;
                case "Threads": {
                    long t = c.unsignedAtMost(Integer.MAX_VALUE, "thread count");
                    threads = (int) t;
                    threadsSeen = true;
                    break;
                }
                case "SigQ": {
                    sigQueued = OptionalLong.of(c.unsignedAtMost(Long.MAX_VALUE, key));
                    c.expect('/');
                    sigLimit = OptionalLong.of(c.unsignedAtMost(Long.MAX_VALUE, key));
                    break;
                }
                case "SigPnd": pnd = SignalSet.fromMask(c.hex()); break;
                case "ShdPnd": shd = SignalSet.fromMask(c.hex()); break;
                case "SigBlk": blk = SignalSet.fromMask(c.hex()); break;
                case "SigIgn": ign = SignalSet.fromMask(c.hex()); break;
                case "SigCgt": cgt = SignalSet.fromMask(c.hex()); break;
                case "Cpus_allowed_list": cpus = CpuListParser.parse(c); break;
                case "Mems_allowed_list": mems = CpuListParser.parse(c); break;
                case "voluntary_ctxt_switches":
                    voluntary = OptionalLong.of(c.unsignedAtMost(Long.MAX_VALUE, key));
                    break;
                case "nonvoluntary_ctxt_switches":
                    nonvoluntary = OptionalLong.of(c.unsignedAtMost(Long.MAX_VALUE, key));
                    break;
                default: c.restOfLine(); break;
            }
            c.skipBlanks();
            if (!c.atLineEnd()) {
                throw c.fail("unexpected text after the value of " + key);
            }
            c.nextLine();
        }
        if (name == null || state == null || tgid < 0 || pid < 0 || ppid < 0 || uid == null || gid == null
                || !threadsSeen) {
            throw new io.github.procscope.api.core.ProcfsParseException(source,
                    new String(buf, 0, Math.min(len, 80), java.nio.charset.StandardCharsets.ISO_8859_1),
                    "missing one of the required lines Name, State, Tgid, Pid, PPid, Uid, Gid, Threads");
        }
        ProcessStatus.VmStats memory = new ProcessStatus.VmStats(vm[0], vm[1], vm[2], vm[3], vm[4], vm[5],
                vm[6], vm[7], vm[8], vm[9], vm[10], vm[11], vm[12], vm[13], vm[14], vm[15]);
        return new ProcessStatus(name, state, tgid, pid, ppid, tracer, uid, gid, fdSize, groups,
                nsTgid, nsPid, nsPgid, nsSid, memory, threads, sigQueued, sigLimit,
                new SignalMasks(pnd, shd, blk, ign, cgt), cpus, mems, voluntary, nonvoluntary);
    }

    /** {@code S (sleeping)}: the letter, then the description in parentheses. */
    private static ProcessState state(ByteCursor c) {
        int at = c.position();
        int letter = c.next();
        ProcessState s = ProcessState.fromLetter((char) letter).orElseThrow(
                () -> c.failAt(at, "unknown process state letter"));
        c.restOfLine();
        return s;
    }

    private static ProcessStatus.Ids ids(ByteCursor c) {
        long r = c.unsignedAtMost(MAX_ID, "id");
        c.skipBlanks();
        long e = c.unsignedAtMost(MAX_ID, "id");
        c.skipBlanks();
        long s = c.unsignedAtMost(MAX_ID, "id");
        c.skipBlanks();
        long f = c.unsignedAtMost(MAX_ID, "id");
        return new ProcessStatus.Ids(r, e, s, f);
    }

    private static List<Long> numbers(ByteCursor c, long max, String key) {
        List<Long> out = new ArrayList<>(2);
        c.skipBlanks();
        while (!c.atLineEnd()) {
            out.add(c.unsignedAtMost(max, key));
            c.skipBlanks();
        }
        return out;
    }

    private static OptionalLong kib(ByteCursor c, String key) {
        return OptionalLong.of(kibBytes(c, key));
    }

    /**
     * Reads a value in kibibytes ({@code 1234 kB}) as bytes; {@link StatusCountersParser} reads its values with it
     * too, so that both parsers accept and refuse the same lines with the same message.
     */
    static long kibBytes(ByteCursor c, String key) {
        long v = c.unsignedAtMost(Long.MAX_VALUE / KIB, key);
        c.skipBlanks();
        if (c.skipIf('k')) {
            c.expect('B');
        } else {
            throw c.fail("expected \"kB\"");
        }
        return v * KIB;
    }

    /**
     * The kernel escapes the name here ({@code seq_escape_str} with {@code ESCAPE_SPACE | ESCAPE_SPECIAL}
     * for newline and backslash; octal escapes on older kernels). This undoes it.
     */
    private static String unescapeName(ByteCursor c) {
        byte[] b = c.buffer();
        int start = c.position();
        while (!c.atLineEnd()) {
            c.next();
        }
        int end = c.position();
        byte[] out = new byte[end - start];
        int n = 0;
        for (int i = start; i < end; i++) {
            if (b[i] != '\\' || i + 1 >= end) {
                out[n++] = b[i];
                continue;
            }
            byte e = b[++i];
            switch (e) {
                case 'n': out[n++] = '\n'; break;
                case 't': out[n++] = '\t'; break;
                case 'r': out[n++] = '\r'; break;
                case 'f': out[n++] = '\f'; break;
                case 'v': out[n++] = 0x0b; break;
                case 'a': out[n++] = 0x07; break;
                case 'e': out[n++] = 0x1b; break;
                case '\\': out[n++] = '\\'; break;
                case '"': out[n++] = '"'; break;
                default:
                    if (e >= '0' && e <= '7' && i + 2 < end && isOctal(b[i + 1]) && isOctal(b[i + 2])) {
                        out[n++] = (byte) (((e - '0') << 6) | ((b[i + 1] - '0') << 3) | (b[i + 2] - '0'));
                        i += 2;
                    } else {
                        out[n++] = '\\';
                        out[n++] = e;
                    }
                    break;
            }
        }
        return ByteCursor.text(out, 0, n);
    }

    private static boolean isOctal(byte b) {
        return b >= '0' && b <= '7';
    }
}
