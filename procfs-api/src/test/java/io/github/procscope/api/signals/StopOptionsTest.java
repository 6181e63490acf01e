package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StopOptionsTest {

    @Test
    void defaultsAreTermThenKill() {
        StopOptions o = StopOptions.defaults();
        assertEquals(Signal.TERM, o.signal());
        assertEquals(Duration.ofSeconds(10), o.gracePeriod());
        assertEquals(Duration.ofSeconds(30), o.withGracePeriod(Duration.ofSeconds(30)).gracePeriod());
        assertEquals(Signal.INT, o.withSignal(Signal.INT).signal());
        assertEquals(Duration.ZERO, o.withGracePeriod(Duration.ZERO).gracePeriod());
    }

    @Test
    void refusesKillOrStopAsTheFirstSignalAndBadDurations() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StopOptions.defaults().withSignal(Signal.KILL));
        assertTrue(e.getMessage().contains("SIGKILL"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StopOptions.defaults().withSignal(Signal.STOP));
        assertThrows(IllegalArgumentException.class, () -> StopOptions.defaults().withGracePeriod(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> StopOptions.defaults().withKillWait(Duration.ZERO));
        assertThrows(IllegalArgumentException.class,
                () -> StopOptions.defaults().withPolling(Duration.ZERO, Duration.ofMillis(1)));
        assertThrows(IllegalArgumentException.class,
                () -> StopOptions.defaults().withPolling(Duration.ofMillis(10), Duration.ofMillis(5)));
        assertThrows(NullPointerException.class, () -> StopOptions.defaults().withSignal(null));
    }
}
