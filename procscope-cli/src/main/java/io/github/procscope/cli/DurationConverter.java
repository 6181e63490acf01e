package io.github.procscope.cli;

import picocli.CommandLine;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Durations as people write them: {@code 500ms}, {@code 3s}, {@code 1.5s}, {@code 2m}, {@code 1h}, a bare
 * number of seconds, or ISO-8601 ({@code PT3S}). Negative, malformed, too short and too long values are
 * refused with a message that names the value as it was written. Nothing wraps: the value is computed
 * exactly and compared with the limit before it becomes a {@link Duration}.
 *
 * <p>As strict as a pid ({@link PidConverter}): ASCII only, no space anywhere (not around the value either),
 * no {@code +} sign, the units in lower case exactly as listed, an ISO-8601 value in upper case as the
 * standard writes it. A leading {@code -} is read only to say that the value is negative.
 *
 * <p>This converter takes anything from 0 up to a year (an interval, a time window, an age). Its nested
 * subclasses narrow that: {@link Grace} (at most 30 days) and {@link Interval} (at least 10 ms).
 */
class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    /** The longest interval, window or age the tool takes: 365 days. */
    static final Duration MAX_INTERVAL = Duration.ofDays(365);
    /** The longest grace period the tool takes: 30 days. */
    static final Duration MAX_GRACE = Duration.ofDays(30);
    /** The shortest sampling interval: the kernel's uptime has 10 ms resolution. */
    static final Duration MIN_INTERVAL = Duration.ofMillis(10);

    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private final Duration min;
    private final Duration max;
    private final String what;

    DurationConverter() {
        this(Duration.ZERO, MAX_INTERVAL, "a duration here");
    }

    DurationConverter(Duration min, Duration max, String what) {
        this.min = min;
        this.max = max;
        this.what = what;
    }

    /** A grace period: 0 up to 30 days. */
    static final class Grace extends DurationConverter {
        Grace() {
            super(Duration.ZERO, MAX_GRACE, "a grace period");
        }
    }

    /** A sampling interval: 10 ms up to a year. */
    static final class Interval extends DurationConverter {
        Interval() {
            super(MIN_INTERVAL, MAX_INTERVAL, "an interval");
        }
    }

    @Override
    public Duration convert(String value) {
        BigDecimal nanos = exactNanos(value);
        if (nanos == null) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a duration: write 500ms, 3s, 1.5s, 2m, 1h or PT3S (digits 0-9, a unit in lower case,"
                    + " no spaces, no sign)");
        }
        if (nanos.signum() < 0 || value.startsWith("-")) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative: a duration must be 0 or more");
        }
        if (nanos.compareTo(nanosOf(max)) > 0) {
            throw new CommandLine.TypeConversionException("'" + value + "' is too long: " + what + " is at most "
                    + words(max));
        }
        if (nanos.compareTo(nanosOf(min)) < 0) {
            throw new CommandLine.TypeConversionException("'" + value + "' is too short: " + what + " is at least "
                    + words(min));
        }
        return toDuration(nanos);
    }

    /**
     * @return the value in nanoseconds, exactly (negative for a value written with a leading {@code -}), or
     *         {@code null} if it is malformed
     */
    static BigDecimal exactNanos(String value) {
        if (value.isEmpty() || value.length() > 64) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c > '~') {
                return null; // a space, a control character, anything beyond ASCII
            }
        }
        boolean negative = value.startsWith("-");
        String body = negative ? value.substring(1) : value;
        if (body.startsWith("P")) {
            if (!body.equals(body.toUpperCase(Locale.ROOT)) || body.indexOf('+') >= 0) {
                return null;
            }
            Duration d;
            try {
                d = Duration.parse(value);
            } catch (DateTimeParseException | ArithmeticException e) {
                return null;
            }
            return nanosOf(d);
        }
        long nanosPerUnit;
        String number;
        if (body.endsWith("ms")) {
            nanosPerUnit = 1_000_000L;
            number = body.substring(0, body.length() - 2);
        } else if (body.endsWith("s")) {
            nanosPerUnit = 1_000_000_000L;
            number = body.substring(0, body.length() - 1);
        } else if (body.endsWith("m")) {
            nanosPerUnit = 60_000_000_000L;
            number = body.substring(0, body.length() - 1);
        } else if (body.endsWith("h")) {
            nanosPerUnit = 3_600_000_000_000L;
            number = body.substring(0, body.length() - 1);
        } else {
            nanosPerUnit = 1_000_000_000L;
            number = body;
        }
        if (!number.matches("[0-9]{1,9}(\\.[0-9]{1,9})?")) {
            return null;
        }
        BigDecimal n = new BigDecimal(number).multiply(BigDecimal.valueOf(nanosPerUnit));
        return negative ? n.negate() : n;
    }

    private static BigDecimal nanosOf(Duration d) {
        return BigDecimal.valueOf(d.getSeconds()).multiply(NANOS_PER_SECOND).add(BigDecimal.valueOf(d.getNano()));
    }

    private static Duration toDuration(BigDecimal nanos) {
        BigDecimal whole = nanos.setScale(0, java.math.RoundingMode.DOWN);
        BigDecimal[] qr = whole.divideAndRemainder(NANOS_PER_SECOND);
        return Duration.ofSeconds(qr[0].longValueExact(), qr[1].longValueExact());
    }

    /**
     * @param d a duration
     * @return it as a person writes it: {@code 0s}, {@code 10ms}, {@code 1.5s}, {@code 2m}, {@code 30 days}
     */
    static String words(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toDaysPart() > 0 && d.toHoursPart() == 0 && d.toMinutesPart() == 0 && d.toSecondsPart() == 0
                && d.toNanosPart() == 0) {
            return d.toDays() + (d.toDays() == 1 ? " day" : " days");
        }
        if (d.compareTo(Duration.ofSeconds(1)) < 0) {
            BigDecimal ms = BigDecimal.valueOf(d.toNanos()).movePointLeft(6).stripTrailingZeros();
            return ms.toPlainString() + "ms";
        }
        if (d.getNano() == 0 && d.getSeconds() % 3600 == 0) {
            return d.getSeconds() / 3600 + "h";
        }
        if (d.getNano() == 0 && d.getSeconds() % 60 == 0) {
            return d.getSeconds() / 60 + "m";
        }
        return nanosOf(d).movePointLeft(9).stripTrailingZeros().toPlainString() + "s";
    }
}
