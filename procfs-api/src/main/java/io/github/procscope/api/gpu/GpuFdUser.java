package io.github.procscope.api.gpu;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A process that holds NVIDIA device files open, found through the links in {@code /proc/PID/fd}
 * (as {@code lsof /dev/nvidia*} or {@code fuser -v /dev/nvidia*} would find it). A CUDA program opens
 * {@code /dev/nvidiactl}, {@code /dev/nvidia-uvm} and one {@code /dev/nvidiaN} per GPU it uses. This sees
 * GPU users that NVML cannot name, such as processes inside a container whose pids NVML reports in the
 * host's namespace.
 *
 * @param pid          the process id (in the namespace of the procfs that was scanned)
 * @param deviceMinors the N of every {@code /dev/nvidiaN} it holds open, ascending
 * @param otherFiles   the other NVIDIA device files it holds open ({@code /dev/nvidiactl},
 *                     {@code /dev/nvidia-uvm}, {@code /dev/nvidia-caps/...}), ascending
 */
public record GpuFdUser(long pid, Set<Integer> deviceMinors, Set<String> otherFiles) {
    /**
     * Checks and copies components.
     *
     * @throws IllegalArgumentException if the pid is not positive or no file is given
     */
    public GpuFdUser {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive: " + pid);
        }
        deviceMinors = Collections.unmodifiableSortedSet(new TreeSet<>(Objects.requireNonNull(deviceMinors, "deviceMinors")));
        otherFiles = Collections.unmodifiableSortedSet(new TreeSet<>(Objects.requireNonNull(otherFiles, "otherFiles")));
        if (deviceMinors.isEmpty() && otherFiles.isEmpty()) {
            throw new IllegalArgumentException("pid " + pid + " holds no NVIDIA device file");
        }
    }
}
