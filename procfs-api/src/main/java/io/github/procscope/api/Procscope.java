package io.github.procscope.api;

import io.github.procscope.api.core.ImplementationNotFoundException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.system.SystemResources;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The front door: every reader of one system, all sharing the same procfs and sysfs roots.
 *
 * <pre>{@code
 * Procscope host = Procscope.system();                     // /proc and /sys of this machine
 * ProcessSnapshot snapshot = host.processes().snapshot();
 * SystemMemory memory = host.resources().memory();
 *
 * Procscope mounted = Procscope.at(Path.of("/host/proc"), Path.of("/host/sys"));  // another root
 * }</pre>
 *
 * <p>The implementation ({@code procfs-impl-linux}) is found through {@link java.util.ServiceLoader}
 * ({@link io.github.procscope.api.PlatformProvider}); code that compiles against {@code procfs-api}
 * alone needs it at run time only. GPUs come from a second, optional implementation ({@code nvml-binding}).
 *
 * <p><b>Caching.</b> One rule everywhere: a success is kept, a failure is not. {@link #system()} returns
 * the same instance once one has been made; each accessor builds its reader on first success and returns
 * that reader afterwards, and a failed attempt (such as {@link ProcfsUnavailableException} for a root that
 * is not a procfs) is thrown again, the same way, by the next call. Readers hold no process data: every
 * call of a reader reads the kernel anew.
 *
 * <p><b>Signals under another root.</b> Signals go to this system's processes, and a process's identity
 * (its start time) can only be checked in the live {@code /proc}. For a root that is not this system's
 * {@code /proc}, {@link #signals()} still reads (dispositions, whether a process is alive, under that
 * root), but every send and stop throws {@link io.github.procscope.api.signals.SignalsUnavailableException}.
 *
 * <p>Thread-safe.
 */
public interface Procscope {

    /**
     * {@return the live system: {@code /proc} and {@code /sys}; the same instance on every call once made}
     *
     * @throws ImplementationNotFoundException if no implementation ({@code procfs-impl-linux}) is on the
     *                                         class path or module path (not cached: the next call looks again)
     */
    static Procscope system() {
        return SystemProcscope.get();
    }

    /**
     * Readers over another root: a fixture tree, or a host's {@code /proc} and {@code /sys} mounted into a
     * container (such as {@code /host/proc}). Nothing is read here; each accessor checks its root when first
     * called.
     *
     * @param procfsRoot a procfs mount, or a tree with the same layout
     * @param sysfsRoot  a sysfs mount, or a tree with the same layout
     * @return the readers under those roots (a new instance)
     * @throws ImplementationNotFoundException if no implementation is on the class path or module path
     */
    static Procscope at(Path procfsRoot, Path sysfsRoot) {
        return SystemProcscope.open(procfsRoot, sysfsRoot);
    }

    /** {@return the procfs root all readers use, such as {@code /proc}} */
    Path procfsRoot();

    /** {@return the sysfs root all readers use, such as {@code /sys}} */
    Path sysfsRoot();

    /**
     * {@return whether {@link #procfsRoot()} is this system's own {@code /proc} (the same directory once
     * links are resolved)}: only then do signals, jobs, the kernel log and the preemption guard act on this
     * system; under another root they read only, or refuse.
     */
    boolean isLive();

    /**
     * {@return the process table under {@link #procfsRoot()}}
     *
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    ProcessTable processes();

    /**
     * {@return maps, smaps and memory totals of processes under {@link #procfsRoot()}}
     *
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    ProcessMemory memory();

    /**
     * {@return the open-file reader under {@link #procfsRoot()}}
     *
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    OpenFiles openFiles();

    /**
     * {@return memory, load, cgroup memory, file systems and disks under both roots}
     *
     * @throws ProcfsUnavailableException if the procfs root does not exist or is not a procfs
     */
    SystemResources resources();

    /**
     * {@return the signal sender over {@link #processes()}: it sends, stops and reads under the live {@code
     * /proc}; under another root it reads only, and sends and stops throw {@link
     * io.github.procscope.api.signals.SignalsUnavailableException}}
     *
     * @throws io.github.procscope.api.signals.SignalsUnavailableException if the live system's native
     *         C library cannot be bound
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    Signals signals();

    /**
     * {@return the lifecycle events (fork, exec, exit) of this root's processes: the kernel's process
     * connector where this user may use it on the live system, else snapshot diffing of {@link
     * #processes()}; each subscription says which source it uses and why a better one is not}
     */
    io.github.procscope.api.events.ProcessEvents events();

    /**
     * {@return the kernel log: {@code /dev/kmsg} timed against the boot time of the live system; under
     * another root, a log whose every read throws {@link
     * io.github.procscope.api.diagnose.KernelLogUnavailableException} (a procfs tree has no kernel log of
     * its own; give one with {@link #kernelLog(Path)})}
     */
    KernelLog kernelLog();

    /**
     * {@return a reader of that file, its timestamps counted from the boot time under {@link #procfsRoot()}}
     *
     * @param kmsgFile a file in the {@code /dev/kmsg} format, such as one saved from another machine
     * @throws ProcfsUnavailableException if the procfs root does not exist or is not a procfs
     */
    KernelLog kernelLog(Path kmsgFile);

    /**
     * {@return the doctor over every source of this root: {@link #processes()}, {@link #resources()}, {@link
     * #openFiles()}, the kernel log of {@link #kernelLog()} (for the live system only) and the GPUs of
     * {@link #openGpus()}}
     *
     * @throws ProcfsUnavailableException if the procfs root does not exist or is not a procfs
     */
    Doctor doctor();

    /**
     * {@return the doctor over this root's processes, resources and open files, and the sources given}
     *
     * @param kernelLog the kernel log to look for OOM kills in; empty to examine none
     * @param gpus      whether to look at the GPUs of {@link #openGpus()}
     * @throws ProcfsUnavailableException if the procfs root does not exist or is not a procfs
     */
    Doctor doctor(Optional<KernelLog> kernelLog, boolean gpus);

    /**
     * Opens a view of one job's process tree under this root that is cheap to refresh (see {@link JobTree}).
     * Opening scans every process once, for members the children lists cannot reach.
     *
     * @param root    the job's root; checked by its start time, so a reused pid is refused
     * @param options what to read per process
     * @return the tree
     * @throws io.github.procscope.api.core.NoSuchProcessException if the root is not running (or its pid now
     *         names another process)
     * @throws ProcfsUnavailableException if the procfs root does not exist or is not a procfs
     */
    JobTree jobTree(ProcessKey root, JobTreeOptions options);

    /**
     * {@return the supervisor of jobs on the live system: commands launched in their own session, watched,
     * their signals forwarded, every process of them ended at the end, and reported}
     *
     * @throws io.github.procscope.api.signals.SignalsUnavailableException if the procfs root is not this
     *         system's {@code /proc} (a job runs here), or the native C library cannot be bound
     * @throws ProcfsUnavailableException if the root does not exist or is not a procfs
     */
    JobSupervisor jobs();

    /**
     * Installs handlers for this JVM's own signals (TERM by default), so that a training loop can checkpoint
     * at its next step boundary when a scheduler preempts it; see {@link PreemptionGuard}. Close it to put the
     * previous handlers back.
     *
     * @param options the signals to guard and how to escalate ({@link PreemptionGuardOptions#defaults()}: TERM)
     * @return the guard, installed; {@link PreemptionGuard#refused()} lists what it could not take, and why
     * @throws io.github.procscope.api.signals.SignalsUnavailableException if the procfs root is not this
     *         system's {@code /proc} ({@link #isLive()}): the guard reads this JVM's own status there
     */
    PreemptionGuard preemptionGuard(PreemptionGuardOptions options);

    /**
     * Opens the GPUs through the GPU implementation ({@code nvml-binding}), joined with this root's readers
     * (processes holding {@code /dev/nvidia*} open are looked for under {@link #procfsRoot()}). Close it.
     *
     * @return the open inventory
     * @throws io.github.procscope.api.gpu.GpuUnavailableException if no GPU can be used, with the reason
     *         ({@link io.github.procscope.api.gpu.GpuUnavailableException.Reason#BINDING_ABSENT} when
     *         {@code nvml-binding} is not on the class path or module path)
     */
    default Gpus openGpus() {
        return SystemProcscope.openGpus(this);
    }

    /**
     * Opens Kubernetes names for this system's containers and GPUs through the optional module
     * {@code procscope-kubernetes}: a process's container ({@link KubernetesNames#container(
     * io.github.procscope.api.cgroup.Owner)}) resolves to its pod's namespace, name and UID and its container's
     * name through the container runtime's CRI socket, and a GPU to the containers the kubelet allocated it to.
     * Never a failure: without the module, or without the sockets, every answer is empty, and one log line
     * ({@link System.Logger}) says why. Close it.
     *
     * @param options the sockets to ask and how long to wait ({@link KubernetesOptions#defaults()}: containerd's,
     *                CRI-O's and the kubelet's usual sockets)
     * @return the names; nothing is asked before the first call
     */
    default KubernetesNames kubernetesNames(KubernetesOptions options) {
        return SystemProcscope.kubernetesNames(options);
    }
}
