package io.github.procscope.api.job;

/**
 * Launches commands as supervised jobs.
 *
 * <pre>{@code
 * JobReport report = Procscope.system().jobs().run(JobSpec.of("python", "train.py"));
 * System.out.println(report.ending().explanation());
 * System.exit(report.ending().status().shellStatus());
 * }</pre>
 *
 * <p>A job runs in a session and process group of its own, with this JVM's standard input, output and error.
 * While a job runs, this JVM is the child subreaper of its descendants ({@code prctl(PR_SET_CHILD_SUBREAPER)};
 * it stops being one when the last job has ended), so that a process of the job whose parent dies comes back
 * to it instead of to PID 1;
 * the supervisor reaps such adopted processes, and only those it knows as members of a job, by their pid
 * ({@code waitid(P_PID, pid, WEXITED)}). The JDK's own process reaper also waits by pid, for the children
 * that {@link ProcessBuilder} started; the two never wait for each other's processes, so a {@link Process}
 * started beside a job keeps its exit status. A process of another origin (a grandchild of a
 * {@code ProcessBuilder} child) that is orphaned while a job runs is re-parented to this JVM too, and is not
 * reaped until this JVM ends.
 *
 * <p><b>When this JVM dies, its jobs end.</b> A job that outlived its supervisor would run on untracked, holding
 * GPUs and memory; so the death of this JVM, even by SIGKILL (the OOM killer), ends its jobs:
 * <ul>
 *   <li>the job's first process has the kernel's parent-death signal, TERM ({@code prctl(PR_SET_PDEATHSIG)},
 *       set through {@code setpriv --pdeathsig} where util-linux has it; the job's shell then checks that its
 *       parent is still this JVM, so a JVM that died before the signal was armed leaves nothing running). All jobs
 *       are spawned from one thread that lives as long as the JVM, since the kernel sends the signal when the
 *       spawning <em>thread</em> ends;</li>
 *   <li>a small sentinel shell, started before the job in a session of its own and fed by a pipe from this JVM,
 *       sees the pipe end without the word that the job had ended; it then sends TERM to the job's process group
 *       and, after {@link JobSpec#grace()} (or as soon as nothing is left), KILL to the job's own cgroup through
 *       {@code cgroup.kill} and to its process group, and says so on this JVM's standard error;</li>
 *   <li>the job's own cgroup (v2, without controllers, under this JVM's cgroup; or its memory cgroup) is made
 *       where this user may and the kernel has {@code cgroup.kill} (Linux 5.14+): then every process of the job
 *       is ended, also one that left its session. Elsewhere (an unprivileged user, cgroup v1 only) it is a best
 *       effort: the job's process group is ended, and a process that left it ({@code setsid}) is not.</li>
 * </ul>
 *
 * <p>Thread-safe; each job is supervised on a thread of its own.
 */
public interface JobSupervisor {
    /**
     * Starts a job and returns at once.
     *
     * @param spec what to run and how
     * @return the running job
     * @throws JobStartException if the command cannot be started (not found, not executable)
     * @throws io.github.procscope.api.signals.SignalsUnavailableException if the native calls a supervisor
     *         needs are not available
     */
    Job start(JobSpec spec);

    /**
     * Starts a job whose GPU memory is sampled too: at each sample, the memory that NVML reports for the
     * job's processes, per GPU ({@link JobReport#peakGpuMemoryBytes()}). The caller keeps {@code gpus} open
     * until the job has ended, and closes it.
     *
     * @param spec what to run and how
     * @param gpus the GPUs to sample
     * @return the running job
     * @throws JobStartException if the command cannot be started
     */
    Job start(JobSpec spec, io.github.procscope.api.gpu.Gpus gpus);

    /**
     * Starts a job and waits for its end.
     *
     * @param spec what to run and how
     * @return its report
     * @throws JobStartException if the command cannot be started
     * @throws InterruptedException if the waiting thread is interrupted (the job goes on and is still ended
     *                              and reported by its supervising thread)
     */
    default JobReport run(JobSpec spec) throws InterruptedException {
        return start(spec).await();
    }
}
