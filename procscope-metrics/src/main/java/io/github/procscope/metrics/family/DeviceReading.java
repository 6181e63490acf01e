package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.RemappedRows;
import io.github.procscope.api.gpu.XidErrors;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What one scrape read of one GPU, from which every {@link DcgmField} takes its value.
 *
 * @param device           the GPU
 * @param sample           its sample
 * @param pcieReplays      its PCIe replays, empty where not offered
 * @param remappedRows     its row remapping, empty where not offered
 * @param xidErrors        its XID errors, empty where not watched
 * @param nvlinkBandwidth  its NVLink bandwidth since the last reading as DCGM publishes it ({@link NvlinkRates}),
 *                         empty without NVLink counters
 * @param gpm              its last GPU Performance Monitoring window ({@link GpmSampler}), empty where GPM is not
 *                         offered or no window was measured yet
 */
public record DeviceReading(GpuDevice device, GpuSample sample, OptionalLong pcieReplays,
                            Optional<RemappedRows> remappedRows, Optional<XidErrors> xidErrors,
                            OptionalDouble nvlinkBandwidth, Optional<GpmMetrics> gpm) {
    /** Checks that no component is null. */
    public DeviceReading {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(sample, "sample");
        Objects.requireNonNull(pcieReplays, "pcieReplays");
        Objects.requireNonNull(remappedRows, "remappedRows");
        Objects.requireNonNull(xidErrors, "xidErrors");
        Objects.requireNonNull(nvlinkBandwidth, "nvlinkBandwidth");
        Objects.requireNonNull(gpm, "gpm");
    }

    /**
     * Reads a GPU: its sample, then its PCIe replays, row remapping and XID errors (the first read of XID errors
     * starts watching them).
     *
     * @param d      the GPU
     * @param nvlink the NVLink rates, which this reading advances
     * @param gpm    the GPU's last GPM window, if any
     * @return the reading
     * @throws io.github.procscope.api.core.ProcscopeException if the GPU fails to answer
     */
    public static DeviceReading of(GpuDevice d, NvlinkRates nvlink, Optional<GpmMetrics> gpm) {
        GpuSample sample = d.sample();
        return new DeviceReading(d, sample, d.pcieReplays(), d.remappedRows(), d.xidErrors(),
                nvlink.advance(d.uuid(), sample), gpm);
    }
}
