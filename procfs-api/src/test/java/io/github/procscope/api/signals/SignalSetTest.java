package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class SignalSetTest {
    @Test
    void kernelMaskBitsNameSignals() {
        SignalSet s = SignalSet.parseKernelMask("0000000000001001");
        assertEquals(List.of(Signal.HUP, Signal.PIPE), s.signals());
        assertEquals(List.of("HUP", "PIPE"), s.names());
        assertTrue(s.contains(Signal.HUP));
        assertFalse(s.contains(Signal.TERM));
        assertEquals("0000000000001001", s.toKernelMask());
        assertEquals(2, s.size());
    }

    @Test
    void highestBitIsRealtimeMax() {
        SignalSet s = SignalSet.parseKernelMask("8000000000000000");
        assertEquals(List.of(Signal.of(64)), s.signals());
        assertEquals("RTMAX", s.signals().get(0).name());
        assertEquals(64, SignalSet.parseKernelMask("ffffffffffffffff").size());
    }

    @Test
    void malformedMasksAreRefusedByName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask("xyz"))
                .getMessage().contains("xyz"));
        assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask(""));
        assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask("00000000000000000"));
    }

    @Test
    void masksRoundTripThroughSignals() {
        qt().forAll(longs().all()).checkAssert(m -> {
            SignalSet s = SignalSet.fromMask(m);
            assertEquals(m, SignalSet.of(s.signals()).mask());
            assertEquals(s, SignalSet.parseKernelMask(s.toKernelMask()));
            assertEquals(Long.bitCount(m), s.signals().size());
        });
    }

    @Test
    void setAlgebra() {
        SignalSet a = SignalSet.of(Signal.HUP, Signal.TERM);
        SignalSet b = SignalSet.of(Signal.TERM, Signal.INT);
        assertEquals(SignalSet.of(Signal.HUP, Signal.INT, Signal.TERM), a.union(b));
        assertEquals(SignalSet.of(Signal.TERM), a.intersection(b));
        assertTrue(SignalSet.empty().isEmpty());
    }

    @Test
    void masksAnswerTheSeedQuestions() {
        SignalMasks nohup = new SignalMasks(SignalSet.empty(), SignalSet.empty(), SignalSet.empty(),
                SignalSet.of(Signal.HUP), SignalSet.empty());
        assertTrue(nohup.survivesHangup());
        assertTrue(nohup.ignoresHangup());
        assertFalse(nohup.handlesTerm());
        SignalMasks guarded = new SignalMasks(SignalSet.empty(), SignalSet.empty(), SignalSet.of(Signal.TERM),
                SignalSet.empty(), SignalSet.of(Signal.TERM));
        assertFalse(guarded.survivesHangup());
        assertTrue(guarded.handlesTerm());
        assertTrue(guarded.blocksTerm());
    }
}
