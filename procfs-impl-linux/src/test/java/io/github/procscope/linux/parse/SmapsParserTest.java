package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.RegionUsage;
import io.github.procscope.api.memory.SmapsCounters;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

class SmapsParserTest {
    private static final Path SOURCE = Path.of("/proc/1/smaps");
    private static final long K = 1024;

    private static List<MemoryRegion> smaps(String pid) {
        byte[] b = Fixtures.bytes("proc-memory/" + pid + "/smaps");
        return SmapsParser.parseSmaps(SOURCE, b, b.length);
    }

    private static SmapsCounters rollup(String pid) {
        byte[] b = Fixtures.bytes("proc-memory/" + pid + "/smaps_rollup");
        return SmapsParser.parseRollup(SOURCE, b, b.length);
    }

    @Test
    void currentGenerationRegionsCarryEveryCounterInBytes() {
        List<MemoryRegion> r = smaps("1234");
        assertEquals(4, r.size());
        MemoryRegion anon = r.get(2);
        assertEquals(RegionKind.ANONYMOUS, anon.kind());
        RegionUsage u = anon.usage().orElseThrow();
        assertEquals(4 * K, u.kernelPageSizeBytes());
        assertEquals(4 * K, u.mmuPageSizeBytes());
        SmapsCounters c = u.counters();
        assertEquals(40 * K, c.rssBytes());
        assertEquals(40 * K, c.pssBytes());
        assertEquals(OptionalLong.of(36 * K), c.pssDirtyBytes());
        assertEquals(4 * K, c.privateCleanBytes());
        assertEquals(36 * K, c.privateDirtyBytes());
        assertEquals(40 * K, c.ussBytes());
        assertEquals(40 * K, c.anonymousBytes());
        assertEquals(OptionalLong.of(4 * K), c.lazyFreeBytes());
        assertEquals(OptionalLong.of(0), c.ksmBytes());
        assertEquals(8 * K, c.swapBytes());
        assertEquals(OptionalLong.of(8 * K), c.swapPssBytes());
        assertEquals(OptionalLong.empty(), c.pssAnonBytes(), "per-region smaps has no Pss_Anon");
        assertEquals(List.of("rd", "wr", "mr", "mw", "me", "nr", "sd"), u.vmFlags());
        assertTrue(u.hasFlag("nr"));
        assertEquals(1024 * K, r.get(3).rssBytes().getAsLong());
    }

    @Test
    void linux414GenerationLacksTheNewerCounters() {
        SmapsCounters c = smaps("3456").get(2).usage().orElseThrow().counters();
        assertEquals(16 * K, c.rssBytes());
        assertEquals(OptionalLong.empty(), c.pssDirtyBytes());
        assertEquals(OptionalLong.empty(), c.ksmBytes());
        assertEquals(OptionalLong.empty(), c.filePmdMappedBytes());
        assertEquals(OptionalLong.of(0), c.lazyFreeBytes());
        assertEquals(OptionalLong.of(4 * K), c.swapPssBytes());
    }

    @Test
    void currentRollupHasThePssSplit() {
        SmapsCounters c = rollup("1234");
        assertEquals(1084 * K, c.rssBytes());
        assertEquals(152 * K, c.pssBytes());
        assertEquals(OptionalLong.of(52 * K), c.pssAnonBytes());
        assertEquals(OptionalLong.of(100 * K), c.pssFileBytes());
        assertEquals(OptionalLong.of(0), c.pssShmemBytes());
        assertEquals(OptionalLong.of(48 * K), c.pssDirtyBytes());
        assertEquals(56 * K, c.ussBytes());
    }

    @Test
    void oldRollupHasNoPssSplit() {
        SmapsCounters c = rollup("3456");
        assertEquals(68 * K, c.rssBytes());
        assertEquals(46 * K, c.pssBytes());
        assertEquals(OptionalLong.empty(), c.pssAnonBytes());
        assertEquals(OptionalLong.empty(), c.pssFileBytes());
        assertEquals(OptionalLong.empty(), c.pssShmemBytes());
        assertEquals(OptionalLong.empty(), c.pssDirtyBytes());
        assertEquals(4 * K, c.swapBytes());
    }

    @Test
    void summedRegionsEqualTheRollupInBothGenerations() {
        for (String pid : new String[] {"1234", "3456"}) {
            SmapsCounters summed = new MemoryMaps(1, smaps(pid)).usageTotals().orElseThrow();
            SmapsCounters rolled = rollup(pid);
            assertEquals(rolled.rssBytes(), summed.rssBytes(), pid);
            assertEquals(rolled.pssBytes(), summed.pssBytes(), pid);
            assertEquals(rolled.ussBytes(), summed.ussBytes(), pid);
            assertEquals(rolled.swapBytes(), summed.swapBytes(), pid);
            assertEquals(rolled.sharedCleanBytes(), summed.sharedCleanBytes(), pid);
            assertEquals(rolled.referencedBytes(), summed.referencedBytes(), pid);
        }
    }

