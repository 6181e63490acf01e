package io.github.procscope.api.disk;

import io.github.procscope.api.core.DeviceNumber;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code iostat -x} figures of one device over an interval, computed from two {@link DiskStats}
 * readings exactly as sysstat's {@code iostat} computes them: the interval is the difference of the two
 * uptimes in 1/100 s, a rate whose counter went backwards is 0, and the 32-bit millisecond counters are
 * subtracted modulo 2^32. Sizes are in kB of 1024 bytes, as {@code iostat} prints them.
 *
 * <p>How to read them: {@code %util} is the share of the interval during which the device had at least one
 * request in flight. Near 100% a single-queue disk is saturated, but a device that serves requests in
 * parallel (NVMe, RAID, SSD) can be at 100% and still have room: look at {@code r_await}/{@code w_await}
 * (the average time a request took, queueing included) and {@code aqu-sz} (the average number of requests
 * in flight) for whether requests are waiting.
 *
 * @param device                         the device number
 * @param name                           the device name
 * @param interval                       the time between the two readings
 * @param readsPerSecond                 {@code r/s}: reads completed per second
 * @param writesPerSecond                {@code w/s}: writes completed per second
 * @param discardsPerSecond              {@code d/s}: discards completed per second (0 on kernels without them)
 * @param flushesPerSecond               {@code f/s}: flushes completed per second (0 on kernels without them)
 * @param readKilobytesPerSecond         {@code rkB/s}
 * @param writeKilobytesPerSecond        {@code wkB/s}
 * @param discardKilobytesPerSecond      {@code dkB/s}
 * @param readMergesPerSecond            {@code rrqm/s}: reads merged per second
 * @param writeMergesPerSecond           {@code wrqm/s}
 * @param discardMergesPerSecond         {@code drqm/s}
 * @param readMergePercent               {@code %rrqm}: merged reads as a share of all reads
 * @param writeMergePercent              {@code %wrqm}
 * @param discardMergePercent            {@code %drqm}
 * @param readAwaitMillis                {@code r_await}: average time of a read, queueing included, in ms
 * @param writeAwaitMillis               {@code w_await}
 * @param discardAwaitMillis             {@code d_await}
 * @param flushAwaitMillis               {@code f_await}
 * @param averageReadRequestKilobytes    {@code rareq-sz}: average size of a read, in kB
 * @param averageWriteRequestKilobytes   {@code wareq-sz}
 * @param averageDiscardRequestKilobytes {@code dareq-sz}
 * @param averageQueueSize               {@code aqu-sz}: average number of requests in flight
 * @param utilizationPercent             {@code %util}: share of the interval with at least one request in
 *                                       flight
 */
