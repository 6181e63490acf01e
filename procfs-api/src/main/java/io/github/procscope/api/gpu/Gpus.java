package io.github.procscope.api.gpu;

import io.github.procscope.api.process.ProcessTable;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The NVIDIA GPUs of this machine, through NVML: what {@code nvidia-smi} shows, as values. Open it, use
 * it from any number of threads, close it (closing waits for calls in flight, then releases NVML):
 *
 * <pre>{@code
 * try (Gpus gpus = Procscope.system().openGpus()) {
 *     for (GpuDevice gpu : gpus.devices()) {
 *         GpuSample s = gpu.sample();
 *         System.out.printf("%d %s util %s%% mem %s%n", gpu.index(), gpu.name(),
 *                 s.gpuUtilizationPercent(), s.memoryUsedBytes());
 *     }
 * } catch (GpuUnavailableException e) {
 *     System.out.println("no GPU: " + e.reason());
 * }
 * }</pre>
 *
 * <p>After {@link #close()} the inventory's methods, and every device method that asks the driver, throw
 * {@link IllegalStateException}; {@code close()} itself may be called again.
 */
public interface Gpus extends AutoCloseable {

    /** {@return the driver version, such as {@code 535.54.03} ({@code nvmlSystemGetDriverVersion})} */
    String driverVersion();

    /** {@return the NVML library version, such as {@code 12.535.54.03} ({@code nvmlSystemGetNVMLVersion})} */
    String nvmlVersion();

    /**
     * {@return the CUDA version the driver supports ({@code nvmlSystemGetCudaDriverVersion_v2}); empty when
     * the driver cannot tell (no {@code libcuda.so.1})}
     */
    Optional<CudaVersion> cudaDriverVersion();

    /** {@return the GPUs this process may use, ascending by index (MIG devices are under {@link GpuDevice#migDevices()})} */
    List<GpuDevice> devices();

    /**
     * {@return the GPU with that index}
     *
     * @param index an NVML index
     * @throws IllegalArgumentException if there is no accessible GPU with that index
     */
    GpuDevice device(int index);

    /**
     * {@return the GPU (or MIG device, read now) with that UUID}
     *
     * @param uuid a GPU or MIG device UUID
     */
    Optional<GpuDevice> deviceByUuid(String uuid);

    /** {@return GPUs NVML counts but this process may not open, with why} */
    List<InaccessibleGpu> inaccessibleDevices();

    /**
     * Every process using a GPU, joined with the process table: NVML's process lists of every GPU and
     * MIG device, plus processes holding {@code /dev/nvidia*} open (found by the implementation's
     * {@link io.github.procscope.api.files.OpenFiles} reader through {@code /proc/PID/fd}, for containers
     * where NVML shows pids of another namespace or none). See {@link GpuUser} for what
     * is derived (the run's root process, whether the parent is gone).
     *
     * <p>On a MIG-enabled GPU whose aggregate list NVML withholds (as non-root), the MIG devices' own lists
     * are read instead. A GPU reported lost is skipped.
     *
     * @param table the process table to join with (its snapshot is taken now)
     * @return the users, ascending by pid
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    default List<GpuUser> users(ProcessTable table) {
        return users(table, Set.of());
    }

    /**
     * As {@link #users(ProcessTable)}, with the pids of known subreapers (processes that adopt orphans in
     * place of PID 1, such as {@code systemd --user} or a container's init), so that processes they adopted
     * count as having lost their parent.
     *
     * @param table      the process table to join with (its snapshot is taken now, with
     *                   {@link io.github.procscope.api.process.Facet#CGROUP}, so that each user carries its
     *                   {@link GpuUser#owner() owner}: container, pod, Slurm job)
     * @param subreapers pids of known subreapers
     * @return the users, ascending by pid
     * @throws NvmlException if NVML fails other than with "not supported" or "no permission"
     */
    List<GpuUser> users(ProcessTable table, Set<Long> subreapers);

    /**
     * A monitor of all {@link #devices()}: a bounded window of samples per device, summaries and the
     * idle-holding verdict. Not yet started; close it before the inventory.
     *
     * @param options the interval, window, rule and listeners ({@link GpuMonitorOptions#defaults()})
     * @return the monitor, not yet started
     */
    default GpuMonitor monitor(GpuMonitorOptions options) {
        return monitor(devices(), options);
    }

    /**
     * A monitor of some devices (whole GPUs or MIG devices, such as those of {@link GpuDevice#migDevices()}).
     *
     * @param devices the devices to monitor, with distinct UUIDs
     * @param options the interval, window, rule and listeners
     * @return the monitor, not yet started
     * @throws IllegalArgumentException if a device is given twice
     */
    GpuMonitor monitor(List<GpuDevice> devices, GpuMonitorOptions options);

    /** Releases NVML after calls in flight have returned. Idempotent. */
    @Override
    void close();
}