    @Test
    void emptySmapsHasNoRegions() {
        assertEquals(List.of(), SmapsParser.parseSmaps(SOURCE, new byte[0], 0));
    }

    @Test
    void unknownKeysOfNewerKernelsAreSkipped() {
        String s = "1000-2000 rw-p 00000000 00:00 0 \nSize: 4 kB\nKernelPageSize: 4 kB\nMMUPageSize: 4 kB\n"
                + "Rss: 4 kB\nPss: 4 kB\nShared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
                + "Private_Dirty: 4 kB\nReferenced: 4 kB\nAnonymous: 4 kB\nAnonHugePages: 0 kB\nSwap: 0 kB\n"
                + "Locked: 0 kB\nFutureCounter: 12 kB\nFutureFlag: yes\nProtectionKey: 0\nTHPeligible: 1\n"
                + "VmFlags: rd wr mr mw me ac \n";
        byte[] b = ascii(s);
        MemoryRegion r = SmapsParser.parseSmaps(SOURCE, b, b.length).get(0);
        assertEquals(4 * K, r.usage().orElseThrow().counters().privateDirtyBytes());
        assertEquals(6, r.usage().orElseThrow().vmFlags().size());
    }

    @Test
    void malformedInputFailsWithAParseException() {
        String header = "1000-2000 rw-p 00000000 00:00 0 \n";
        String[] bad = {
            "Rss: 4 kB\n",                                                   // counters before a header
            header + "Rss: 4 kB\n",                                          // missing required counters
            header + "Rss: 4 MB\n",                                          // wrong unit
            header + "Rss: -4 kB\n",
            header + "Rss 4 kB\n",
            header + "Rss: 4 kB\nRss: 4 kB\n",                               // duplicate
            header + "Rss: 99999999999999999 kB\n",                          // overflow in bytes
        };
        for (String s : bad) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> SmapsParser.parseSmaps(SOURCE, b, b.length), s);
        }
        byte[] two = ascii(new String(Fixtures.bytes("proc-memory/1234/smaps_rollup"))
                + "1000-2000 rw-p 00000000 00:00 0 \n");
        assertThrows(ProcfsParseException.class, () -> SmapsParser.parseRollup(SOURCE, two, two.length));
        byte[] noHeader = ascii("Rss: 4 kB\n");
        assertThrows(ProcfsParseException.class, () -> SmapsParser.parseRollup(SOURCE, noHeader, noHeader.length));
        byte[] incomplete = ascii("1000-2000 ---p 00000000 00:00 0 [rollup]\nRss: 4 kB\nPss: 4 kB\n");
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> SmapsParser.parseRollup(SOURCE, incomplete, incomplete.length));
        assertTrue(e.getMessage().contains("Shared_Clean"), e.getMessage());
    }

    @Test
    void mutatedFixtureFailsOnlyWithAParseException() {
        byte[] original = Fixtures.bytes("proc-memory/1234/smaps");
        qt().forAll(integers().between(0, original.length - 1), strings().ascii().ofLengthBetween(0, 3))
                .checkAssert((at, junk) -> {
                    byte[] j = ascii(junk);
                    byte[] b = new byte[original.length + j.length];
                    System.arraycopy(original, 0, b, 0, at);
                    System.arraycopy(j, 0, b, at, j.length);
                    System.arraycopy(original, at, b, at + j.length, original.length - at);
                    try {
                        SmapsParser.parseSmaps(SOURCE, b, b.length);
                    } catch (ProcfsParseException expected) {
                        // the only failure allowed
                    }
                });
    }

    @Test
    void generatedRollupsRoundTrip() {
        qt().forAll(longs().between(0, 1L << 40), longs().between(0, 1L << 40), longs().between(0, 1L << 40))
                .checkAssert((rss, priv, swap) -> {
                    String s = "55d5c8a00000-7ffd565f9000 ---p 00000000 00:00 0                          [rollup]\n"
                            + String.format("Rss:%16d kB%nPss:%16d kB%nShared_Clean:%7d kB%nShared_Dirty:%7d kB%n"
                            + "Private_Clean:%6d kB%nPrivate_Dirty:%6d kB%nReferenced:%9d kB%nAnonymous:%10d kB%n"
                            + "AnonHugePages:%6d kB%nSwap:%15d kB%nLocked:%13d kB%n", rss, rss, 0, 0, priv, priv,
                            rss, priv, 0, swap, 0);
                    byte[] b = ascii(s);
                    SmapsCounters c = SmapsParser.parseRollup(SOURCE, b, b.length);
                    assertEquals(rss * K, c.rssBytes());
                    assertEquals(2 * priv * K, c.ussBytes());
                    assertEquals(swap * K, c.swapBytes());
                });
    }
}
