package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/** The hand-written formats write exactly what {@code String.format} wrote before them. */
class UnitsTest {

    @Test
    void decimalsRoundAsTheFormatterDoes() {
        qt().withExamples(20_000).forAll(integers().between(-10_000_000, 10_000_000)).checkAssert(k -> {
            double v = k / 1000.0;
            assertEquals(String.format(Locale.ROOT, "%.1f", v), Units.decimal(v, 1), "v = " + v);
            assertEquals(String.format(Locale.ROOT, "%.0f", v), Units.decimal(v, 0), "v = " + v);
        });
        qt().withExamples(20_000).forAll(longs().between(0, Long.MAX_VALUE)).checkAssert(bits -> {
            double v = Double.longBitsToDouble(bits);
            if (Double.isFinite(v) && Math.abs(v) < 1e12) {
                // every exponent the format meets: tiny, ordinary and large magnitudes, both signs
                for (double w : new double[] {v, -v, v * 1e-3, v * 1e3}) {
                    assertEquals(String.format(Locale.ROOT, "%.1f", w), Units.decimal(w, 1), "w = " + w);
                    assertEquals(String.format(Locale.ROOT, "%.0f", w), Units.decimal(w, 0), "w = " + w);
                }
            }
        });
        assertEquals("-0.0", Units.decimal(-0.04, 1));
        assertEquals("-0.0", Units.decimal(-0.0, 1));
        assertEquals("100", Units.decimal(99.5, 0));
        assertEquals("10.0", Units.decimal(9.96, 1));
        assertEquals("12345678.9", Units.decimal(1.23456789e7, 1));
        assertEquals("0.0", Units.decimal(4.9e-324, 1));
        assertEquals("1.0", Units.decimal(0.95, 1));
        assertEquals("1.1", Units.decimal(1.05, 1));
        assertEquals("0.2", Units.decimal(0.15, 1));
        assertEquals("NaN", Units.decimal(Double.NaN, 1));
        assertEquals("Infinity", Units.decimal(Double.POSITIVE_INFINITY, 1));
        assertEquals("-Infinity", Units.decimal(Double.NEGATIVE_INFINITY, 0));
    }

    @Test
    void elapsedIsPsForm() {
        qt().withExamples(20_000).forAll(longs().between(-5, 40L * 365 * 86_400)).checkAssert(s -> {
            long t = Math.max(0, s);
            long days = t / 86_400;
            long h = (t / 3600) % 24;
            long m = (t / 60) % 60;
            long sec = t % 60;
            String expected = days > 0 ? String.format(Locale.ROOT, "%d-%02d:%02d:%02d", days, h, m, sec)
                    : h > 0 ? String.format(Locale.ROOT, "%02d:%02d:%02d", h, m, sec)
                    : String.format(Locale.ROOT, "%02d:%02d", m, sec);
            assertEquals(expected, Units.elapsed(Duration.ofSeconds(s)), "s = " + s);
        });
        assertEquals("00:00", Units.elapsed(Duration.ofSeconds(0)));
        assertEquals("01:00:00", Units.elapsed(Duration.ofHours(1)));
        assertEquals("1-00:00:05", Units.elapsed(Duration.ofSeconds(86_405)));
    }

    @Test
    void bytesInBinaryUnits() {
        qt().withExamples(20_000).forAll(longs().between(0, Long.MAX_VALUE)).checkAssert(b -> {
            String expected;
            if (b < 1024) {
                expected = b + "B";
            } else {
                double v = b;
                int u = -1;
                while (v >= 1024 && u < 5) {
                    v /= 1024;
                    u++;
                }
                expected = String.format(Locale.ROOT, v >= 100 ? "%.0f%c" : "%.1f%c", v, "KMGTPE".charAt(u));
            }
            assertEquals(expected, Units.bytes(b), "b = " + b);
        });
        assertEquals("1023B", Units.bytes(1023));
        assertEquals("1.0K", Units.bytes(1024));
        assertEquals("1.5K", Units.bytes(1536));
        assertEquals("8.0E", Units.bytes(Long.MAX_VALUE));
        assertEquals("37.3", Units.percent(37.25));
    }
}
