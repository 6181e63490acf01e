package io.github.procscope.metrics;

import java.time.LocalDate;

/**
 * The {@code Date} field of an HTTP answer (RFC 9110, section 5.6.7: IMF-fixdate, {@code Sun, 06 Nov 1994 08:49:37
 * GMT}), written from the epoch second with fixed English names. {@code DateTimeFormatter} would do the same through
 * the locale providers, which load some ninety classes and keep every locale's table on the heap for the life of
 * the exporter, for names that never change.
 */
final class HttpDate {
    private static final String[] DAYS = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
            "Nov", "Dec"};
    /** The earliest and latest seconds of years 0001 to 9999: IMF-fixdate has a four-digit year of the common era. */
    static final long MIN_SECOND = -62_135_596_800L;
    static final long MAX_SECOND = 253_402_300_799L;

    private HttpDate() {
    }

    /**
     * @param epochSecond seconds since 1970-01-01T00:00:00Z
     * @param to          where the date goes
     * @return {@code to}
     * @throws IllegalArgumentException for a second outside years 0001 to 9999
     */
    static StringBuilder append(long epochSecond, StringBuilder to) {
        if (epochSecond < MIN_SECOND || epochSecond > MAX_SECOND) {
            throw new IllegalArgumentException("an HTTP date has a four-digit year, 0001 to 9999; second "
                    + epochSecond + " is outside it");
        }
        long day = Math.floorDiv(epochSecond, 86_400L);
        int secondOfDay = (int) Math.floorMod(epochSecond, 86_400L);
        LocalDate date = LocalDate.ofEpochDay(day);
        to.append(DAYS[(int) Math.floorMod(day, 7L)]).append(", ");
        two(date.getDayOfMonth(), to).append(' ').append(MONTHS[date.getMonthValue() - 1]).append(' ');
        int year = date.getYear();
        two(year / 100, to);
        two(year % 100, to).append(' ');
        two(secondOfDay / 3600, to).append(':');
        two(secondOfDay / 60 % 60, to).append(':');
        return two(secondOfDay % 60, to).append(" GMT");
    }

    /**
     * Appends the whole field, {@code Date: ...} and its CRLF, or nothing when the clock stands outside years 0001
     * to 9999: a clock that far off is no clock, and an origin server without one sends no {@code Date} (RFC 9110,
     * section 6.6.1) rather than fail the answer.
     *
     * @param epochSecond the clock's second since 1970-01-01T00:00:00Z
     * @param to          the head being written
     * @return whether the field was written
     */
    static boolean appendField(long epochSecond, StringBuilder to) {
        if (epochSecond < MIN_SECOND || epochSecond > MAX_SECOND) {
            return false;
        }
        append(epochSecond, to.append("Date: ")).append("\r\n");
        return true;
    }

    private static StringBuilder two(int value, StringBuilder to) {
        return to.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }
}
