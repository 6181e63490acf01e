package io.github.procscope.api.disk;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One reading of {@code /proc/diskstats}, with the system's uptime ({@code /proc/uptime}) read just before
 * it: the clock that {@link IoStat} divides by, as {@code iostat} does.
 *
 * @param uptime  the system's uptime when the reading was taken, in the 1/100 s resolution the kernel prints
 * @param devices every device's counters, in the kernel's order
 */
public record DiskStats(Duration uptime, List<DiskStat> devices) {
    /** Copies the list. */
    public DiskStats {
        Objects.requireNonNull(uptime, "uptime");
        if (uptime.isNegative()) {
            throw new IllegalArgumentException("uptime must not be negative: " + uptime);
        }
        devices = List.copyOf(devices);
    }

    /**
     * {@return its counters, if the reading has it}
     *
     * @param name a device name such as {@code sda} or {@code nvme0n1}
     */
    public Optional<DiskStat> device(String name) {
        Objects.requireNonNull(name, "name");
        for (DiskStat d : devices) {
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }
}
