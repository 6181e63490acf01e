package io.github.procscope.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Durations as people write them: {@code 500ms}, {@code 3s}, {@code 1.5s}, {@code 2m}, {@code 1h}, a bare
 * number of seconds, or ISO-8601 ({@code PT3S}). Negative or malformed values are refused with a message
 * that shows the accepted forms.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        Duration d = parse(value);
        if (d == null) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: write 500ms, 3s, 1.5s, 2m, 1h or PT3S");
        }
        if (d.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative: a duration must be 0 or more");
        }
        return d;
    }

    static Duration parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return null;
        }
        if (v.startsWith("pt") || v.startsWith("-pt")) {
            try {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                return null;
            }
        }
        long nanosPerUnit;
        String number;
        if (v.endsWith("ms")) {
            nanosPerUnit = 1_000_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            nanosPerUnit = 1_000_000_000L;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("m")) {
            nanosPerUnit = 60_000_000_000L;
            number = v.substring(0, v.length() - 1);
        } else if (v.endsWith("h")) {
            nanosPerUnit = 3_600_000_000_000L;
            number = v.substring(0, v.length() - 1);
        } else {
            nanosPerUnit = 1_000_000_000L;
            number = v;
        }
        if (number.isEmpty() || !number.matches("-?[0-9]{1,9}(\\.[0-9]{1,9})?")) {
            return null;
        }
        java.math.BigDecimal nanos = new java.math.BigDecimal(number).multiply(java.math.BigDecimal.valueOf(nanosPerUnit));
        return Duration.ofNanos(nanos.longValue());
    }
}
