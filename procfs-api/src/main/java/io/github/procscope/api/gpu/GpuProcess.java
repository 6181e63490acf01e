package io.github.procscope.api.gpu;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A process holding a context on a GPU, as NVML lists it: a row of {@code nvidia-smi}'s Processes table.
 * The compute, graphics and MPS lists are merged: a process that appears in several of them is one
 * {@code GpuProcess} with several {@link #types()} (one per MIG instance it uses, on a MIG parent).
 *
 * <p>The pid is the one NVML reports, which is a pid in the host's (the driver's) pid namespace: inside a
 * container it may name no process, or a different one. {@link GpuUser} joins it with the process table.
 *
 * @param deviceIndex       the {@link GpuDevice#index()} of the device it was listed for
 * @param deviceUuid        the {@link GpuDevice#uuid()} of that device
 * @param pid               the process id as NVML reports it (an unsigned 32-bit value)
 * @param types             the lists it appeared in; never empty
 * @param usedMemoryBytes   device memory it uses, in bytes ({@code usedGpuMemory}); empty when NVML reports
 *                          the value as not available ({@code NVML_VALUE_NOT_AVAILABLE}, for example
 *                          for another container's process or under Windows WDDM)
 * @param gpuInstanceId     the MIG GPU instance it runs in; empty when MIG is off ({@code 0xFFFFFFFF})
 * @param computeInstanceId the MIG compute instance it runs in; empty when MIG is off ({@code 0xFFFFFFFF})
 */
public record GpuProcess(int deviceIndex, String deviceUuid, long pid, Set<GpuProcessType> types,
                         OptionalLong usedMemoryBytes, OptionalInt gpuInstanceId,
                         OptionalInt computeInstanceId) {
    /**
     * Checks and copies components.
     *
     * @throws IllegalArgumentException if the pid is negative or larger than 32 bits, no type is given,
     *                                  or the memory is negative
     */
    public GpuProcess {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        Objects.requireNonNull(usedMemoryBytes, "usedMemoryBytes");
        Objects.requireNonNull(gpuInstanceId, "gpuInstanceId");
        Objects.requireNonNull(computeInstanceId, "computeInstanceId");
        if (pid < 0 || pid > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("NVML pids are unsigned 32-bit values: " + pid);
        }
        if (Objects.requireNonNull(types, "types").isEmpty()) {
            throw new IllegalArgumentException("a GPU process appears in at least one list");
        }
        types = Collections.unmodifiableSet(EnumSet.copyOf(types));
        if (usedMemoryBytes.isPresent() && usedMemoryBytes.getAsLong() < 0) {
            throw new IllegalArgumentException("used memory must not be negative: " + usedMemoryBytes);
        }
    }

    /** {@return {@code nvidia-smi}'s Type column: {@code C}, {@code G}, {@code M}, or combinations such as {@code C+G}} */
    public String typeLetters() {
        StringBuilder sb = new StringBuilder();
        for (GpuProcessType t : types) {
            if (sb.length() > 0) {
                sb.append('+');
            }
            sb.append(switch (t) {
                case COMPUTE -> 'C';
                case GRAPHICS -> 'G';
                case MPS_COMPUTE -> 'M';
            });
        }
        return sb.toString();
    }
}
