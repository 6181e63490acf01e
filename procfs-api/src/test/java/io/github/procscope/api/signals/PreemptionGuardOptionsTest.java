package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PreemptionGuardOptionsTest {
    @Test
    void theDefaultsGuardTermAndExitOnASecondSignal() {
        PreemptionGuardOptions d = PreemptionGuardOptions.defaults();
        assertEquals(List.of(Signal.TERM), d.signals());
        assertTrue(d.exitOnSecondSignal());
        assertEquals(Optional.empty(), d.checkpointDeadline());
        assertTrue(d.listeners().isEmpty());
    }

    @Test
    void signalsKeepTheirOrderWithoutRepeats() {
        PreemptionGuardOptions o = PreemptionGuardOptions.defaults().withSignals(Signal.USR1, Signal.TERM, Signal.USR1);
        assertEquals(List.of(Signal.USR1, Signal.TERM), o.signals());
        assertThrows(IllegalArgumentException.class, () -> PreemptionGuardOptions.defaults().withSignals(List.of()));
        assertThrows(NullPointerException.class, () -> PreemptionGuardOptions.defaults().withSignals(Signal.TERM, (Signal) null));
    }

    @Test
    void listenersAddUpAndTheListIsACopy() {
        List<Consumer<PreemptionGuard.StopRequest>> mine = new ArrayList<>();
        mine.add(r -> { });
        PreemptionGuardOptions o = new PreemptionGuardOptions(List.of(Signal.TERM), mine, true, Optional.empty());
        mine.add(r -> { });
        assertEquals(1, o.listeners().size(), "a later change of the caller's list does not reach the options");
        assertEquals(2, o.withListener(r -> { }).listeners().size());
        assertEquals(1, o.listeners().size(), "withListener makes new options");
    }

    @Test
    void theCheckpointDeadlineIsPositiveAndAtMostADay() {
        assertEquals(Optional.of(Duration.ofSeconds(20)),
                PreemptionGuardOptions.defaults().withCheckpointDeadline(Duration.ofSeconds(20)).checkpointDeadline());
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusNanos(1))) {
            assertThrows(IllegalArgumentException.class,
                    () -> PreemptionGuardOptions.defaults().withCheckpointDeadline(bad), bad.toString());
        }
        assertFalse(PreemptionGuardOptions.defaults().withExitOnSecondSignal(false).exitOnSecondSignal());
    }
}
