package io.github.procscope.api.gpu;

import io.github.procscope.api.core.Pids;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTree;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Joins GPU processes (from NVML, from open device files, or both) with a process snapshot.
 *
 * <p><b>The run root</b> of a process is found by walking up its parents and stopping below the first
 * ancestor that is a <em>boundary</em>: PID 1, one of the given subreapers, a kernel thread, or a process
 * whose command name is in the boundary set ({@link #DEFAULT_BOUNDARY_COMMANDS}: shells, terminal
 * multiplexers, login and privilege programs, container shims). The run root is the last process before
 * that boundary: for a DataLoader worker started as {@code bash -> python train.py -> worker} it is
 * {@code python train.py}; under {@code torchrun} it is {@code torchrun}; for a worker whose parent died
 * (re-parented to PID 1) it is the worker itself. A process that is its own run root has no parent in the
 * run.
 *
 * <p><b>Parent gone</b>: the process's parent is PID 1 or a subreaper, it is not PID 1 or a kernel thread,
 * and it is not a session leader (daemons started on purpose, such as services, lead their own session).
 * The kernel does not say who is a subreaper ({@code systemd --user}, {@code tini -s}, a container shim):
 * the caller names them.
 */
public final class GpuUsers {
    /** Command names ({@code /proc/PID/comm}, at most 15 bytes) that bound a run from above. */
    public static final Set<String> DEFAULT_BOUNDARY_COMMANDS = Set.of(
            "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "busybox",
            "login", "sshd", "sudo", "su", "setsid", "nohup", "screen", "SCREEN", "tmux", "tmux: server",
            "tmux: client", "script", "systemd", "init", "containerd-shim", "conmon", "tini", "dumb-init",
            "runc", "crun", "slurmstepd", "supervisord", "jupyter-lab", "jupyter-noteboo");

    private GpuUsers() {
    }

    /**
     * {@return one user per pid, ascending by pid}
     *
     * @param gpuProcesses NVML's process entries (of any devices)
     * @param fdUsers      processes found holding NVIDIA device files (may be empty)
     * @param snapshot     the process table at about the same moment
     * @param subreapers   pids of known subreapers (may be empty)
     */
    public static List<GpuUser> join(List<GpuProcess> gpuProcesses, List<GpuFdUser> fdUsers,
                                     ProcessSnapshot snapshot, Set<Long> subreapers) {
        return join(gpuProcesses, fdUsers, snapshot, subreapers, DEFAULT_BOUNDARY_COMMANDS);
    }

    /**
     * {@return one user per pid, ascending by pid}
     *
     * @param gpuProcesses     NVML's process entries (of any devices)
     * @param fdUsers          processes found holding NVIDIA device files (may be empty)
     * @param snapshot         the process table at about the same moment
     * @param subreapers       pids of known subreapers (may be empty)
     * @param boundaryCommands command names that bound a run from above
     */
    public static List<GpuUser> join(List<GpuProcess> gpuProcesses, List<GpuFdUser> fdUsers,
                                     ProcessSnapshot snapshot, Set<Long> subreapers,
                                     Set<String> boundaryCommands) {
        Objects.requireNonNull(snapshot, "snapshot");
        Set<Long> reapers = Set.copyOf(subreapers);
        Set<String> boundary = Set.copyOf(boundaryCommands);
        Map<Long, List<GpuProcess>> byPid = new TreeMap<>();
        for (GpuProcess p : gpuProcesses) {
            byPid.computeIfAbsent(p.pid(), k -> new ArrayList<>()).add(p);
        }
        Map<Long, Set<Integer>> minorsByPid = new TreeMap<>();
        for (GpuFdUser u : fdUsers) {
            minorsByPid.computeIfAbsent(u.pid(), k -> new TreeSet<>()).addAll(u.deviceMinors());
            byPid.computeIfAbsent(u.pid(), k -> new ArrayList<>());
        }
        ProcessTree tree = snapshot.tree();
        List<GpuUser> out = new ArrayList<>(byPid.size());
        for (Map.Entry<Long, List<GpuProcess>> e : byPid.entrySet()) {
            long pid = e.getKey();
            Optional<ProcessInfo> process = pid >= 1 && pid <= Pids.PID_MAX_LIMIT ? tree.get(pid) : Optional.empty();
            Optional<ProcessInfo> root = process.map(p -> runRoot(tree, p, reapers, boundary));
            boolean parentGone = process.map(p -> parentGone(p, reapers)).orElse(false);
            out.add(new GpuUser(pid, e.getValue(), minorsByPid.getOrDefault(pid, Set.of()), process, root, parentGone));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return the root of the process's run, as defined above (possibly the process itself)}
     *
     * @param tree             a process tree
     * @param process          a process in it
     * @param subreapers       pids of known subreapers
     * @param boundaryCommands command names that bound a run from above
     */
    public static ProcessInfo runRoot(ProcessTree tree, ProcessInfo process, Set<Long> subreapers,
                                      Set<String> boundaryCommands) {
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(subreapers, "subreapers");
        Objects.requireNonNull(boundaryCommands, "boundaryCommands");
        ProcessInfo current = Objects.requireNonNull(process, "process");
        Set<Long> seen = new HashSet<>();
        while (seen.add(current.pid())) {
            Optional<ProcessInfo> parent = tree.parent(current.pid());
            if (parent.isEmpty() || isBoundary(parent.get(), subreapers, boundaryCommands)) {
                return current;
            }
            current = parent.get();
        }
        return current;
    }

    /**
     * {@return whether it was re-parented, as defined above}
     *
     * @param process    a process
     * @param subreapers pids of known subreapers
     */
    public static boolean parentGone(ProcessInfo process, Set<Long> subreapers) {
        Objects.requireNonNull(subreapers, "subreapers");
        if (process.pid() == 1 || process.isKernelThread() || process.ppid() == 0) {
            return false;
        }
        boolean adopted = process.ppid() == 1 || subreapers.contains(process.ppid());
        return adopted && process.sid() != process.pid();
    }

    private static boolean isBoundary(ProcessInfo p, Set<Long> subreapers, Set<String> boundaryCommands) {
        return p.pid() == 1 || p.isKernelThread() || subreapers.contains(p.pid())
                || boundaryCommands.contains(p.comm());
    }
}
