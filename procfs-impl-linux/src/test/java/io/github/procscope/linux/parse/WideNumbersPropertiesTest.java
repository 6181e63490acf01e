package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.signals.SignalSet;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;

/**
 * The kernel's 64-bit numbers, signed and unsigned, at their edges: the lexer takes -2^63 to 2^64-1 as numbers,
 * and each field of {@code /proc/PID/stat} either holds the number exactly (as its documented representation) or
 * refuses it naming the field and the number; never "expected a number", never a wrapped or saturated value.
 */
class WideNumbersPropertiesTest {
    private static final Path STAT = Path.of("/proc/100/stat");
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
    private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger MAX_U64 = TWO_64.subtract(BigInteger.ONE);
    private static final BigInteger MIN_INT = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger MAX_INT = BigInteger.valueOf(Integer.MAX_VALUE);

    /** The edges of both 64-bit types and of int, and their neighbours. */
    private static final List<BigInteger> EDGES = List.of(MIN_LONG, MIN_LONG.add(BigInteger.ONE),
            MIN_INT.subtract(BigInteger.ONE), MIN_INT, BigInteger.valueOf(-102), BigInteger.valueOf(-21),
            BigInteger.valueOf(-2), BigInteger.valueOf(-1), BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(99),
            BigInteger.valueOf(255), BigInteger.valueOf(256), MAX_INT, MAX_INT.add(BigInteger.ONE),
            MAX_LONG.divide(BigInteger.valueOf(Fixtures.PAGE)), MAX_LONG.divide(BigInteger.valueOf(Fixtures.PAGE))
                    .add(BigInteger.ONE), MAX_LONG.subtract(BigInteger.ONE), MAX_LONG, MAX_LONG.add(BigInteger.ONE),
            MAX_U64.subtract(BigInteger.ONE), MAX_U64);

    /** Numbers from -2^63 to 2^64-1: the edges, and any long read signed or unsigned. */
    private static Gen<BigInteger> wideNumbers() {
        Gen<BigInteger> edge = SourceDSL.integers().between(0, EDGES.size() - 1).map(EDGES::get);
        Gen<BigInteger> signed = SourceDSL.longs().all().map(BigInteger::valueOf);
        Gen<BigInteger> unsigned = SourceDSL.longs().all().map(v -> new BigInteger(Long.toUnsignedString(v)));
        return edge.mix(signed.mix(unsigned, 50), 50);
    }

    private static long bits(BigInteger x) {
        return x.longValue(); // the low 64 bits, two's complement
    }

    @Test
    void theLexerTakesTheWholeSignedAndUnsignedRanges() {
        qt().withExamples(3000).forAll(SourceDSL.longs().all()).checkAssert(v -> {
            byte[] s = (Long.toString(v) + " ").getBytes(StandardCharsets.US_ASCII);
            assertEquals(v, new ByteCursor(STAT, s, s.length).decimal());
            byte[] u = Long.toUnsignedString(v).getBytes(StandardCharsets.US_ASCII);
            assertEquals(v, new ByteCursor(STAT, u, u.length).unsignedDecimal());
            ByteCursor w = new ByteCursor(STAT, s, s.length);
            assertEquals(v, w.wideDecimal());
            assertEquals(v < 0, w.wasNegative());
            ByteCursor wu = new ByteCursor(STAT, u, u.length);
            assertEquals(v, wu.wideDecimal());
            assertFalse(wu.wasNegative());
        });
        for (String beyond : new String[] {"-9223372036854775809", "18446744073709551616", "99999999999999999999"}) {
            byte[] b = beyond.getBytes(StandardCharsets.US_ASCII);
            ProcfsParseException e = assertThrows(ProcfsParseException.class,
                    () -> new ByteCursor(STAT, b, b.length).wideDecimal());
            assertFalse(e.getMessage().contains("expected a number"), e.getMessage());
        }
        byte[] max = "9223372036854775808".getBytes(StandardCharsets.US_ASCII);
        assertThrows(ProcfsParseException.class, () -> new ByteCursor(STAT, max, max.length).decimal());
    }

