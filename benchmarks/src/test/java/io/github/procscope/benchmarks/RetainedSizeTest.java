package io.github.procscope.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reachable sizes, and fresh bytes that leave out what an earlier result already held. */
class RetainedSizeTest {

    @Test
    void anArrayIsItsHeaderAndElementsAligned() {
        long words = RetainedSize.sizeOf(new long[2]);
        assertTrue(words == 32 || words == 40, "long[2] is " + words + " bytes");
        assertEquals(RetainedSize.sizeOf(new long[2]) + 16, RetainedSize.sizeOf(new long[4]));
    }

    @Test
    void eachReachableObjectIsCountedOnce() {
        long[] shared = new long[8];
        List<long[]> twice = List.of(shared, shared);
        assertEquals(RetainedSize.sizeOf(twice) + RetainedSize.sizeOf(shared), RetainedSize.of(twice));
    }

    @Test
    void freshBytesLeaveOutWhatTheEarlierResultHeld() {
        long[] shared = new long[100];
        List<Object> earlier = List.of(shared, new long[3]);
        long[] mine = new long[3];
        List<Object> later = List.of(shared, mine);
        assertEquals(RetainedSize.sizeOf(later) + RetainedSize.sizeOf(mine), RetainedSize.fresh(earlier, later));
        assertEquals(RetainedSize.of(later) - RetainedSize.sizeOf(shared), RetainedSize.fresh(earlier, later));
    }
}
