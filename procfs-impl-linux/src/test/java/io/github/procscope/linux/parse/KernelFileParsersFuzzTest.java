package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.quicktheories.core.Gen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * Every kernel-file parser, fed real content of its file mutated at random (digits turned into 2^64-1 or a
 * minus sign, separators dropped or doubled, lines cut, bytes flipped) and plain random bytes: each either
 * parses or throws {@link ProcfsParseException}; no other exception (an index out of bounds, a number format,
 * an arithmetic overflow, an illegal argument from a record) escapes.
 */
class KernelFileParsersFuzzTest {
    private static final Path SRC = Path.of("/proc/1/fuzzed");
    private static final String[] TOKENS = {"18446744073709551615", "9223372036854775808", "-", "-1", "0", "(", ")",
        "\n", " ", ":", "\t", " kB", "\\", "\\012", "\0", "99999999999999999999999", "/", "-5", "x", ""};

    /** A parser under test: bytes in, any value out, only ProcfsParseException on bad input. */
    private interface Parser {
        void parse(byte[] b, int len);
    }

    private static Map<String, Parser> parsers() {
        Map<String, Parser> m = new LinkedHashMap<>();
        KernelConstants k = Fixtures.CONSTANTS;
        m.put("stat", (b, n) -> StatParser.parse(SRC, b, n, k));
        m.put("statm", (b, n) -> StatmParser.parse(SRC, b, n, k));
        m.put("status", (b, n) -> StatusParser.parse(SRC, b, n));
        m.put("cmdline", (b, n) -> CmdlineParser.parse(b, n));
        m.put("maps", (b, n) -> MapsParser.parse(SRC, b, n));
        m.put("smaps", (b, n) -> SmapsParser.parseSmaps(SRC, b, n));
        m.put("smaps_rollup", (b, n) -> SmapsParser.parseRollup(SRC, b, n));
        m.put("fdinfo", (b, n) -> FdinfoParser.parse(SRC, b, n, OpenFlagBits.GENERIC));
        m.put("mountinfo", (b, n) -> MountinfoParser.parse(SRC, b, n));
        m.put("cgroup", (b, n) -> ProcCgroupParser.parse(SRC, b, n));
        m.put("root stat", (b, n) -> KernelStatParser.parse(SRC, b, n));
        m.put("uptime", (b, n) -> UptimeParser.parse(SRC, b, n));
        m.put("loadavg", (b, n) -> LoadavgParser.parse(SRC, b, n));
        m.put("meminfo", (b, n) -> MeminfoParser.parse(SRC, b, n));
        m.put("diskstats", (b, n) -> DiskstatsParser.parse(SRC, b, n));
        m.put("kmsg", (b, n) -> KmsgParser.parse(SRC, b, n));
        m.put("flat keyed", (b, n) -> FlatKeyedParser.parse(SRC, b, n));
        m.put("value number", (b, n) -> ValueFileParser.number(SRC, b, n));
        m.put("value limit", (b, n) -> ValueFileParser.limit(SRC, b, n));
        m.put("auxv", (b, n) -> AuxvParser.find(SRC, b, n, 8, 6));
        return m;
    }

    /** Real content of each file, from this machine, to mutate. */
    private static byte[] seed(String name) throws IOException {
        switch (name) {
            case "stat": return read("/proc/self/stat");
            case "statm": return read("/proc/self/statm");
            case "status": return read("/proc/self/status");
            case "cmdline": return read("/proc/self/cmdline");
            case "maps": return read("/proc/self/maps");
            case "smaps": return wholeBlocks(read("/proc/self/smaps"), 6000);
            case "smaps_rollup": return read("/proc/self/smaps_rollup");
            case "fdinfo": return read("/proc/self/fdinfo/0");
            case "mountinfo": return read("/proc/self/mountinfo");
            case "cgroup": return read("/proc/self/cgroup");
            case "root stat": return read("/proc/stat");
            case "uptime": return read("/proc/uptime");
            case "loadavg": return read("/proc/loadavg");
            case "meminfo": return read("/proc/meminfo");
            case "diskstats": return read("/proc/diskstats");
            case "kmsg": return Files.readAllBytes(Fixtures.path("kmsg/oom-6x-memcg.txt"));
            case "flat keyed": return "anon 1048576\nfile 2097152\nkernel 4096\n".getBytes(StandardCharsets.US_ASCII);
            case "value number": return "123456\n".getBytes(StandardCharsets.US_ASCII);
            case "value limit": return "max\n".getBytes(StandardCharsets.US_ASCII);
            case "auxv": return read("/proc/self/auxv");
            default: throw new AssertionError(name);
        }
    }

