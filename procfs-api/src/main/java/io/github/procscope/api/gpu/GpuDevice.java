package io.github.procscope.api.gpu;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One NVIDIA GPU, or one MIG device (a slice of a GPU in Multi-Instance mode), of an open {@link Gpus}
 * inventory. The identity ({@link #index()}, {@link #uuid()}, {@link #name()}, PCI bus id, minor number,
 * serial) was read when the inventory was opened; every other method asks the driver now.
 *
 * <p>Thread-safe. Once the inventory is closed, every method that asks the driver throws
 * {@link IllegalStateException}; the identity read at open stays readable.
 * A GPU that fell off the bus ({@code NVML_ERROR_GPU_IS_LOST}) throws {@link NvmlException} with
 * {@link NvmlReturn#GPU_IS_LOST} from then on, without asking the driver again, while the other devices
 * keep working; {@link #isLost()} tells. Any other NVML failure that is not "not supported" or "no
 * permission" throws {@link NvmlException}.
 */
public interface GpuDevice {

    /**
     * {@return the NVML index of a GPU ({@code nvmlDeviceGetIndex}, the {@code nvidia-smi} index); for a MIG
     * device, its slot under the parent GPU ({@code nvmlDeviceGetMigDeviceHandleByIndex})}
     */
    int index();

    /** {@return the UUID ({@code GPU-...}, or {@code MIG-...} for a MIG device) ({@code nvmlDeviceGetUUID})} */
    String uuid();

    /** {@return the product name, such as {@code NVIDIA H100 80GB HBM3} ({@code nvmlDeviceGetName})} */
    String name();

    /**
     * {@return the PCI bus id {@code domain:bus:device.function} ({@code nvmlDeviceGetPciInfo_v3}, {@code
     * busId}); empty for MIG devices and drivers without the function}
     */
    Optional<String> pciBusId();

    /**
     * {@return the minor number N of the device file {@code /dev/nvidiaN} ({@code
     * nvmlDeviceGetMinorNumber}); empty for MIG devices, which have none}
     */
    OptionalInt minorNumber();

    /** {@return {@code /dev/nvidiaN} for the {@link #minorNumber()}; empty when there is none} */
    default Optional<Path> deviceFile() {
        OptionalInt minor = minorNumber();
        return minor.isPresent() ? Optional.of(Path.of("/dev/nvidia" + minor.getAsInt())) : Optional.empty();
    }

    /**
     * {@return the board serial number ({@code nvmlDeviceGetSerial}); empty for boards without one (most
     * GeForce boards) and MIG devices}
     */
    Optional<String> serial();

    /** {@return whether this is a MIG device rather than a whole GPU} */
    boolean isMigDevice();

    /** {@return the index of the GPU this MIG device belongs to; empty for a whole GPU} */
    OptionalInt parentIndex();

    /** {@return the MIG GPU instance id ({@code nvmlDeviceGetGpuInstanceId}); empty for a whole GPU} */
    OptionalInt gpuInstanceId();

    /** {@return the MIG compute instance id ({@code nvmlDeviceGetComputeInstanceId}); empty for a whole GPU} */
    OptionalInt computeInstanceId();

    /**
     * {@return persistence, ECC and MIG modes, read now}
     *
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    GpuModes modes();

    /**
     * Reads every metric once: utilization, memory, temperature, power, energy, clocks, performance state,
     * fan, clock event reasons, ECC counts. Metrics the device does not offer are empty.
     *
     * @return the sample
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    GpuSample sample();

    /**
     * Lists the processes with a context on this device: compute, graphics and MPS, merged by pid (and MIG
     * instance). On a MIG-enabled GPU the parent lists every instance's processes (as root); a MIG
     * device lists its own.
     *
     * @return the processes, and which lists NVML withheld
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    GpuProcesses processes();

    /**
     * Per-process utilization samples the driver holds that are newer than {@code since}. Not supported on
     * MIG-enabled GPUs.
     *
     * @param since only samples taken after this instant ({@link Instant#EPOCH} for all the driver keeps);
     *              pass the newest {@link GpuProcessUtilization#timestamp()} of the previous call to read
     *              only what is new
     * @return the samples, ascending by pid; an empty list when no process had utilization since then;
     *         empty when the device or driver does not offer per-process utilization
     * @throws NvmlException if NVML fails other than with "not supported", "no permission" or "not found"
     */
    Optional<List<GpuProcessUtilization>> processUtilization(Instant since);

    /**
     * {@return the MIG devices of this GPU, ascending by slot, read now (slots without a device are
     * skipped); empty when MIG is off or not supported, and for a MIG device itself}
     *
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    List<GpuDevice> migDevices();

    /**
     * {@return whether this device offers GPU Performance Monitoring ({@code nvmlGpmQueryDeviceSupport};
     * Hopper and newer)}
     *
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    boolean gpmSupported();

    /**
     * Measures SM activity and occupancy over an interval: takes a GPM sample, waits {@code interval},
     * takes another, and computes the metrics between them. Blocks the calling thread for the interval
     * (closing the inventory cuts the wait short and this method then throws {@link IllegalStateException}).
     *
     * @param interval how long to measure; at least 100 ms, NVML's internal refresh period
     * @return the metrics; empty when the device does not offer GPM
     * @throws IllegalArgumentException if the interval is shorter than 100 ms
     * @throws NvmlException            if NVML fails other than with "not supported" or "no permission"
     */
    Optional<GpmMetrics> gpmMetrics(Duration interval);

    /**
     * {@return the PCIe replays of this GPU since the driver loaded ({@code
     * nvmlDeviceGetPcieReplayCounter}): link-level retransmissions after transfer errors; a steadily rising
     * count points at a bad slot, riser or cable. Empty when the device does not offer it (MIG devices, some
     * boards)}
     *
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    OptionalLong pcieReplays();

    /**
     * {@return this GPU's row remapping ({@code nvmlDeviceGetRemappedRows}); empty when the device does not
     * remap rows (before Ampere, GDDR boards, MIG devices) or the driver lacks the function}
     *
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    Optional<RemappedRows> remappedRows();

    /**
     * The XID errors this GPU raised while its inventory watched it. The first call on any device of an open
     * {@link Gpus} starts watching them all: one background thread per inventory waits on an NVML event set
     * ({@code nvmlEventSetWait_v2}) where every GPU that offers it is registered for
     * {@code nvmlEventTypeXidCriticalError}, and keeps each GPU's count and last XID until the inventory is
     * closed. Errors raised before that first call are not seen (see {@link XidErrors}).
     *
     * @return the XID errors seen so far; empty when the device or driver does not report XID events (MIG
     *         devices report theirs under the parent GPU)
     * @throws NvmlException if NVML fails to set up watching other than with "not supported" or "no
     *                       permission"
     */
    Optional<XidErrors> xidErrors();

    /** {@return whether NVML reported this GPU lost ({@code NVML_ERROR_GPU_IS_LOST})} */
    boolean isLost();
}
