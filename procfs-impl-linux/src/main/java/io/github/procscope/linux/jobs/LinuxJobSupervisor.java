package io.github.procscope.linux.jobs;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.jobs.Job;
import io.github.procscope.api.jobs.JobSpec;
import io.github.procscope.api.jobs.JobStartException;
import io.github.procscope.api.jobs.JobSupervisor;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.linux.internal.NativeAccess;

import java.time.Instant;
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
    private final Object lock = new Object();
    private volatile boolean subreaper;

    private LinuxJobSupervisor(ProcessTable table, Signals signals, KernelLog kernelLog) {
        this.table = Objects.requireNonNull(table, "table");
        this.signals = Objects.requireNonNull(signals, "signals");
        this.kernelLog = Objects.requireNonNull(kernelLog, "kernelLog");
        this.sampler = new SnapshotJobTreeSampler(table);
    }

    /**
     * @param table     the live system's process table
     * @param signals   the live system's signal sender
     * @param kernelLog where OOM kills are looked for when a job is killed by SIGKILL
     * @return a supervisor
     */
    public static LinuxJobSupervisor using(ProcessTable table, Signals signals, KernelLog kernelLog) {
        return new LinuxJobSupervisor(table, signals, kernelLog);
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
        becomeSubreaper(nat);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(spec.environment());
        Instant started = Instant.now();
        NativeAccess.Spawned s = nat.spawnInNewSession(spec.command(), env);
        if (s.pid() <= 0) {
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
        LinuxJob job = new LinuxJob(spec, leader, started, nat, table, signals, kernelLog, sampler, gpus);
        job.begin();
        return job;
    }

    private void becomeSubreaper(NativeAccess nat) {
        if (subreaper) {
            return;
        }
        synchronized (lock) {
            if (!subreaper) {
                int errno = nat.becomeChildSubreaper();
                if (errno != 0) {
                    throw new SignalsUnavailableException("prctl(PR_SET_CHILD_SUBREAPER) failed with errno " + errno
                            + ": orphans of a job could not be reaped");
                }
                subreaper = true;
            }
        }
    }
}
