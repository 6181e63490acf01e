package io.github.procscope.api.memory;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SmapsCountersTest {
    private static SmapsCounters c(long rss, long privClean, long privDirty, OptionalLong pssAnon) {
        return new SmapsCounters(rss, rss / 2, OptionalLong.empty(), pssAnon, OptionalLong.empty(), OptionalLong.empty(),
                rss - privClean - privDirty, 0, privClean, privDirty, rss, privDirty, OptionalLong.empty(),
                OptionalLong.of(0), 0, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 7, OptionalLong.of(7), 0);
    }

    @Test
    void ussIsPrivateCleanPlusPrivateDirty() {
        assertEquals(300, c(1000, 100, 200, OptionalLong.empty()).ussBytes());
    }

    @Test
    void sumsKeepAnOptionalCounterOnlyWhenBothHaveIt() {
        SmapsCounters sum = c(1000, 100, 200, OptionalLong.of(5)).plus(c(10, 0, 10, OptionalLong.empty()));
        assertEquals(1010, sum.rssBytes());
        assertEquals(505, sum.pssBytes());
        assertEquals(310, sum.ussBytes());
        assertEquals(14, sum.swapBytes());
        assertEquals(OptionalLong.empty(), sum.pssAnonBytes());
        assertEquals(OptionalLong.of(14), sum.swapPssBytes());
        SmapsCounters both = c(1, 0, 0, OptionalLong.of(5)).plus(c(1, 0, 0, OptionalLong.of(6)));
        assertEquals(OptionalLong.of(11), both.pssAnonBytes());
        assertEquals(c(3, 1, 1, OptionalLong.of(2)), SmapsCounters.ZERO.plus(c(3, 1, 1, OptionalLong.of(2))));
    }

    @Test
    void negativeCountersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> c(-1, 0, 0, OptionalLong.empty()));
        assertThrows(IllegalArgumentException.class, () -> c(1, 0, 0, OptionalLong.of(-1)));
    }
}
