package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * {@link StatusCountersParser} against {@link StatusParser}: the same values where the whole parser reads the file,
 * the same typed error where a line the counters' parser reads is damaged.
 */
class StatusCountersParserTest {
    private static final Path SRC = Path.of("/proc/100/status");
    /** The keys whose values the counters' parser reads. */
    private static final List<String> READ_KEYS = List.of("VmSwap", "voluntary_ctxt_switches",
            "nonvoluntary_ctxt_switches", "Threads", "Tgid");
    /** Values for those keys: well-formed, at and past the bounds, negative, not numbers, with trailing text. */
    private static final List<String> VALUES = List.of("0", "7", "  42 kB", "42 kB", "9223372036854775807",
            "9007199254740991 kB", "9007199254740992 kB", "2147483647", "2147483648", "18446744073709551615",
            "18446744073709551616", "-1", "-1 kB", "abc", "", "12 kB x", "12 MB", "12 k", "12x", "0x10", "1 2",
            "\u00e9", "99999999999999999999999999");

    private static StatusCountersParser.Values counters(byte[] b) {
        return StatusCountersParser.parse(() -> SRC, b, b.length, new StatusCountersParser.Values());
    }

    /** What the counters' parser must give for a file the whole parser read. */
    private static void assertSameValues(ProcessStatus full, StatusCountersParser.Values v, String what) {
        assertEquals(full.memory().swapBytes().orElse(-1), v.swapBytes, what);
        assertEquals(full.voluntaryContextSwitches().orElse(-1), v.voluntary, what);
        assertEquals(full.nonvoluntaryContextSwitches().orElse(-1), v.nonvoluntary, what);
        assertEquals(full.threads(), v.threads, what);
        assertEquals(full.tgid(), v.tgid, what);
    }

    /** The same outcome: the same values, or the same exception with the same message. */
    private static void assertSameOutcome(byte[] b, String what) {
        ProcessStatus full;
        try {
            full = StatusParser.parse(SRC, b, b.length);
        } catch (ProcfsParseException e) {
            ProcfsParseException light = assertThrows(ProcfsParseException.class, () -> counters(b), what);
            assertEquals(e.getMessage(), light.getMessage(), what);
            assertEquals(e.line(), light.line(), what);
            return;
        }
        assertSameValues(full, counters(b), what);
    }

    /**
     * The contract on any bytes: where the whole parser reads the file the counters agree; where the counters'
     * parser refuses it the whole parser refuses it too.
     */
    private static void assertNeverLooser(byte[] b, String what) {
        StatusCountersParser.Values v;
        try {
            v = counters(b);
        } catch (ProcfsParseException light) {
            // The whole parser may stop earlier, at a value only it reads (a state letter, an id): its message
            // names that line.
            assertThrows(ProcfsParseException.class, () -> StatusParser.parse(SRC, b, b.length), what);
            return;
        }
        ProcessStatus full;
        try {
            full = StatusParser.parse(SRC, b, b.length);
        } catch (ProcfsParseException e) {
            return; // a line whose value only the whole parser reads
        }
        assertSameValues(full, v, what);
    }

