package io.github.procscope.linux.platform;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.KernelLogUnavailableException;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.doctor.LinuxDoctor;
import io.github.procscope.linux.events.LinuxProcessEvents;
import io.github.procscope.linux.jobs.LinuxJobSupervisor;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxOpenFiles;
import io.github.procscope.linux.proc.LinuxProcessMemory;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.LinuxSystemResources;
import io.github.procscope.linux.signals.GuardInstaller;
import io.github.procscope.linux.signals.LinuxSignals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The Linux {@link Procscope}: every reader of one procfs root and one sysfs root, each made on first
 * success and kept (a failure is thrown again by the next call, never cached). The only place that
 * assembles readers of different packages, so that users and the command-line tool never do.
 */
final class LinuxProcscope implements Procscope {
    private static final Path LIVE_PROC = Path.of("/proc");
    private static final Path KMSG = Path.of("/dev/kmsg");

    private final Path procfsRoot;
    private final Path sysfsRoot;
    private final Lazy<LinuxProcfs> processes;
    private final Lazy<LinuxProcessMemory> memory;
    private final Lazy<LinuxOpenFiles> openFiles;
    private final Lazy<LinuxSystemResources> resources;
    private final Lazy<Signals> signals;
    private final Lazy<LinuxProcessEvents> events;
    private final Lazy<Boolean> live;
    private final Lazy<JobSupervisor> jobs;

    LinuxProcscope(Path procfsRoot, Path sysfsRoot) {
        this.procfsRoot = Objects.requireNonNull(procfsRoot, "procfsRoot");
        this.sysfsRoot = Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        this.processes = new Lazy<>(() -> LinuxProcfs.at(procfsRoot));
        this.memory = new Lazy<>(() -> {
            processes();
            return LinuxProcessMemory.at(procfsRoot, this::processes);
        });
        this.openFiles = new Lazy<>(() -> {
            processes();
            return LinuxOpenFiles.at(procfsRoot, this::processes);
        });
        this.resources = new Lazy<>(() -> {
            processes();
            return LinuxSystemResources.at(procfsRoot, sysfsRoot);
        });
        this.live = new Lazy<>(this::isLiveProc);
        // The kernel log and the cgroup mounts (OOM counters) are this Procscope's: a floor opens no root itself.
        this.events = new Lazy<>(() -> live() ? LinuxProcessEvents.of(processes(), this::kernelLog, resources::get)
                : LinuxProcessEvents.diffingOnly(processes(), this::kernelLog, "only snapshot diffing reads "
                        + procfsRoot + ": the kernel's sources report this system's processes"));
        // Under another root, the kernel's connector would report this system's processes, not that root's.
        this.signals = new Lazy<>(() -> live()
                ? LinuxSignals.using(processes()) : LinuxSignals.readingOnly(processes(), procfsRoot));
        this.jobs = new Lazy<>(() -> {
            if (!live()) {
                throw new SignalsUnavailableException("jobs run on this system: the procfs root " + procfsRoot
                        + " is not this system's /proc");
            }
            return LinuxJobSupervisor.using(procfsRoot, sysfsRoot, processes(), signals(), kernelLog(), memory());
        });
    }

    @Override
    public Path procfsRoot() {
        return procfsRoot;
    }

    @Override
    public Path sysfsRoot() {
        return sysfsRoot;
    }

    @Override
    public LinuxProcfs processes() {
        return processes.get();
    }

    @Override
    public ProcessMemory memory() {
        return memory.get();
    }

    @Override
    public OpenFiles openFiles() {
        return openFiles.get();
    }

    @Override
    public SystemResources resources() {
        return resources.get();
    }

    @Override
    public Signals signals() {
        return signals.get();
    }

    @Override
    public io.github.procscope.api.events.ProcessEvents events() {
        return events.get();
    }

    @Override
    public JobTree jobTree(ProcessKey root, JobTreeOptions options) {
        return processes().jobTree(root, options, memory());
    }

    @Override
    public JobSupervisor jobs() {
        return jobs.get();
    }

    @Override
    public KernelLog kernelLog() {
        if (live()) {
            return LinuxKernelLog.at(KMSG, processes().bootTime());
        }
        return () -> {
            throw new KernelLogUnavailableException("no kernel log under the procfs root " + procfsRoot
                    + ": it is not this system's /proc, and a procfs tree has no kernel log of its own"
                    + " (read a saved one with Procscope.kernelLog(Path))");
        };
    }

    @Override
    public KernelLog kernelLog(Path kmsgFile) {
        return LinuxKernelLog.at(Objects.requireNonNull(kmsgFile, "kmsgFile"), processes().bootTime());
    }

    @Override
    public Doctor doctor() {
        return doctor(live() ? Optional.of(kernelLog()) : Optional.empty(), true);
    }

    @Override
    public Doctor doctor(Optional<KernelLog> kernelLog, boolean gpus) {
        Objects.requireNonNull(kernelLog, "kernelLog");
        LinuxDoctor.Builder b = LinuxDoctor.builder(this).systemResources(resources.get())
                .openFiles(openFiles());
        kernelLog.ifPresent(b::kernelLog);
        if (gpus) {
            b.gpus(this::openGpus);
        }
        return b.build();
    }

    @Override
    public boolean isLive() {
        return live.get();
    }

    @Override
    public PreemptionGuard preemptionGuard(PreemptionGuardOptions options) {
        Objects.requireNonNull(options, "options");
        if (!live()) {
            throw new SignalsUnavailableException("a preemption guard handles this JVM's signals: the procfs root "
                    + procfsRoot + " is not this system's /proc, so this JVM's status cannot be read there");
        }
        return new GuardInstaller(processes()).install(options);
    }

    /** @return whether the procfs root is this system's {@code /proc} */
    private boolean live() {
        return live.get();
    }

    private boolean isLiveProc() {
        try {
            return procfsRoot.toRealPath().equals(LIVE_PROC.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "Procscope[procfs " + procfsRoot + ", sysfs " + sysfsRoot + "]";
    }

    /** A value made on first success and kept; a failure is thrown to its caller and tried again next time. */
    private static final class Lazy<T> {
        private final Supplier<T> make;
        private volatile T value;

        Lazy(Supplier<T> make) {
            this.make = make;
        }

        T get() {
            T v = value;
            if (v != null) {
                return v;
            }
            synchronized (this) {
                if (value == null) {
                    value = make.get();
                }
                return value;
            }
        }
    }
}
