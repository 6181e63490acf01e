package io.github.procscope.api;

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
    void readsTheKernelMaskBitNMinusOneForSignalN() {
        SignalSet s = SignalSet.parseKernelMask("0000000000001001");
        assertEquals(List.of(Signal.HUP, Signal.PIPE), s.signals());
        assertEquals(List.of("HUP", "PIPE"), s.names());
        assertTrue(SignalSet.parseKernelMask("0000000000004000").contains(Signal.TERM));
        assertTrue(SignalSet.parseKernelMask("8000000000000000").contains(Signal.of(64)));
        assertFalse(SignalSet.parseKernelMask("0000000000004000").contains(Signal.KILL));
    }

    @Test
    void refusesMalformedMasks() {
        assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask(""));
        assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask("00000000000000000"));
        assertThrows(IllegalArgumentException.class, () -> SignalSet.parseKernelMask("00000000000g0000"));
    }

    @Test
    void masksRoundTrip() {
        qt().forAll(longs().all()).checkAssert(m -> {
            SignalSet s = SignalSet.fromMask(m);
            assertEquals(m, SignalSet.parseKernelMask(s.toKernelMask()).mask());
            assertEquals(s, SignalSet.of(s.signals()));
            assertEquals(Long.bitCount(m), s.size());
        });
    }
}
