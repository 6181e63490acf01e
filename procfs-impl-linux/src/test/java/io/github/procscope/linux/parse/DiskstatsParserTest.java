package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.disk.DiskStat;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

class DiskstatsParserTest {
    private static final Path SOURCE = Path.of("/proc/diskstats");

    private static List<DiskStat> parse(String variant) {
        byte[] b = Fixtures.bytes("files/diskstats/" + variant);
        return DiskstatsParser.parse(SOURCE, b, b.length);
    }

    @Test
    void fourteenFieldsHaveNoDiscardsNorFlushes() {
        List<DiskStat> d = parse("14");
        assertEquals(4, d.size());
        DiskStat sda = d.get(0);
        assertEquals(new DeviceNumber(8, 0), sda.device());
        assertEquals("sda", sda.name());
        assertEquals(183546, sda.readsCompleted());
        assertEquals(27396, sda.readsMerged());
        assertEquals(8127346L * 512, sda.readBytes());
        assertEquals(Duration.ofMillis(1023660), sda.readTime());
        assertEquals(249163, sda.writesCompleted());
        assertEquals(313036, sda.writesMerged());
        assertEquals(9237328L * 512, sda.writtenBytes());
        assertEquals(Duration.ofMillis(3945284), sda.writeTime());
        assertEquals(0, sda.inFlight());
        assertEquals(Duration.ofMillis(763216), sda.ioTime());
        assertEquals(Duration.ofMillis(4968604), sda.weightedIoTime());
        assertEquals(Optional.empty(), sda.discards());
        assertEquals(Optional.empty(), sda.flushes());
        assertEquals(2, d.get(3).inFlight());
    }

    @Test
    void eighteenFieldsAddDiscards() {
        DiskStat nvme = parse("18").get(1);
        assertEquals(new DeviceNumber(259, 0), nvme.device());
        DiskStat.Discards dc = nvme.discards().orElseThrow();
        assertEquals(77912, dc.completed());
        assertEquals(0, dc.merged());
        assertEquals(1058487944L * 512, dc.bytes());
        assertEquals(Duration.ofMillis(63679), dc.time());
        assertEquals(Optional.empty(), nvme.flushes());
    }

    @Test
    void twentyFieldsAddFlushes() {
        List<DiskStat> d = parse("20");
        DiskStat vda = d.get(1);
        assertEquals("vda", vda.name());
        assertEquals(new DiskStat.Flushes(5, Duration.ZERO), vda.flushes().orElseThrow());
        assertEquals(3205, vda.discards().orElseThrow().completed());
        DiskStat big = d.get(3);
        assertEquals(Duration.ofMillis(4294967295L), big.readTime(), "32-bit millisecond counters are unsigned");
        assertEquals(new DiskStat.Flushes(4294967, Duration.ofMillis(123)), big.flushes().orElseThrow());
    }

    @Test
    void fieldsOfFutureKernelsAreIgnored() {
        byte[] b = ascii(" 254 0 vda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n");
        DiskStat d = DiskstatsParser.parse(SOURCE, b, b.length).get(0);
        assertEquals(16, d.flushes().orElseThrow().completed());
    }

    @Test
    void otherFieldCountsFail() {
        String[] bad = {"8 0 sda 1 2 3 4\n", "8 0 sda 1 2 3 4 5 6 7 8 9 10\n", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12\n",
            "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "8 0\n", "8 x sda 1 2 3 4 5 6 7 8 9 10 11\n",
            "8 0 sda 1 2 3 4 5 6 7 8 9 10 x\n", "5000 0 sda 1 2 3 4 5 6 7 8 9 10 11\n",
            "8 0 sda 1 2 99999999999999999999 4 5 6 7 8 9 10 11\n"};
        for (String s : bad) {
            byte[] b = ascii(s);
            ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> DiskstatsParser.parse(SOURCE, b, b.length), s);
            assertTrue(e.getMessage().contains("/proc/diskstats"));
        }
    }

    @Test
    void generatedLinesRoundTripInAllThreeGenerations() {
        qt().forAll(lists().of(longs().between(0, 1L << 50)).ofSize(17), integers().between(0, 2)).checkAssert((v, gen) -> {
            int fields = gen == 0 ? 11 : gen == 1 ? 15 : 17;
            StringBuilder sb = new StringBuilder(String.format("%4d %7d %s", 259, 3, "nvme0n1p3"));
            for (int i = 0; i < fields; i++) {
                sb.append(' ').append(v.get(i));
            }
            byte[] b = ascii(sb.append('\n').toString());
            DiskStat d = DiskstatsParser.parse(SOURCE, b, b.length).get(0);
            assertEquals((long) v.get(0), d.readsCompleted());
            assertEquals(v.get(2) * 512, d.readBytes());
            assertEquals(Duration.ofMillis(v.get(7)), d.writeTime());
            assertEquals(Duration.ofMillis(v.get(10)), d.weightedIoTime());
            assertEquals(gen >= 1, d.discards().isPresent());
            assertEquals(gen == 2, d.flushes().isPresent());
            if (gen == 2) {
                assertEquals(Duration.ofMillis(v.get(16)), d.flushes().get().time());
            }
        });
    }
}
