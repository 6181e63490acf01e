package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;

/**
 * The contract of every kernel-file parser: whatever bytes it is given, it returns a value or throws
 * {@link ProcfsParseException}, and nothing else (no index error, no number overflow, no null). One property
 * over every parser, fed both arbitrary bytes and bytes drawn mostly from the characters kernel files are
 * made of (so that the parsers get past their first field). A new parser joins {@link #PARSERS}.
 */
class ParserContractTest {
    private static final Path SOURCE = Path.of("/proc/contract");

    /** Every parser, by name, as a function of a whole file's bytes. */
    private static final Map<String, Consumer<byte[]>> PARSERS = parsers();

    private static Map<String, Consumer<byte[]>> parsers() {
        Map<String, Consumer<byte[]>> m = new LinkedHashMap<>();
        m.put("AuxvParser/8", b -> AuxvParser.find(SOURCE, b, b.length, 8, 6));
        m.put("AuxvParser/4", b -> AuxvParser.find(SOURCE, b, b.length, 4, 17));
        m.put("CmdlineParser", b -> CmdlineParser.parse(b, b.length));
        m.put("CpuListParser", b -> CpuListParser.parse(new ByteCursor(SOURCE, b, b.length)));
        m.put("DiskstatsParser", b -> DiskstatsParser.parse(SOURCE, b, b.length));
        m.put("FdinfoParser", b -> FdinfoParser.parse(SOURCE, b, b.length, OpenFlagBits.GENERIC));
        m.put("FlatKeyedParser", b -> FlatKeyedParser.parse(SOURCE, b, b.length));
        m.put("IoParser", b -> IoParser.parse(() -> SOURCE, b, b.length));
        m.put("LimitsParser", b -> LimitsParser.parse(SOURCE, b, b.length));
        m.put("WchanParser", b -> WchanParser.parse(b, b.length));
        m.put("KernelStatParser", b -> KernelStatParser.parse(SOURCE, b, b.length));
        m.put("KmsgParser+OomReportParser", b -> OomReportParser.find(KmsgParser.parse(SOURCE, b, b.length),
                Instant.parse("2026-01-01T00:00:00Z")));
        m.put("LoadavgParser", b -> LoadavgParser.parse(SOURCE, b, b.length));
        m.put("MapsParser", b -> MapsParser.parse(SOURCE, b, b.length));
        m.put("MeminfoParser", b -> MeminfoParser.parse(SOURCE, b, b.length));
        m.put("MountinfoParser", b -> MountinfoParser.parse(SOURCE, b, b.length));
        m.put("ProcCgroupParser", b -> ProcCgroupParser.parse(SOURCE, b, b.length));
        m.put("CgroupOwnerParser", b -> CgroupOwnerParser.membership(SOURCE, b, b.length));
        m.put("ProcEventParser", b -> ProcEventParser.parse(b, b.length, new java.util.ArrayList<>()));
        m.put("SmapsParser.smaps", b -> SmapsParser.parseSmaps(SOURCE, b, b.length));
        m.put("SmapsParser.rollup", b -> SmapsParser.parseRollup(SOURCE, b, b.length));
        m.put("StatParser", b -> StatParser.parse(SOURCE, b, b.length, Fixtures.CONSTANTS));
        m.put("StatmParser", b -> StatmParser.parse(SOURCE, b, b.length, Fixtures.CONSTANTS));
        m.put("StatusParser", b -> StatusParser.parse(SOURCE, b, b.length));
        m.put("UptimeParser", b -> UptimeParser.parse(SOURCE, b, b.length));
        m.put("ValueFileParser.number", b -> ValueFileParser.number(SOURCE, b, b.length));
        m.put("ValueFileParser.limit", b -> ValueFileParser.limit(SOURCE, b, b.length));
        return m;
    }

    /** Bytes of any value. */
    private static Gen<byte[]> anyBytes() {
        return bytes(SourceDSL.integers().between(0, 255), 300);
    }

    /** Mostly the characters of kernel files: digits, separators, a few letters and keys; now and then any byte. */
    private static Gen<byte[]> kernelLikeBytes() {
        String common = "0123456789 0123456789\t\n\n:-,./()[]=xkBcpuSRZ_abdefmnorstvw";
        return bytes(SourceDSL.integers().between(0, common.length() + 6).zip(SourceDSL.integers().between(0, 255),
                (pick, any) -> pick < common.length() ? (int) common.charAt(pick) : any), 400);
    }

    /** The edges of the kernel's 64-bit numbers and just past them, among the keys and separators of its files. */
    private static final List<String> TOKENS = List.of("-9223372036854775808", "-9223372036854775809",
            "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-1", "0",
            "1", "4096", "2147483648", " ", " ", "\t", "\n", "\n", ":", "-", ",", ";", " kB", "(", ")", "btime ",
            "ctxt ", "processes ", "MemTotal:", "pos:", "flags:", "mnt_id:", "ino:", "Rss:", "Pss:", "VmRSS:",
            "VmFlags:", "00400000-00401000 r-xp 00000000 08:01 ", " sda ", "100 (job) S", "Uid:", "rchar: ", "max");

    /** Lines of kernel-file tokens and edge numbers, so that every parser meets -2^63 and 2^64-1 in its fields. */
    private static Gen<byte[]> edgeNumberBytes() {
        return SourceDSL.lists().of(SourceDSL.integers().between(0, TOKENS.size() - 1)).ofSizeBetween(0, 120)
                .map(list -> {
                    StringBuilder sb = new StringBuilder();
                    list.forEach(i -> sb.append(TOKENS.get(i)));
                    return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                });
    }

    private static Gen<byte[]> bytes(Gen<Integer> each, int maxLength) {
        return SourceDSL.lists().of(each).ofSizeBetween(0, maxLength).map(list -> {
            byte[] out = new byte[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (int) list.get(i);
            }
            return out;
        });
    }

    @Test
    void everyParserListedIsEveryParserThereIs() throws Exception {
        // A parser added without joining PARSERS fails here: the names of the package's …Parser classes.
        List<String> names;
        try (var s = java.nio.file.Files.list(Path.of(ParserContractTest.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI()).resolve("../classes/io/github/procscope/linux/parse").normalize())) {
            names = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith("Parser.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length())).sorted().toList();
        }
        List<String> covered = PARSERS.keySet().stream().flatMap(k -> List.of(k.split("[+/.]")).stream())
                .filter(n -> n.endsWith("Parser")).distinct().sorted().toList();
        assertEquals(names, covered);
    }

    @Test
    void arbitraryBytesRaiseNothingButParseExceptions() {
        for (Map.Entry<String, Consumer<byte[]>> p : PARSERS.entrySet()) {
            qt().withExamples(400).forAll(anyBytes()).checkAssert(b -> holds(p.getKey(), p.getValue(), b));
            qt().withExamples(1500).forAll(kernelLikeBytes()).checkAssert(b -> holds(p.getKey(), p.getValue(), b));
            qt().withExamples(1000).forAll(edgeNumberBytes()).checkAssert(b -> holds(p.getKey(), p.getValue(), b));
        }
    }

    private static void holds(String name, Consumer<byte[]> parser, byte[] b) {
        try {
            parser.accept(b);
        } catch (ProcfsParseException expected) {
            // the only failure allowed
        } catch (RuntimeException e) {
            fail(name + " threw " + e + " on " + printable(b), e);
        }
    }

    private static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte x : b) {
            int c = x & 0xff;
            sb.append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? String.valueOf((char) c)
                    : String.format("\\x%02x", c));
        }
        return sb.append('"').toString();
    }
}