    private static List<Path> statusFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().equals("status") && Files.isRegularFile(p)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(String relative) {
        return new String(Fixtures.bytes(relative), StandardCharsets.ISO_8859_1);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The file with the value of {@code key}'s line replaced. */
    private static String withValue(String file, String key, String value) {
        int at = file.startsWith(key + ":") ? 0 : file.indexOf("\n" + key + ":") + 1;
        assertTrue(at >= 0 && file.startsWith(key + ":", at), key);
        int end = file.indexOf('\n', at);
        end = end < 0 ? file.length() : end;
        return file.substring(0, at) + key + ":\t" + value + file.substring(end);
    }

    @Test
    void everyFixtureStatusFileGivesTheWholeParsersValuesOrError() {
        List<Path> files = new ArrayList<>();
        for (Path root : List.of(Fixtures.path("proc").getParent(), Fixtures.path("proc").getParent().getParent())) {
            files.addAll(statusFiles(root));
        }
        assertTrue(files.size() >= 28, "fixture status files: " + files.size());
        for (Path p : files) {
            assertSameOutcome(read(p), p.toString());
        }
    }

    @Test
    void everyLiveStatusFileOfThisSystemGivesTheWholeParsersValues() throws IOException {
        int read = 0;
        // Threads and processes come and go while they are listed and read: one that is gone is passed over.
        List<Path> dirs = new ArrayList<>();
        for (Path parent : List.of(Path.of("/proc/self/task"), Path.of("/proc"))) {
            try (Stream<Path> s = Files.list(parent)) {
                s.filter(d -> d.getFileName().toString().matches("[0-9]+")).forEach(dirs::add);
            }
        }
        for (Path d : dirs) {
            byte[] b;
            try {
                b = Files.readAllBytes(d.resolve("status"));
            } catch (IOException gone) {
                continue;
            }
            assertSameValues(StatusParser.parse(SRC, b, b.length), counters(b), d.toString());
            read++;
        }
        assertTrue(read > 10, "status files read: " + read);
    }

    @Test
    void aDamagedValueOfAReadKeyGivesTheWholeParsersError() {
        String base = text("proc/100/status");
        for (String key : READ_KEYS) {
            for (String value : VALUES) {
                assertSameOutcome(bytes(withValue(base, key, value)), key + "=" + value);
            }
        }
    }

    @Test
    void generatedValuesOfReadKeysGiveTheWholeParsersOutcome() {
        String base = text("proc/100/status");
        qt().forAll(integers().between(0, READ_KEYS.size() - 1), longs().all(), integers().between(0, 5))
                .checkAssert((k, n, form) -> {
                    String number = switch (form) {
                        case 0 -> Long.toString(n);
                        case 1 -> Long.toUnsignedString(n);
                        case 2 -> Long.toUnsignedString(n) + " kB";
                        case 3 -> Long.toString(Math.abs(n % 10_000_000)) + " kB";
                        case 4 -> Long.toUnsignedString(n) + "9";
                        default -> Long.toString(Math.abs(n % 1000)) + "\t";
                    };
                    String key = READ_KEYS.get(k);
                    assertSameOutcome(bytes(withValue(base, key, number)), key + "=" + number);
                });
    }

    @Test
    void anyPrefixOfAStatusFileIsReadNoMoreLooselyThanByTheWholeParser() {
        for (String f : List.of("100/status", "100/task/101/status", "2/status", "1/status")) {
            byte[] whole = Fixtures.bytes("proc/" + f);
            for (int n = 0; n <= whole.length; n++) {
                byte[] prefix = java.util.Arrays.copyOf(whole, n);
                assertNeverLooser(prefix, f + " cut at " + n);
            }
        }
    }

    @Test
    void generatedDamageAnywhereIsReadNoMoreLooselyThanByTheWholeParser() {
        byte[] base = Fixtures.bytes("proc/100/status");
        byte[] noise = {'\n', ':', ' ', '\t', '-', 'x', '0', '9', (byte) 0xff, 0};
        qt().forAll(integers().between(0, base.length - 1), integers().between(0, noise.length - 1),
                integers().between(0, 2)).checkAssert((at, which, how) -> {
                    byte[] b = switch (how) {
                        case 0 -> { // overwrite one byte
                            byte[] c = base.clone();
                            c[at] = noise[which];
                            yield c;
                        }
                        case 1 -> { // insert one byte
                            byte[] c = new byte[base.length + 1];
                            System.arraycopy(base, 0, c, 0, at);
                            c[at] = noise[which];
                            System.arraycopy(base, at, c, at + 1, base.length - at);
                            yield c;
                        }
                        default -> { // delete one byte
                            byte[] c = new byte[base.length - 1];
                            System.arraycopy(base, 0, c, 0, at);
                            System.arraycopy(base, at + 1, c, at, base.length - at - 1);
                            yield c;
                        }
                    };
                    assertNeverLooser(b, "damage " + how + " at " + at + " with " + noise[which]);
                });
    }

    @Test
    void aMissingLineIsEmptyOrTheWholeParsersError() {
        String base = text("proc/100/status");
        for (String key : List.of("VmSwap", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches", "Threads",
                "Name", "State", "Tgid", "Pid", "PPid", "Uid", "Gid")) {
            int at = base.startsWith(key + ":") ? 0 : base.indexOf("\n" + key + ":") + 1;
            int end = base.indexOf('\n', at);
            String without = base.substring(0, at) + base.substring(end + 1);
            assertSameOutcome(bytes(without), "without " + key);
        }
        StatusCountersParser.Values v = counters(bytes(withValue(base, "Threads", "3")
                .replace("VmSwap:\t     128 kB\n", "")));
        assertEquals(-1, v.swapBytes);
        assertEquals(3, v.threads);
        assertEquals(338, v.voluntary);
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> counters(bytes(base.replace("Threads:\t2\n", ""))));
        assertTrue(e.getMessage().contains("missing one of the required lines"), e.getMessage());
    }

    @Test
    void hostileValuesAreRefusedWithTheKeyNamed() {
        String base = text("proc/100/status");
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> counters(bytes(withValue(base, "voluntary_ctxt_switches", "18446744073709551615"))));
        assertTrue(e.getMessage().contains("voluntary_ctxt_switches out of range: 18446744073709551615"),
                e.getMessage());
        e = assertThrows(ProcfsParseException.class,
                () -> counters(bytes(withValue(base, "VmSwap", "9007199254740992 kB"))));
        assertTrue(e.getMessage().contains("VmSwap out of range"), e.getMessage());
        e = assertThrows(ProcfsParseException.class,
                () -> counters(bytes(withValue(base, "nonvoluntary_ctxt_switches", "-1"))));
        assertTrue(e.getMessage().contains(SRC.toString()), e.getMessage());
        e = assertThrows(ProcfsParseException.class,
                () -> counters(bytes(base + "voluntary_ctxt_switches:\t1\n")));
        assertTrue(e.getMessage().contains("duplicate voluntary_ctxt_switches line"), e.getMessage());
        e = assertThrows(ProcfsParseException.class, () -> counters(bytes(withValue(base, "Threads", "2 x"))));
        assertTrue(e.getMessage().contains("unexpected text after the value of Threads"), e.getMessage());
        assertThrows(ProcfsParseException.class, () -> counters(new byte[0]));
        assertThrows(ProcfsParseException.class, () -> counters(bytes("no key here\n")));
        // A name of invalid UTF-8 with a newline escaped, and no newline at the end of the file: read as the kernel
        // wrote it.
        String hostileName = withValue(base, "Name", "a\\nb\u00ff\u00fe").stripTrailing();
        assertSameOutcome(bytes(hostileName), "hostile name");
        StatusCountersParser.Values v = counters(bytes(hostileName));
        assertEquals(28, v.nonvoluntary);
        if (v.voluntary != 338) {
            fail("voluntary " + v.voluntary);
        }
    }
}