public record IoStat(
        DeviceNumber device,
        String name,
        Duration interval,
        double readsPerSecond,
        double writesPerSecond,
        double discardsPerSecond,
        double flushesPerSecond,
        double readKilobytesPerSecond,
        double writeKilobytesPerSecond,
        double discardKilobytesPerSecond,
        double readMergesPerSecond,
        double writeMergesPerSecond,
        double discardMergesPerSecond,
        double readMergePercent,
        double writeMergePercent,
        double discardMergePercent,
        double readAwaitMillis,
        double writeAwaitMillis,
        double discardAwaitMillis,
        double flushAwaitMillis,
        double averageReadRequestKilobytes,
        double averageWriteRequestKilobytes,
        double averageDiscardRequestKilobytes,
        double averageQueueSize,
        double utilizationPercent) {

    private static final long SECTOR = 512;
    private static final long U32 = 1L << 32;

    /** Checks that nothing is null. */
    public IoStat {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(interval, "interval");
    }

    /**
     * The figures over the interval between two readings, for every device present in both (matched by
     * name and device number; a device that appeared or disappeared in between is left out).
     *
     * @param earlier the first reading
     * @param later   the second reading, taken after it during the same boot
     * @return the figures per device, in the order of {@code later}
     * @throws IllegalArgumentException if {@code later} was not taken after {@code earlier} (uptime went back)
     */
    public static List<IoStat> between(DiskStats earlier, DiskStats later) {
        Objects.requireNonNull(earlier, "earlier");
        Objects.requireNonNull(later, "later");
        if (later.uptime().compareTo(earlier.uptime()) < 0) {
            throw new IllegalArgumentException("the second reading (uptime " + later.uptime()
                    + ") was taken before the first (uptime " + earlier.uptime() + "): pass them in order");
        }
        long itv = centiseconds(later.uptime()) - centiseconds(earlier.uptime());
        if (itv == 0) {
            itv = 1; // as sysstat's get_interval
        }
        List<IoStat> out = new ArrayList<>(later.devices().size());
        for (DiskStat now : later.devices()) {
            Optional<DiskStat> before = earlier.device(now.name());
            if (before.isPresent() && before.get().device().equals(now.device())) {
                out.add(compute(before.get(), now, itv, later.uptime().minus(earlier.uptime())));
            }
        }
        return out;
    }

    /**
     * The figures since boot, as the first report of {@code iostat -x} shows them: the counters of one
     * reading divided by the uptime.
     *
     * @param reading a reading
     * @return the figures per device, in the reading's order
     */
    public static List<IoStat> sinceBoot(DiskStats reading) {
        Objects.requireNonNull(reading, "reading");
        long itv = Math.max(1, centiseconds(reading.uptime()));
        List<IoStat> out = new ArrayList<>(reading.devices().size());
        for (DiskStat now : reading.devices()) {
            out.add(compute(zero(now), now, itv, reading.uptime()));
        }
        return out;
    }

    private static IoStat compute(DiskStat p, DiskStat c, long itv, Duration interval) {
        long rdIos = delta(p.readsCompleted(), c.readsCompleted());
        long wrIos = delta(p.writesCompleted(), c.writesCompleted());
        long rdMerges = delta(p.readsMerged(), c.readsMerged());
        long wrMerges = delta(p.writesMerged(), c.writesMerged());
        long rdSect = delta(p.readBytes(), c.readBytes()) / SECTOR;
        long wrSect = delta(p.writtenBytes(), c.writtenBytes()) / SECTOR;

        DiskStat.Discards pd = p.discards().orElse(NO_DISCARDS);
        DiskStat.Discards cd = c.discards().orElse(NO_DISCARDS);
        long dcIos = delta(pd.completed(), cd.completed());
        long dcMerges = delta(pd.merged(), cd.merged());
        long dcSect = delta(pd.bytes(), cd.bytes()) / SECTOR;

        DiskStat.Flushes pf = p.flushes().orElse(NO_FLUSHES);
        DiskStat.Flushes cf = c.flushes().orElse(NO_FLUSHES);
        long flIos = delta(pf.completed(), cf.completed());

        double aquSz = c.weightedIoTime().toMillis() < p.weightedIoTime().toMillis() ? 0.0
                : rate(c.weightedIoTime().toMillis() - p.weightedIoTime().toMillis(), itv) / 1000.0;
        double util = c.ioTime().toMillis() < p.ioTime().toMillis() ? 0.0
                : rate(c.ioTime().toMillis() - p.ioTime().toMillis(), itv) / 10.0;

        return new IoStat(c.device(), c.name(), interval,
                rate(rdIos, itv), rate(wrIos, itv), rate(dcIos, itv), rate(flIos, itv),
                rate(rdSect, itv) / 2, rate(wrSect, itv) / 2, rate(dcSect, itv) / 2,
                rate(rdMerges, itv), rate(wrMerges, itv), rate(dcMerges, itv),
                mergePercent(rdMerges, rdIos), mergePercent(wrMerges, wrIos), mergePercent(dcMerges, dcIos),
                await(rdIos, p.readTime(), c.readTime()), await(wrIos, p.writeTime(), c.writeTime()),
                await(dcIos, pd.time(), cd.time()), await(flIos, pf.time(), cf.time()),
                requestKilobytes(rdSect, rdIos), requestKilobytes(wrSect, wrIos), requestKilobytes(dcSect, dcIos),
                aquSz, util);
    }

    private static final DiskStat.Discards NO_DISCARDS = new DiskStat.Discards(0, 0, 0, Duration.ZERO);
    private static final DiskStat.Flushes NO_FLUSHES = new DiskStat.Flushes(0, Duration.ZERO);

    private static DiskStat zero(DiskStat d) {
        return new DiskStat(d.device(), d.name(), 0, 0, 0, Duration.ZERO, 0, 0, 0, Duration.ZERO, 0, Duration.ZERO,
                Duration.ZERO, Optional.of(NO_DISCARDS), Optional.of(NO_FLUSHES));
    }

    /** {@return the increase of a running count, or 0 where it went backwards (sysstat shows 0.0 then)} */
    private static long delta(long before, long after) {
        return Long.compareUnsigned(after, before) < 0 ? 0 : after - before;
    }

    /** sysstat's {@code S_VALUE}: a count per second, the interval given in 1/100 s. */
    private static double rate(long delta, long itv) {
        return (double) delta / itv * 100;
    }

    private static double mergePercent(long merges, long ios) {
        long all = merges + ios;
        return all != 0 ? (double) merges / all * 100 : 0.0;
    }

    /** Average time per request; the 32-bit millisecond counters are subtracted modulo 2^32. */
    private static double await(long ios, Duration before, Duration after) {
        if (ios <= 0) {
            return 0.0;
        }
        long ms = Math.floorMod(after.toMillis() - before.toMillis(), U32);
        return ms / (double) ios;
    }

    private static double requestKilobytes(long sectors, long ios) {
        return ios > 0 ? sectors / (double) ios / 2 : 0.0;
    }

    private static long centiseconds(Duration d) {
        return d.toMillis() / 10;
    }
}
