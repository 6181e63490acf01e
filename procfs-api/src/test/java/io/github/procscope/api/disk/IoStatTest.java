package io.github.procscope.api.disk;

import io.github.procscope.api.core.DeviceNumber;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class IoStatTest {
    private static final DeviceNumber SDA = new DeviceNumber(8, 0);
    private static final long S = 512;

    private static DiskStat disk(DeviceNumber dev, long reads, long rMerged, long rSectors, long rMs, long writes,
                                 long wMerged, long wSectors, long wMs, long ioMs, long weightedMs,
                                 Optional<DiskStat.Discards> dc, Optional<DiskStat.Flushes> fl) {
        return new DiskStat(dev, "sda", reads, rMerged, rSectors * S, Duration.ofMillis(rMs), writes, wMerged,
                wSectors * S, Duration.ofMillis(wMs), 0, Duration.ofMillis(ioMs), Duration.ofMillis(weightedMs), dc, fl);
    }

    private static DiskStats at(String uptime, DiskStat... d) {
        String[] p = uptime.split("\\.");
        return new DiskStats(Duration.ofSeconds(Long.parseLong(p[0]), Long.parseLong(p[1]) * 10_000_000L), List.of(d));
    }

    private static final DiskStats EARLIER = at("100.00", disk(SDA, 1000, 100, 20000, 5000, 500, 50, 10000, 8000,
            3000, 13000, Optional.of(new DiskStat.Discards(10, 0, 800 * S, Duration.ofMillis(100))),
            Optional.of(new DiskStat.Flushes(20, Duration.ofMillis(40)))));
    private static final DiskStats LATER = at("102.00", disk(SDA, 1200, 150, 28000, 5600, 900, 50, 18000, 10000,
            4500, 15600, Optional.of(new DiskStat.Discards(12, 0, 1000 * S, Duration.ofMillis(110))),
            Optional.of(new DiskStat.Flushes(30, Duration.ofMillis(60)))));

    @Test
    void everyFigureIsComputedAsSysstatDoes() {
        IoStat s = IoStat.between(EARLIER, LATER).get(0);
        assertEquals("sda", s.name());
        assertEquals(SDA, s.device());
        assertEquals(Duration.ofSeconds(2), s.interval());
        assertEquals(100.0, s.readsPerSecond());
        assertEquals(200.0, s.writesPerSecond());
        assertEquals(1.0, s.discardsPerSecond());
        assertEquals(5.0, s.flushesPerSecond());
        assertEquals(2000.0, s.readKilobytesPerSecond());
        assertEquals(2000.0, s.writeKilobytesPerSecond());
        assertEquals(50.0, s.discardKilobytesPerSecond());
        assertEquals(25.0, s.readMergesPerSecond());
        assertEquals(0.0, s.writeMergesPerSecond());
        assertEquals(20.0, s.readMergePercent());
        assertEquals(0.0, s.writeMergePercent());
        assertEquals(3.0, s.readAwaitMillis());
        assertEquals(5.0, s.writeAwaitMillis());
        assertEquals(5.0, s.discardAwaitMillis());
        assertEquals(2.0, s.flushAwaitMillis());
        assertEquals(20.0, s.averageReadRequestKilobytes());
        assertEquals(10.0, s.averageWriteRequestKilobytes());
        assertEquals(50.0, s.averageDiscardRequestKilobytes());
        assertEquals(1.3, s.averageQueueSize(), 1e-12);
        assertEquals(75.0, s.utilizationPercent());
    }

    @Test
    void thirtyTwoBitMillisecondCountersWrap() {
        DiskStats a = at("10.00", disk(SDA, 10, 0, 0, 4294967000L, 0, 0, 0, 0, 4294967290L, 4294967290L,
                Optional.empty(), Optional.empty()));
        DiskStats b = at("11.00", disk(SDA, 14, 0, 0, 200, 0, 0, 0, 0, 10, 10, Optional.empty(), Optional.empty()));
        IoStat s = IoStat.between(a, b).get(0);
        assertEquals(124.0, s.readAwaitMillis(), "(200 + 2^32 - 4294967000) ms over 4 reads");
        assertEquals(0.0, s.utilizationPercent(), "sysstat shows 0 when io_ticks went backwards");
        assertEquals(0.0, s.averageQueueSize());
    }

    @Test
    void countersThatWentBackwardsGiveZeroRates() {
        DiskStats a = at("10.00", disk(SDA, 500, 0, 0, 0, 10, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
        DiskStats b = at("11.00", disk(SDA, 20, 0, 0, 0, 30, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
        IoStat s = IoStat.between(a, b).get(0);
        assertEquals(0.0, s.readsPerSecond());
        assertEquals(20.0, s.writesPerSecond());
        assertEquals(0.0, s.readAwaitMillis());
    }

    @Test
    void kernelsWithoutDiscardsOrFlushesReadAsZero() {
        DiskStats a = at("10.00", disk(SDA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
        DiskStats b = at("10.50", disk(SDA, 5, 0, 80, 10, 0, 0, 0, 0, 100, 100, Optional.empty(), Optional.empty()));
        IoStat s = IoStat.between(a, b).get(0);
        assertEquals(10.0, s.readsPerSecond());
        assertEquals(0.0, s.discardsPerSecond());
        assertEquals(0.0, s.flushAwaitMillis());
        assertEquals(20.0, s.utilizationPercent());
        assertEquals(8.0, s.averageReadRequestKilobytes());
    }

    @Test
    void sameUptimeCountsAsOneHundredthOfASecond() {
        DiskStats a = at("10.00", disk(SDA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
        DiskStats b = at("10.00", disk(SDA, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
        assertEquals(100.0, IoStat.between(a, b).get(0).readsPerSecond());
    }

    @Test
    void sinceBootDividesByTheUptimeLikeTheFirstIostatReport() {
        DiskStats r = at("50.00", disk(SDA, 5000, 0, 100000, 2500, 0, 0, 0, 0, 10000, 20000, Optional.empty(),
                Optional.empty()));
        IoStat s = IoStat.sinceBoot(r).get(0);
        assertEquals(100.0, s.readsPerSecond());
        assertEquals(1000.0, s.readKilobytesPerSecond());
        assertEquals(0.5, s.readAwaitMillis());
        assertEquals(20.0, s.utilizationPercent());
        assertEquals(0.4, s.averageQueueSize(), 1e-12);
        assertEquals(Duration.ofSeconds(50), s.interval());
    }

    @Test
    void devicesPresentInOnlyOneReadingOrReplacedAreLeftOut() {
        DiskStats b = at("102.00", disk(new DeviceNumber(8, 16), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, Optional.empty(),
                Optional.empty()));
        assertEquals(List.of(), IoStat.between(EARLIER, b));
    }

    @Test
    void readingsOutOfOrderAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IoStat.between(LATER, EARLIER));
        assertEquals(true, e.getMessage().contains("in order"));
    }

    @Test
    void ratesTimesTheIntervalGiveBackTheCounts() {
        qt().forAll(longs().between(0, 1L << 40), longs().between(0, 1L << 40), integers().between(1, 100_000),
                longs().between(0, 1L << 31)).checkAssert((reads, sectors, centis, ticks) -> {
                    DiskStats a = at("1.00", disk(SDA, 7, 0, 9, 0, 0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty()));
                    DiskStats b = new DiskStats(Duration.ofMillis(1000 + centis * 10L), List.of(disk(SDA, 7 + reads, 0,
                            9 + sectors, ticks, 0, 0, 0, 0, Math.min(ticks, centis * 10L), 0, Optional.empty(),
                            Optional.empty())));
                    IoStat s = IoStat.between(a, b).get(0);
                    double seconds = centis / 100.0;
                    assertEquals(reads, s.readsPerSecond() * seconds, Math.max(1e-6, reads * 1e-9));
                    assertEquals(sectors / 2.0, s.readKilobytesPerSecond() * seconds, Math.max(1e-6, sectors * 1e-9));
                    double util = s.utilizationPercent();
                    assertEquals(true, util >= 0 && util <= 100.0 + 1e-9, "util " + util);
                });
    }
}
