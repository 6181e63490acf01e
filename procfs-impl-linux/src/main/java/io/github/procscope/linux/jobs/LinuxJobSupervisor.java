package io.github.procscope.linux.jobs;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.linux.internal.NativeAccess;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The Linux {@link JobSupervisor}: spawns each job with {@code posix_spawnp(POSIX_SPAWN_SETSID)}, so that
 * it is a child of this JVM that the JDK's reaper does not know, and supervises it on a thread of its own.
 */
public final class LinuxJobSupervisor implements JobSupervisor {
    private final ProcessTable table;
    private final Signals signals;
    private final KernelLog kernelLog;
    private final JobTreeSampler sampler;
    private final Path procfsRoot;
    private final Path sysfsRoot;

    private LinuxJobSupervisor(Path procfsRoot, Path sysfsRoot, ProcessTable table, Signals signals, KernelLog kernelLog) {
        this.procfsRoot = Objects.requireNonNull(procfsRoot, "procfsRoot");
        this.sysfsRoot = Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        this.table = Objects.requireNonNull(table, "table");
        this.signals = Objects.requireNonNull(signals, "signals");
        this.kernelLog = Objects.requireNonNull(kernelLog, "kernelLog");
        this.sampler = new SnapshotJobTreeSampler(table);
    }

    /**
     * @param procfsRoot the live system's procfs root
     * @param sysfsRoot  the live system's sysfs root (its {@code fs/cgroup} holds the memory cgroups of jobs)
     * @param table     the live system's process table
     * @param signals   the live system's signal sender
     * @param kernelLog where OOM kills are looked for when a job is killed by SIGKILL
     * @return a supervisor
     */
    public static LinuxJobSupervisor using(Path procfsRoot, Path sysfsRoot, ProcessTable table, Signals signals,
                                           KernelLog kernelLog) {
        return new LinuxJobSupervisor(procfsRoot, sysfsRoot, table, signals, kernelLog);
    }

    @Override
    public Job start(JobSpec spec) {
        return start(spec, Optional.empty());
    }

    @Override
    public Job start(JobSpec spec, Gpus gpus) {
        return start(spec, Optional.of(Objects.requireNonNull(gpus, "gpus")));
    }

    private Job start(JobSpec spec, Optional<Gpus> gpus) {
        Objects.requireNonNull(spec, "spec");
        NativeAccess nat = NativeAccess.get();
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(spec.environment());
        Optional<JobCgroup> cgroup = Optional.empty();
        List<String> argv = spec.command();
        if (spec.memoryLimitBytes().isPresent()) {
            JobCgroup cg = JobCgroup.create(sysfsRoot, procfsRoot, spec.memoryLimitBytes().getAsLong());
            cgroup = Optional.of(cg);
            // The shell moves itself into the cgroup, then becomes the command (same pid, same session).
            List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                    cg.procsFile().toString()));
            wrapped.addAll(argv);
            argv = wrapped;
        }
        try {
            becomeSubreaper(nat);
        } catch (RuntimeException e) {
            cgroup.ifPresent(JobCgroup::remove);
            throw e;
        }
        Instant started = Instant.now();
        NativeAccess.Spawned s = nat.spawnInNewSession(argv, env);
        if (s.pid() <= 0) {
            cgroup.ifPresent(JobCgroup::remove);
            jobEnded(nat);
            throw new JobStartException("cannot start " + spec.command().get(0) + ": "
                    + (s.notFound() ? "not found on PATH" : "errno " + s.errno()), s.notFound());
        }
        ProcessKey leader;
        try {
            leader = table.key(s.pid());
        } catch (RuntimeException e) {
            // Gone (and a zombie of ours) before its identity could be read: the start time is unknown.
            leader = new ProcessKey(s.pid(), 0);
        }
        LinuxJob job = new LinuxJob(spec, leader, started, nat, table, signals, kernelLog, sampler, gpus, cgroup);
        job.begin();
        return job;
    }

    /**
     * Counts the jobs running in this JVM: it is the child subreaper while one runs, and stops being one when
     * the last has ended, so that orphans of other origins go to PID 1 again (none of them is reaped here).
     */
    private static final Object SUBREAPER_LOCK = new Object();
    private static int runningJobs;

    private static void becomeSubreaper(NativeAccess nat) {
        synchronized (SUBREAPER_LOCK) {
            if (runningJobs == 0) {
                int errno = nat.setChildSubreaper(true);
                if (errno != 0) {
                    throw new SignalsUnavailableException("prctl(PR_SET_CHILD_SUBREAPER) failed with errno " + errno
                            + ": orphans of a job could not be reaped");
                }
            }
            runningJobs++;
        }
    }

    /** Called once by each job whose start got past {@link #becomeSubreaper}, when it has ended. */
    static void jobEnded(NativeAccess nat) {
        synchronized (SUBREAPER_LOCK) {
            runningJobs--;
            if (runningJobs == 0) {
                nat.setChildSubreaper(false);
            }
        }
    }
}
