package io.github.procscope.cli;

import io.github.procscope.api.core.Pids;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import picocli.CommandLine;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Properties of the tool's argument parsing over generated input (pids, durations, signal names, counts and
 * sizes): a value is either taken, and then within its documented range, or refused with picocli's
 * {@link CommandLine.TypeConversionException} / {@link CommandLine.ParameterException}; never another
 * exception. A whole run with a bad value ends with exit status 2 and one line on stderr.
 */
class ArgumentParsingPropertiesTest {

    /** Text made of the characters that matter here: digits of several scripts, signs, units, spaces. */
    private static Gen<String> hostile() {
        String alphabet = "0123456789+-. _,:eEpPtTsSmMhHdDxX\u00a0\t\uFF10\uFF14\u0662\u0966SIGTERMKILLUSRrt";
        Gen<String> picked = integers().between(0, 24).zip(longs().all(), (len, seed) -> {
            StringBuilder b = new StringBuilder();
            long s = seed;
            for (int i = 0; i < len; i++) {
                s = s * 6364136223846793005L + 1442695040888963407L;
                b.append(alphabet.charAt((int) Long.remainderUnsigned(s >>> 17, alphabet.length())));
            }
            return b.toString();
        });
        Gen<String> numbers = longs().all().map((Long n) -> Long.toString(n));
        Gen<String> withUnits = longs().all().zip(integers().between(0, 5), (n, u) ->
                n + List.of("ms", "s", "m", "h", "", "x").get(u));
        Gen<String> iso = longs().all().zip(integers().between(0, 3), (n, u) ->
                List.of("PT" + n + "S", "PT" + n + "H", "P" + n + "D", "PT" + n + "M").get(u));
        return picked.mix(numbers, 30).mix(withUnits, 30).mix(iso, 20).mix(strings().allPossible().ofLengthBetween(0, 12), 20);
    }

    @Test
    void aPidIsAsciiDigitsInRangeOrRefused() {
        PidConverter c = new PidConverter();
        qt().withExamples(5000).forAll(hostile()).checkAssert(v -> {
            try {
                long pid = c.convert(v);
                assertTrue(v.matches("[0-9]+"), "only ASCII digits are taken: '" + v + "'");
                assertTrue(pid >= 1 && pid <= Pids.PID_MAX_LIMIT, v);
                assertEquals(Long.parseLong(v), pid);
            } catch (CommandLine.TypeConversionException e) {
                assertTrue(e.getMessage().contains(v) || v.isEmpty(), "the message names the value: " + e.getMessage());
            }
        });
    }

    @Test
    void aRefusedPidIsNamedAsTyped() {
        PidConverter c = new PidConverter();
        for (String v : List.of("0", "00", "0000", "4194305", "04194305")) {
            CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                    () -> c.convert(v), v);
            assertTrue(e.getMessage().contains(v), v + ": " + e.getMessage());
        }
        assertEquals(42L, c.convert("0042"));
    }

    @Test
    void aDurationIsWithinItsBoundsOrRefused() {
        List<DurationConverter> converters = List.of(new DurationConverter(), new DurationConverter.Grace(),
                new DurationConverter.Interval());
        qt().withExamples(5000).forAll(hostile()).checkAssert(v -> {
            for (DurationConverter c : converters) {
                try {
                    Duration d = c.convert(v);
                    assertFalse(d.isNegative(), v);
                    Duration max = c instanceof DurationConverter.Grace ? DurationConverter.MAX_GRACE
                            : DurationConverter.MAX_INTERVAL;
                    assertTrue(d.compareTo(max) <= 0, v + " -> " + d);
                    if (c instanceof DurationConverter.Interval) {
                        assertTrue(d.compareTo(DurationConverter.MIN_INTERVAL) >= 0, v + " -> " + d);
                    }
                    d.toMillis(); // never overflows
                } catch (CommandLine.TypeConversionException e) {
                    assertTrue(e.getMessage().startsWith("'" + v + "'"), "names the value: " + e.getMessage());
                }
            }
        });
    }

    @Test
    void aSignalIsKnownOrRefused() {
        StopCommand.SignalConverter c = new StopCommand.SignalConverter();
        qt().withExamples(3000).forAll(hostile()).checkAssert(v -> {
            try {
                Signal s = c.convert(v);
                assertTrue(s.number() >= 1 && s.number() <= Signal.MAX_NUMBER, v);
            } catch (CommandLine.TypeConversionException e) {
                assertFalse(e.getMessage().isBlank());
            }
        });
    }

    @Test
    void aStopCommandLineParsesOrIsAParameterError() {
        qt().withExamples(1000).forAll(hostile(), hostile(), hostile()).checkAssert((pid, grace, signal) -> {
            StopCommand stop = new StopCommand();
            try {
                new CommandLine(stop).parseArgs("--grace", grace, "--signal", signal, "--", pid);
                assertTrue(stop.pid >= 1 && stop.pid <= Pids.PID_MAX_LIMIT);
                assertTrue(stop.grace.compareTo(DurationConverter.MAX_GRACE) <= 0 && !stop.grace.isNegative());
            } catch (CommandLine.ParameterException e) {
                assertFalse(e.getMessage().isBlank());
            }
        });
    }

    @Test
    void countsAndSizesParseOrAreParameterErrors() {
        qt().withExamples(2000).forAll(hostile(), hostile(), hostile()).checkAssert((count, mib, top) -> {
            try {
                new CommandLine(new IostatCommand()).parseArgs("1s", count);
            } catch (CommandLine.ParameterException e) {
                assertFalse(e.getMessage().isBlank());
            }
            try {
                new CommandLine(new DoctorCommand()).parseArgs("--deleted-min-mib", mib, "--gpu-idle-memory-mib", mib,
                        "--disk-threshold", top);
            } catch (CommandLine.ParameterException e) {
                assertFalse(e.getMessage().isBlank());
            }
            try {
                new CommandLine(new DuCommand()).parseArgs("--top", top, "/");
            } catch (CommandLine.ParameterException e) {
                assertFalse(e.getMessage().isBlank());
            }
        });
    }

    @Test
    void aWholeRunWithABadValueIsExitTwoWithOneLine() {
        // Values made bad on purpose (a letter inside), run through the whole tool on read-only commands.
        qt().withExamples(100).forAll(hostile(), integers().between(0, 3)).checkAssert((v, which) -> {
            String bad = v + "q";
            List<String> args = switch (which) {
                case 0 -> List.of("signals", "--", bad);
                case 1 -> List.of("iostat", bad, "1");
                case 2 -> List.of("threads", "--", bad);
                default -> List.of("stop", "4194304", "--grace", bad);
            };
            CliRun r = CliRun.of(args.toArray(String[]::new));
            assertEquals(2, r.status(), args + " -> " + r.err());
            assertTrue(r.err().startsWith("procscope "), r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        });
    }
}