    /** A valid stat line of 52 fields with field {@code field} replaced by {@code value}. */
    private static byte[] statWith(int field, BigInteger value) {
        StringBuilder b = new StringBuilder("100 (job) S");
        for (int i = 4; i <= 52; i++) {
            String v = i == 20 ? "1" : i == 18 ? "20" : "0";
            b.append(' ').append(i == field ? value.toString() : v);
        }
        return b.append('\n').toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** What a field means: the values it takes, and how the parsed record shows one. */
    private record Field(BigInteger min, BigInteger max, Function<ProcessStat, Object> shown,
                         Function<BigInteger, Object> expected) {
    }

    private static Field field(long min, long max, Function<ProcessStat, Object> shown) {
        return new Field(BigInteger.valueOf(min), BigInteger.valueOf(max), shown, BigInteger::longValue);
    }

    private static Duration ticks(BigInteger x) {
        return Fixtures.CONSTANTS.ticks(bits(x));
    }

    private static OptionalLong address(BigInteger x) {
        return x.signum() == 0 ? OptionalLong.empty() : OptionalLong.of(bits(x));
    }

    /** The contract of each field, written from proc(5) and fs/proc/array.c: the specification under test. */
    private static Field contract(int n) {
        BigInteger u64 = MAX_U64;
        switch (n) {
            case 4: return field(0, Integer.MAX_VALUE, ProcessStat::ppid);
            case 5: return new Field(BigInteger.valueOf(-1), MAX_INT, ProcessStat::pgrp, x -> Math.max(0, x.longValue()));
            case 6: return new Field(BigInteger.valueOf(-1), MAX_INT, ProcessStat::session,
                    x -> Math.max(0, x.longValue()));
            case 7: return new Field(MIN_INT, MAX_INT, ProcessStat::ttyNr, BigInteger::intValue);
            case 8: return new Field(BigInteger.valueOf(-1), MAX_INT, ProcessStat::terminalProcessGroup,
                    x -> x.signum() < 0 ? OptionalLong.empty() : OptionalLong.of(x.longValue()));
            case 9: return new Field(BigInteger.ZERO, u64, ProcessStat::flags, WideNumbersPropertiesTest::bits);
            case 10: return field(0, Long.MAX_VALUE, ProcessStat::minorFaults);
            case 11: return field(0, Long.MAX_VALUE, ProcessStat::childMinorFaults);
            case 12: return field(0, Long.MAX_VALUE, ProcessStat::majorFaults);
            case 13: return field(0, Long.MAX_VALUE, ProcessStat::childMajorFaults);
            case 14: return new Field(BigInteger.ZERO, u64, ProcessStat::userTime, WideNumbersPropertiesTest::ticks);
            case 15: return new Field(BigInteger.ZERO, u64, ProcessStat::systemTime, WideNumbersPropertiesTest::ticks);
            // Printed signed, held unsigned: the same 64 bits.
            case 16: return new Field(MIN_LONG, u64, ProcessStat::childUserTime, WideNumbersPropertiesTest::ticks);
            case 17: return new Field(MIN_LONG, u64, ProcessStat::childSystemTime, WideNumbersPropertiesTest::ticks);
            case 18: return field(-101, 39, ProcessStat::priority);
            case 19: return new Field(BigInteger.valueOf(-20), BigInteger.valueOf(19), ProcessStat::nice,
                    BigInteger::intValue);
            case 20: return new Field(BigInteger.ZERO, MAX_INT, ProcessStat::threads, BigInteger::intValue);
            case 21: return field(Long.MIN_VALUE, Long.MAX_VALUE, ProcessStat::itRealValue);
            case 22: return field(0, Long.MAX_VALUE, ProcessStat::startTimeTicks);
            case 23: return field(0, Long.MAX_VALUE, ProcessStat::vszBytes);
            case 24: return new Field(BigInteger.ZERO, MAX_LONG.divide(BigInteger.valueOf(Fixtures.PAGE)),
                    ProcessStat::rssBytes, x -> x.longValue() * Fixtures.PAGE);
            case 25: return new Field(BigInteger.ZERO, u64, ProcessStat::rssLimitBytes,
                    x -> x.compareTo(MAX_LONG) > 0 ? OptionalLong.empty() : OptionalLong.of(x.longValue()));
            case 26: return new Field(BigInteger.ZERO, u64, ProcessStat::startCode, WideNumbersPropertiesTest::address);
            case 27: return new Field(BigInteger.ZERO, u64, ProcessStat::endCode, WideNumbersPropertiesTest::address);
            case 28: return new Field(BigInteger.ZERO, u64, ProcessStat::startStack, WideNumbersPropertiesTest::address);
            case 29: return new Field(BigInteger.ZERO, u64, ProcessStat::kstkEsp, WideNumbersPropertiesTest::address);
            case 30: return new Field(BigInteger.ZERO, u64, ProcessStat::kstkEip, WideNumbersPropertiesTest::address);
            case 31: return new Field(BigInteger.ZERO, u64, ProcessStat::signalPending, x -> SignalSet.fromMask(bits(x)));
            case 32: return new Field(BigInteger.ZERO, u64, ProcessStat::signalBlocked, x -> SignalSet.fromMask(bits(x)));
            case 33: return new Field(BigInteger.ZERO, u64, ProcessStat::signalIgnored, x -> SignalSet.fromMask(bits(x)));
            case 34: return new Field(BigInteger.ZERO, u64, ProcessStat::signalCaught, x -> SignalSet.fromMask(bits(x)));
            case 35: return new Field(BigInteger.ZERO, u64, ProcessStat::wchan, WideNumbersPropertiesTest::bits);
            case 36: return field(0, Long.MAX_VALUE, ProcessStat::swappedPages);
            case 37: return field(0, Long.MAX_VALUE, ProcessStat::childSwappedPages);
            case 38: return new Field(BigInteger.valueOf(-1), BigInteger.valueOf(255), s -> s.exitSignal().map(
                    sig -> sig.number()), x -> x.intValue() >= 1 && x.intValue() <= 64 ? Optional.of(x.intValue())
                    : Optional.empty());
            case 39: return new Field(BigInteger.ZERO, MAX_INT, ProcessStat::processor, BigInteger::intValue);
            case 40: return new Field(BigInteger.ZERO, BigInteger.valueOf(99), ProcessStat::rtPriority,
                    BigInteger::intValue);
            case 41: return new Field(BigInteger.ZERO, BigInteger.valueOf(255), ProcessStat::policyNumber,
                    BigInteger::intValue);
            case 42: return new Field(BigInteger.ZERO, u64, ProcessStat::blockIoDelay, x -> Optional.of(ticks(x)));
            case 43: return new Field(BigInteger.ZERO, u64, ProcessStat::guestTime, x -> Optional.of(ticks(x)));
            case 44: return new Field(MIN_LONG, u64, ProcessStat::childGuestTime, x -> Optional.of(ticks(x)));
            case 45: return new Field(BigInteger.ZERO, u64, ProcessStat::startData, WideNumbersPropertiesTest::address);
            case 46: return new Field(BigInteger.ZERO, u64, ProcessStat::endData, WideNumbersPropertiesTest::address);
            case 47: return new Field(BigInteger.ZERO, u64, ProcessStat::startBrk, WideNumbersPropertiesTest::address);
            case 48: return new Field(BigInteger.ZERO, u64, ProcessStat::argStart, WideNumbersPropertiesTest::address);
            case 49: return new Field(BigInteger.ZERO, u64, ProcessStat::argEnd, WideNumbersPropertiesTest::address);
            case 50: return new Field(BigInteger.ZERO, u64, ProcessStat::envStart, WideNumbersPropertiesTest::address);
            case 51: return new Field(BigInteger.ZERO, u64, ProcessStat::envEnd, WideNumbersPropertiesTest::address);
            case 52: return new Field(MIN_INT, MAX_INT, ProcessStat::exitCode,
                    x -> x.signum() == 0 ? OptionalInt.empty() : OptionalInt.of(x.intValue()));
            default: throw new AssertionError("no field " + n);
        }
    }

    @Test
    void everyStatFieldHoldsANumberExactlyOrRefusesItByName() {
        qt().withExamples(6000).forAll(SourceDSL.integers().between(4, 52), wideNumbers()).checkAssert((n, x) -> {
            Field f = contract(n);
            byte[] line = statWith(n, x);
            boolean fits = x.compareTo(f.min()) >= 0 && x.compareTo(f.max()) <= 0;
            if (fits) {
                ProcessStat s = StatParser.parse(STAT, line, line.length, Fixtures.CONSTANTS);
                assertEquals(f.expected().apply(x), f.shown().apply(s), "field " + n + " = " + x);
            } else {
                try {
                    StatParser.parse(STAT, line, line.length, Fixtures.CONSTANTS);
                    fail("field " + n + " = " + x + " was taken");
                } catch (ProcfsParseException e) {
                    assertTrue(e.getMessage().contains(StatParser.NAMES[n] + " (field " + n + ")"), e.getMessage());
                    assertTrue(e.getMessage().contains(x.toString()), e.getMessage());
                    assertFalse(e.getMessage().contains("expected a number"), e.getMessage());
                }
            }
        });
    }

    @Test
    void everyFieldMeetsEveryEdge() {
        // The property above draws at random; here every field meets every edge once, so none is left untried.
        for (int n = 4; n <= 52; n++) {
            Field f = contract(n);
            for (BigInteger x : EDGES) {
                byte[] line = statWith(n, x);
                if (x.compareTo(f.min()) >= 0 && x.compareTo(f.max()) <= 0) {
                    assertEquals(f.expected().apply(x),
                            f.shown().apply(StatParser.parse(STAT, line, line.length, Fixtures.CONSTANTS)),
                            "field " + n + " = " + x);
                } else {
                    ProcfsParseException e = assertThrows(ProcfsParseException.class,
                            () -> StatParser.parse(STAT, line, line.length, Fixtures.CONSTANTS), "field " + n + " = " + x);
                    assertTrue(e.getMessage().contains("(field " + n + ")") && e.getMessage().contains(x.toString()),
                            e.getMessage());
                }
            }
        }
    }
}
