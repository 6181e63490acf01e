package io.github.procscope.api.gpu;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The processes on one GPU, read at one moment, and which of NVML's lists could not be read. An empty
 * {@link #processes()} means nothing runs only when {@link #isComplete()}; otherwise a list was withheld
 * (for example {@code NVML_ERROR_NO_PERMISSION} for the aggregate list of a MIG parent as a non-root
 * user, or a driver without MPS) and processes in it are missing.
 *
 * @param processes the processes, ascending by pid, merged across the three lists
 * @param withheld  the lists that could not be read, with the code NVML gave ({@code NOT_SUPPORTED},
 *                  {@code NO_PERMISSION}, or {@code FUNCTION_NOT_FOUND} when the driver lacks the function)
 */
public record GpuProcesses(List<GpuProcess> processes, Map<GpuProcessType, NvmlReturn> withheld) {
    /** Copies the components. */
    public GpuProcesses {
        processes = List.copyOf(processes);
        Map<GpuProcessType, NvmlReturn> m = new EnumMap<>(GpuProcessType.class);
        m.putAll(Objects.requireNonNull(withheld, "withheld"));
        withheld = Collections.unmodifiableMap(m);
    }

    /** {@return whether every list was read, so that {@link #processes()} is all there is} */
    public boolean isComplete() {
        return withheld.isEmpty();
    }

    /**
     * {@return the device memory used by the listed processes, in bytes, counting those whose memory NVML
     * reports; processes whose memory is not available add nothing}
     */
    public long knownUsedMemoryBytes() {
        long sum = 0;
        for (GpuProcess p : processes) {
            sum += p.usedMemoryBytes().orElse(0);
        }
        return sum;
    }
}
