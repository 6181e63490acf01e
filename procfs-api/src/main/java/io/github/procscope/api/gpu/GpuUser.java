package io.github.procscope.api.gpu;

import io.github.procscope.api.process.ProcessInfo;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * A process using a GPU, with what the process table says about it: the answer to "who holds this
 * GPU's memory, which run does it belong to, and is it a leftover?". Built by {@link GpuUsers#join}.
 *
 * <p><b>Ghosts.</b> After Ctrl-C the main process of a training run may exit while a DataLoader worker or
 * a {@code multiprocessing} child lives on and keeps its CUDA context, and with it gigabytes of VRAM.
 * Such a process has been re-parented to PID 1 (or a subreaper): {@link #parentGone()} is true. A run
 * started with {@code nohup} whose terminal was closed looks the same; its age, command line and CPU use
 * tell a live run from a leftover.
 *
 * @param pid              the process id (NVML's, which inside a container may be the host's)
 * @param gpuProcesses     NVML's entries for this pid, one per device (and MIG instance); empty when the
 *                         process was found only through its open device files
 * @param openDeviceMinors the N of every {@code /dev/nvidiaN} it holds open; empty when it holds none or
 *                         was found only through NVML (its files were not visible)
 * @param process          the process as the table shows it; empty when the pid is not visible here (a
 *                         pid of another pid namespace, or the process exited before the table was read)
 * @param runRoot          the root of its training run (see {@link GpuUsers}); empty when
 *                         {@link #process()} is
 * @param parentGone       whether it was re-parented: its parent is PID 1 or a subreaper, and it is not a
 *                         session leader (daemons are); false when {@link #process()} is empty
 */
public record GpuUser(long pid, List<GpuProcess> gpuProcesses, Set<Integer> openDeviceMinors,
                      Optional<ProcessInfo> process, Optional<ProcessInfo> runRoot, boolean parentGone) {
    /**
     * Checks and copies components.
     *
     * @throws IllegalArgumentException if the pid is negative or the process is not this pid
     */
    public GpuUser {
        if (pid < 0) {
            throw new IllegalArgumentException("pid must not be negative: " + pid);
        }
        gpuProcesses = List.copyOf(gpuProcesses);
        openDeviceMinors = Collections.unmodifiableSortedSet(
                new TreeSet<>(Objects.requireNonNull(openDeviceMinors, "openDeviceMinors")));
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(runRoot, "runRoot");
        if (process.isPresent() && process.get().pid() != pid) {
            throw new IllegalArgumentException("process " + process.get().pid() + " is not pid " + pid);
        }
    }

    /**
     * {@return the container, pod, Slurm job or systemd unit the process belongs to (see {@link
     * ProcessInfo#owner()}): the answer to "which pod holds this GPU's memory"; empty when the process is
     * not visible here, the table was read without {@link io.github.procscope.api.process.Facet#CGROUP}, or its
     * cgroup paths name no owner}
     */
    public Optional<io.github.procscope.api.cgroup.Owner> owner() {
        return process.flatMap(ProcessInfo::owner);
    }

    /** {@return whether the process is visible in the process table that was joined} */
    public boolean visibleHere() {
        return process.isPresent();
    }

    /** {@return whether NVML listed it} */
    public boolean listedByNvml() {
        return !gpuProcesses.isEmpty();
    }

    /**
     * {@return whether it is a ghost: it holds a GPU and its parent is gone ({@link #parentGone()}); the
     * candidates to end (with SIGTERM first) if they are yours}
     */
    public boolean ghost() {
        return parentGone;
    }

    /**
     * {@return the device memory NVML reports for it, summed over its devices, in bytes; empty when NVML
     * reports no figure for any of them}
     */
    public OptionalLong usedMemoryBytes() {
        long sum = 0;
        boolean any = false;
        for (GpuProcess p : gpuProcesses) {
            if (p.usedMemoryBytes().isPresent()) {
                sum += p.usedMemoryBytes().getAsLong();
                any = true;
            }
        }
        return any ? OptionalLong.of(sum) : OptionalLong.empty();
    }
}
