package io.github.procscope.linux.jobs;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.linux.ProcessCalls;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
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
    private final ProcessMemory memory;
    private final JobTreeSampler sampler;
    private final Path procfsRoot;
    private final Path sysfsRoot;

    private LinuxJobSupervisor(Path procfsRoot, Path sysfsRoot, ProcessTable table, Signals signals, KernelLog kernelLog,
                               ProcessMemory memory) {
        this.procfsRoot = Objects.requireNonNull(procfsRoot, "procfsRoot");
        this.sysfsRoot = Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        this.table = Objects.requireNonNull(table, "table");
        this.signals = Objects.requireNonNull(signals, "signals");
        this.kernelLog = Objects.requireNonNull(kernelLog, "kernelLog");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.sampler = new SnapshotJobTreeSampler(table);
    }

    /**
     * @param procfsRoot the live system's procfs root
     * @param sysfsRoot  the live system's sysfs root (its {@code fs/cgroup} holds the memory cgroups of jobs)
     * @param table     the live system's process table
     * @param signals   the live system's signal sender
     * @param kernelLog where OOM kills are looked for when a job is killed by SIGKILL
     * @param memory    the live system's memory reader (PSS, when a job asks for it)
     * @return a supervisor
     */
    public static LinuxJobSupervisor using(Path procfsRoot, Path sysfsRoot, ProcessTable table, Signals signals,
                                           KernelLog kernelLog, ProcessMemory memory) {
        return new LinuxJobSupervisor(procfsRoot, sysfsRoot, table, signals, kernelLog, memory);
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
        ProcessCalls nat = ProcessCalls.get();
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(spec.environment());
        Optional<JobCgroup> cgroup = Optional.empty();
        List<String> argv = spec.command();
        if (spec.lineBuffered()) {
            env.put("PYTHONUNBUFFERED", "1");
            Optional<Path> stdbuf = onPath("stdbuf", env.get("PATH"));
            if (stdbuf.isPresent() && onPath(argv.get(0), env.get("PATH")).isPresent()) {
                // stdbuf execs the command (same pid) with line-buffered C stdio; only for a command that exists,
                // so that "not found" is still the supervisor's to report.
                List<String> wrapped = new ArrayList<>(List.of(stdbuf.get().toString(), "-oL", "-eL"));
                wrapped.addAll(argv);
                argv = wrapped;
            }
        }
        if (spec.hangupsIgnored()) {
            // SIG_IGN survives exec (posix_spawn resets only caught signals): the shell ignores HUP, then
            // becomes the command, as nohup does.
            List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "trap '' HUP && exec \"$@\"", "sh"));
            wrapped.addAll(argv);
            argv = wrapped;
        }
        if (spec.memoryLimitBytes().isPresent()) {
            JobCgroup cg = JobCgroup.create(sysfsRoot, procfsRoot, spec.memoryLimitBytes().getAsLong());
            cgroup = Optional.of(cg);
            // The shell moves itself into the cgroup, then becomes the command (same pid, same session).
            List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                    cg.procsFile().toString()));
            wrapped.addAll(argv);
            argv = wrapped;
        }
        if (argv != spec.command() && onPath(spec.command().get(0), env.get("PATH")).isEmpty()) {
            cgroup.ifPresent(JobCgroup::remove);
            throw new JobStartException("cannot start " + spec.command().get(0) + ": not found on PATH"
                    + " (or not executable)", true);
        }
        try {
            becomeSubreaper(nat);
        } catch (RuntimeException e) {
            cgroup.ifPresent(JobCgroup::remove);
            throw e;
        }
        startInitReaperIfPidOne(nat);
        Instant started = Instant.now();
        ProcessCalls.Spawned s;
        synchronized (LEADERS) {
            s = nat.spawnInNewSession(argv, env);
            if (s.pid() > 0) {
                LEADERS.add(s.pid());
            }
        }
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
        LinuxJob job = new LinuxJob(spec, leader, started, nat, table, signals, kernelLog, memory, sampler, gpus,
                cgroup);
        job.begin();
        return job;
    }

    /** The pids of the jobs' first processes not reaped yet: their supervisors read their exit statuses. */
    private static final Set<Long> LEADERS = new HashSet<>();
    private static boolean initReaperStarted;

    /**
     * Reaps a zombie child, unless it is the first process of a job (whose supervisor reaps it).
     *
     * @return its exit status, if it was reaped now
     */
    static Optional<io.github.procscope.api.signals.ExitStatus> reapUnlessLeader(ProcessCalls nat, long pid) {
        synchronized (LEADERS) {
            return LEADERS.contains(pid) ? Optional.empty() : nat.reapChild(pid);
        }
    }

    /** Reaps a job's first process, once it has ended. @return its exit status, if it had ended */
    static Optional<io.github.procscope.api.signals.ExitStatus> reapLeader(ProcessCalls nat, long pid) {
        synchronized (LEADERS) {
            Optional<io.github.procscope.api.signals.ExitStatus> s = nat.reapChild(pid);
            if (s.isPresent()) {
                LEADERS.remove(pid);
            }
            return s;
        }
    }

    /**
     * As PID 1 of its PID namespace, this JVM is the init of every process there: from the first job on, an
     * {@link InitReaper} reaps the orphans that end, whatever their origin.
     */
    private void startInitReaperIfPidOne(ProcessCalls nat) {
        synchronized (LEADERS) {
            if (!initReaperStarted && nat.selfPid() == 1) {
                initReaperStarted = true;
                new InitReaper(nat, table).start();
            }
        }
    }

    /**
     * @param program a program name, or a path
     * @param path    the search path
     * @return the executable file it names: itself when it holds a {@code /}, else the first on the path
     */
    static Optional<Path> onPath(String program, String path) {
        if (program.indexOf('/') >= 0) {
            Path p = Path.of(program);
            return java.nio.file.Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (java.nio.file.Files.isRegularFile(p) && java.nio.file.Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Counts the jobs running in this JVM: it is the child subreaper while one runs, and stops being one when
     * the last has ended, so that orphans of other origins go to PID 1 again (none of them is reaped here).
     */
    private static final Object SUBREAPER_LOCK = new Object();
    private static int runningJobs;

    private static void becomeSubreaper(ProcessCalls nat) {
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
    static void jobEnded(ProcessCalls nat) {
        synchronized (SUBREAPER_LOCK) {
            runningJobs--;
            if (runningJobs == 0) {
                nat.setChildSubreaper(false);
            }
        }
    }
}
