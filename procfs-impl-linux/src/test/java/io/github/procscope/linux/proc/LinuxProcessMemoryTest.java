package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.api.memory.TotalsSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LinuxProcessMemory} on the fixture tree {@code proc-memory}. */
class LinuxProcessMemoryTest {
    private static final long K = 1024;
    private final LinuxProcessMemory memory = LinuxProcessMemory.at(Fixtures.path("proc-memory"), () -> LinuxProcfs.at(Fixtures.path("proc-memory")));

    @Test
    void mapsHaveNoCountersAndSmapsHaveThem() {
        MemoryMaps maps = memory.maps(1234);
        assertEquals(4, maps.regions().size());
        assertTrue(maps.usageTotals().isEmpty());
        assertTrue(maps.regions().stream().allMatch(r -> r.usage().isEmpty()));
        MemoryMaps smaps = memory.smaps(1234);
        assertEquals(maps.regions().size(), smaps.regions().size());
        assertEquals(1084 * K, smaps.usageTotals().orElseThrow().rssBytes());
        assertEquals(RegionKind.HEAP, smaps.regions().get(1).kind());
    }

    @Test
    void totalsComeFromTheRollupWithVszFromStat() {
        MemoryTotals t = memory.totals(1234);
        assertEquals(TotalsSource.ROLLUP, t.source());
        assertEquals(2920 * K, t.vszBytes());
        assertEquals(1084 * K, t.rssBytes());
        assertEquals(152 * K, t.pssBytes());
        assertEquals(56 * K, t.ussBytes());
        assertEquals(8 * K, t.swapBytes());
        assertEquals(OptionalLong.of(52 * K), t.counters().pssAnonBytes());
    }

    @Test
    void withoutARollupTheRegionsAreSummed() {
        MemoryTotals t = memory.totals(2345);
        assertEquals(TotalsSource.SUMMED_SMAPS, t.source());
        assertEquals(68 * K, t.rssBytes());
        assertEquals(46 * K, t.pssBytes());
        assertEquals(24 * K, t.ussBytes());
        assertEquals(4 * K, t.swapBytes());
        assertEquals(OptionalLong.empty(), t.counters().pssAnonBytes());
        assertEquals(OptionalLong.empty(), t.counters().lazyFreeBytes(), "Linux 4.4 has no LazyFree");
    }

    @Test
    void rollupAndSummedSmapsAgreeOnBothGenerations() {
        for (long pid : new long[] {1234, 3456}) {
            MemoryTotals rolled = memory.totals(pid, true);
            MemoryTotals summed = memory.totals(pid, false);
            assertEquals(TotalsSource.ROLLUP, rolled.source());
            assertEquals(TotalsSource.SUMMED_SMAPS, summed.source());
            assertEquals(rolled.vszBytes(), summed.vszBytes());
            assertEquals(rolled.rssBytes(), summed.rssBytes());
            assertEquals(rolled.pssBytes(), summed.pssBytes());
            assertEquals(rolled.ussBytes(), summed.ussBytes());
            assertEquals(rolled.swapBytes(), summed.swapBytes());
            assertEquals(rolled.counters().anonymousBytes(), summed.counters().anonymousBytes());
        }
    }

    @Test
    void aKernelThreadHasNoAddressSpace() {
        assertEquals(0, memory.maps(2).regions().size());
        assertEquals(0, memory.smaps(2).regions().size());
        MemoryTotals t = memory.totals(2);
        assertEquals(SmapsCounters.ZERO, t.counters());
        assertEquals(0, t.vszBytes());
    }

    @Test
    void aProcessThatDoesNotExistIsReportedAsSuch() {
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> memory.maps(99999));
        assertEquals(99999, e.pid());
        assertThrows(NoSuchProcessException.class, () -> memory.smaps(99999));
        assertThrows(NoSuchProcessException.class, () -> memory.totals(99999));
    }

    @Test
    void invalidPidsAreRefusedBeforeAnyRead() {
        assertThrows(IllegalArgumentException.class, () -> memory.maps(0));
        assertThrows(IllegalArgumentException.class, () -> memory.smaps(-1));
        assertThrows(IllegalArgumentException.class, () -> memory.totals(Long.MAX_VALUE));
    }

    @Test
    void aRootThatIsNotADirectoryIsRefused() {
        assertThrows(ProcfsUnavailableException.class, () -> LinuxProcessMemory.at(Path.of("/no/such/proc"), () -> LinuxProcfs.at(Path.of("/no/such/proc"))));
    }

    @Test
    void readsByKeyCheckTheProcessIsStillTheOneNamed() {
        ProcessKey key = memory.key(1234);
        assertEquals(memory.maps(1234), memory.maps(key));
        assertEquals(memory.smaps(1234), memory.smaps(key));
        assertEquals(memory.totals(1234), memory.totals(key));
        ProcessKey stale = new ProcessKey(1234, key.startTimeTicks() + 1);
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> memory.maps(stale));
        assertTrue(e.getMessage().contains("reused"), e.getMessage());
        assertThrows(NoSuchProcessException.class, () -> memory.smaps(stale));
        assertThrows(NoSuchProcessException.class, () -> memory.totals(stale));
        assertThrows(NoSuchProcessException.class, () -> memory.key(5555));
    }
}
