package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DispositionsTest {

    private static SignalMasks masks(SignalSet pending, SignalSet shared, SignalSet blocked, SignalSet ignored,
                                     SignalSet caught) {
        return new SignalMasks(pending, shared, blocked, ignored, caught);
    }

    private static final SignalSet NONE = SignalSet.empty();

    @Test
    void nohupShowsHangupIgnoredAndSurvived() {
        SignalMasks m = masks(NONE, NONE, NONE, SignalSet.of(Signal.HUP), NONE);
        Dispositions d = new Dispositions(10, m, List.of(new Dispositions.ThreadMasks(10, "sleep", m)));
        assertTrue(d.survivesHangup());
        assertTrue(d.ignoresHangup());
        assertFalse(d.handlesTerm());
        assertEquals(Dispositions.Disposition.IGNORED, d.disposition(Signal.HUP));
        assertEquals(Dispositions.Disposition.DEFAULT, d.disposition(Signal.TERM));
    }

    @Test
    void aCaughtHangupAlsoSurvivesButIsNotIgnored() {
        SignalMasks m = masks(NONE, NONE, NONE, NONE, SignalSet.of(Signal.HUP, Signal.TERM));
        Dispositions d = new Dispositions(10, m, List.of());
        assertTrue(d.survivesHangup());
        assertFalse(d.ignoresHangup());
        assertTrue(d.handlesTerm());
        assertEquals(Dispositions.Disposition.CAUGHT, d.disposition(Signal.TERM));
    }

    @Test
    void termIsBlockedForTheProcessOnlyWhenEveryThreadBlocksIt() {
        SignalSet term = SignalSet.of(Signal.TERM);
        SignalMasks main = masks(NONE, NONE, term, NONE, NONE);
        SignalMasks worker = masks(SignalSet.of(Signal.USR1), NONE, NONE, NONE, NONE);
        Dispositions partly = new Dispositions(10, main, List.of(new Dispositions.ThreadMasks(10, "main", main),
                new Dispositions.ThreadMasks(11, "worker", worker)));
        assertFalse(partly.blocksTerm(), "a thread that does not block TERM takes it");
        assertEquals(List.of(10L), partly.threadsBlocking(Signal.TERM).stream().map(Dispositions.ThreadMasks::tid)
                .toList());
        assertTrue(partly.pending().contains(Signal.USR1), "a thread's pending signal counts");

        Dispositions fully = new Dispositions(10, main, List.of(new Dispositions.ThreadMasks(10, "main", main),
                new Dispositions.ThreadMasks(11, "worker", main)));
        assertTrue(fully.blocksTerm());

        Dispositions mainOnly = new Dispositions(10, main, List.of());
        assertTrue(mainOnly.blocksTerm(), "without threads, the main thread's mask decides");
    }

    @Test
    void sharedPendingCountsAsPending() {
        SignalMasks m = masks(NONE, SignalSet.of(Signal.TERM), NONE, NONE, NONE);
        assertTrue(new Dispositions(1, m, List.of()).pending().contains(Signal.TERM));
    }
}
