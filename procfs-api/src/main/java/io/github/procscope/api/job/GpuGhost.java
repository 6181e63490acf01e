package io.github.procscope.api.job;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * GPU memory that NVML still lists, after the job's end, for a process that was a member of the job: memory
 * the driver has not given back yet (a process stuck in uninterruptible sleep, a context not torn down), or
 * that a member kept by escaping the job's end.
 *
 * @param pid             the former member's pid
 * @param comm            its command name, as last sampled while it was a member
 * @param gpu             the GPU's index
 * @param usedMemoryBytes the memory NVML lists for it on that GPU, in bytes; empty where NVML cannot tell
 * @param alive           whether the process (same pid, same start time) still exists
 */
public record GpuGhost(long pid, String comm, int gpu, OptionalLong usedMemoryBytes, boolean alive) {
    /** Checks the components. */
    public GpuGhost {
        if (pid <= 0) {
            throw new IllegalArgumentException("a pid is positive, not " + pid);
        }
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(usedMemoryBytes, "usedMemoryBytes");
        if (gpu < 0 || usedMemoryBytes.orElse(0) < 0) {
            throw new IllegalArgumentException("a GPU index and a memory size are 0 or more");
        }
    }
}
