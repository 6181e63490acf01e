package io.github.procscope.metrics;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class HttpDateTest {
    /** The reference: java.time's formatter with the same fixed pattern, which the exporter no longer loads. */
    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private static String ours(long second) {
        return HttpDate.append(second, new StringBuilder()).toString();
    }

    @Test
    void rfc9110sExampleAndTheEdgesOfTheDay() {
        assertEquals("Sun, 06 Nov 1994 08:49:37 GMT", ours(784_111_777L));
        assertEquals("Thu, 01 Jan 1970 00:00:00 GMT", ours(0L));
        assertEquals("Wed, 31 Dec 1969 23:59:59 GMT", ours(-1L));
        assertEquals("Tue, 29 Feb 2000 00:00:00 GMT", ours(951_782_400L));
        assertEquals("Mon, 01 Jan 0001 00:00:00 GMT", ours(HttpDate.MIN_SECOND));
        assertEquals("Fri, 31 Dec 9999 23:59:59 GMT", ours(HttpDate.MAX_SECOND));
    }

    @Test
    void everySecondOfYearsOneToNineThousandNineHundredNinetyNineIsWrittenAsJavaTimeWritesIt() {
        qt().withExamples(20_000).forAll(longs().between(HttpDate.MIN_SECOND, HttpDate.MAX_SECOND))
                .checkAssert(s -> assertEquals(REFERENCE.format(Instant.ofEpochSecond(s)), ours(s)));
        // and the days around now, where an exporter lives
        long now = Instant.now().getEpochSecond();
        qt().withExamples(5_000).forAll(longs().between(now - 40L * 366 * 86_400, now + 40L * 366 * 86_400))
                .checkAssert(s -> assertEquals(REFERENCE.format(Instant.ofEpochSecond(s)), ours(s)));
    }

    @Test
    void theFieldIsLeftOutWhenTheClockIsBeyondWhatItCanSay() {
        StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\n");
        assertTrue(HttpDate.appendField(784_111_777L, head));
        assertEquals("HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n", head.toString());
        for (long s : new long[] {HttpDate.MAX_SECOND + 1, HttpDate.MIN_SECOND - 1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            StringBuilder other = new StringBuilder("HTTP/1.1 200 OK\r\n");
            assertFalse(HttpDate.appendField(s, other));
            assertEquals("HTTP/1.1 200 OK\r\n", other.toString());
        }
    }

    @Test
    void aYearAfter9999OrBeforeTheCommonEraIsRefusedByName() {
        for (long s : new long[] {HttpDate.MAX_SECOND + 1, HttpDate.MIN_SECOND - 1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            String message = assertThrows(IllegalArgumentException.class, () -> ours(s)).getMessage();
            assertTrue(message.contains("four-digit year") && message.contains(Long.toString(s)), message);
        }
    }
}
