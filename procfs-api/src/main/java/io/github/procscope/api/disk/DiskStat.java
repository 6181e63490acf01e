package io.github.procscope.api.disk;

import io.github.procscope.api.core.DeviceNumber;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The I/O counters of one block device or partition since boot: one line of {@code /proc/diskstats}
 * (the kernel's {@code Documentation/admin-guide/iostats.rst}). Sectors are converted to bytes (the
 * kernel counts in 512-byte units whatever the device's sector size) and milliseconds to durations.
 *
 * <p>Counts are 64-bit on 64-bit kernels. The millisecond fields are 32-bit in the kernel's output and
 * wrap after 2^32 ms (about 49.7 days of accumulated time); {@link IoStat} allows for that.
 *
 * @param device          the device number
 * @param name            the device name ({@code sda}, {@code nvme0n1p1}, {@code dm-0}, {@code loop3})
 * @param readsCompleted  (field 1) reads completed successfully
 * @param readsMerged     (2) adjacent reads merged into one request
 * @param readBytes       (3) bytes read: sectors &times; 512
 * @param readTime        (4) time all reads spent, from issue to completion, summed over requests
 * @param writesCompleted (5) writes completed successfully
 * @param writesMerged    (6) adjacent writes merged into one request
 * @param writtenBytes    (7) bytes written: sectors &times; 512
 * @param writeTime       (8) time all writes spent, summed over requests
 * @param inFlight        (9) requests in progress now (the only field that is not a running total)
 * @param ioTime          (10) time the device had at least one request in progress ({@code io_ticks}):
 *                        the basis of {@code %util}
 * @param weightedIoTime  (11) time spent doing I/O weighted by the number of requests in progress: the basis
 *                        of {@code aqu-sz}
 * @param discards        (12-15, Linux 4.18+) discard counters; empty on older kernels (14-field lines)
 * @param flushes         (16-17, Linux 5.5+) flush counters; empty on older kernels (14- and 18-field lines)
 */
public record DiskStat(
        DeviceNumber device,
        String name,
        long readsCompleted,
        long readsMerged,
        long readBytes,
        Duration readTime,
        long writesCompleted,
        long writesMerged,
        long writtenBytes,
        Duration writeTime,
        long inFlight,
        Duration ioTime,
        Duration weightedIoTime,
        Optional<Discards> discards,
        Optional<Flushes> flushes) {

    /** Checks that nothing is null. */
    public DiskStat {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(readTime, "readTime");
        Objects.requireNonNull(writeTime, "writeTime");
        Objects.requireNonNull(ioTime, "ioTime");
        Objects.requireNonNull(weightedIoTime, "weightedIoTime");
        Objects.requireNonNull(discards, "discards");
        Objects.requireNonNull(flushes, "flushes");
    }

    /**
     * Discard (TRIM) counters, fields 12 to 15 of {@code /proc/diskstats}.
     *
     * @param completed discards completed successfully
     * @param merged    discards merged
     * @param bytes     bytes discarded: sectors &times; 512
     * @param time      time all discards spent
     */
    public record Discards(long completed, long merged, long bytes, Duration time) {
        /** Checks that nothing is null. */
        public Discards {
            Objects.requireNonNull(time, "time");
        }
    }

    /**
     * Flush counters, fields 16 and 17 of {@code /proc/diskstats}.
     *
     * @param completed flush requests completed successfully
     * @param time      time all flush requests spent
     */
    public record Flushes(long completed, Duration time) {
        /** Checks that nothing is null. */
        public Flushes {
            Objects.requireNonNull(time, "time");
        }
    }
}