    private static byte[] read(String f) throws IOException {
        ProcBuffer b = new ProcBuffer();
        if (b.read(f) != ProcBuffer.Result.OK) {
            throw new IOException("cannot read " + f);
        }
        return java.util.Arrays.copyOf(b.bytes(), b.length());
    }

    /** @return the regions of an smaps that end within its first {@code n} bytes (each ends with VmFlags) */
    private static byte[] wholeBlocks(byte[] b, int n) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        int end = s.lastIndexOf("\nVmFlags:", Math.min(n, s.length() - 1));
        end = end < 0 ? s.length() : s.indexOf('\n', end + 1) + 1;
        return java.util.Arrays.copyOf(b, end);
    }

    /** Mutations: (kind, position, token) triples applied in turn. */
    private static Gen<List<int[]>> mutations() {
        Gen<int[]> one = integers().between(0, 5).zip(integers().allPositive(), integers().between(0, TOKENS.length - 1),
                (kind, at, token) -> new int[] {kind, at, token});
        return lists().of(one).ofSizeBetween(1, 6);
    }

    static byte[] mutate(byte[] seed, List<int[]> ops) {
        byte[] b = seed;
        for (int[] op : ops) {
            int at = b.length == 0 ? 0 : op[1] % (b.length + 1);
            byte[] token = TOKENS[op[2]].getBytes(StandardCharsets.ISO_8859_1);
            switch (op[0]) {
                case 0: b = splice(b, at, 0, token); break; // insert
                case 1: b = splice(b, at, Math.min(b.length - at, 1 + op[1] % 24), token); break; // replace a run
                case 2: b = java.util.Arrays.copyOf(b, at); break; // cut
                case 3: b = replaceNumberAt(b, at, token); break; // a number becomes the token
                case 4: if (at < b.length) { b = b.clone(); b[at] ^= (byte) (1 << (op[1] % 8)); } break; // flip a bit
                default: b = splice(b, at, 0, java.util.Arrays.copyOfRange(b, at, Math.min(b.length, at + 40))); // dup
            }
        }
        return b;
    }

    private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
        byte[] out = new byte[b.length - remove + insert.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(b, at + remove, out, at + insert.length, b.length - at - remove);
        return out;
    }

    private static byte[] replaceNumberAt(byte[] b, int at, byte[] token) {
        int s = at;
        while (s < b.length && (b[s] < '0' || b[s] > '9')) {
            s++;
        }
        int e = s;
        while (e < b.length && b[e] >= '0' && b[e] <= '9') {
            e++;
        }
        return s >= b.length ? b : splice(b, s, e - s, token);
    }

    @TestFactory
    Stream<DynamicTest> everyParserThrowsOnlyItsParseException() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, Parser> e : parsers().entrySet()) {
            tests.add(DynamicTest.dynamicTest(e.getKey(), () -> {
                byte[] seed = seed(e.getKey());
                e.getValue().parse(seed, seed.length); // the real file parses
                qt().withExamples(1500).withShrinkCycles(200).forAll(mutations())
                        .checkAssert(ops -> feed(e.getKey(), e.getValue(), mutate(seed, ops)));
                qt().withExamples(300).forAll(lists().of(integers().between(0, 255)).ofSizeBetween(0, 300))
                        .checkAssert(bytes -> {
                            byte[] b = new byte[bytes.size()];
                            for (int i = 0; i < b.length; i++) {
                                b[i] = (byte) (int) bytes.get(i);
                            }
                            feed(e.getKey(), e.getValue(), b);
                        });
            }));
        }
        return tests.stream();
    }

    private static void feed(String name, Parser p, byte[] b) {
        try {
            p.parse(b, b.length);
        } catch (ProcfsParseException expected) {
            // the documented outcome of bad input
        } catch (RuntimeException other) {
            throw new AssertionError(name + " threw " + other + " for \""
                    + new String(b, 0, Math.min(b.length, 300), StandardCharsets.ISO_8859_1) + "\"", other);
        }
    }
}
