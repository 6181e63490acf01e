package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.linux.sys.ProcessCalls;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
        String program = spec.command().get(0);
        JobStartException unrunnable = unrunnable(program, env.get("PATH"));
        if (unrunnable != null) {
            throw unrunnable;
        }
        List<String> argv = spec.command();
        if (spec.lineBuffered()) {
            env.put("PYTHONUNBUFFERED", "1");
            Optional<Path> stdbuf = onPath("stdbuf", env.get("PATH"));
            if (stdbuf.isPresent()) {
                // stdbuf execs the command (same pid) with line-buffered C stdio.
                List<String> wrapped = new ArrayList<>(List.of(stdbuf.get().toString(), "-oL", "-eL"));
                wrapped.addAll(argv);
                argv = wrapped;
            }
        }
        Optional<JobCgroup> cgroup = spec.memoryLimitBytes().isPresent()
                ? Optional.of(JobCgroup.create(sysfsRoot, procfsRoot, spec.memoryLimitBytes().getAsLong()))
                : Optional.empty();
        Optional<JobCgroup> sameGroup = cgroup.filter(JobCgroup::canKill);
        Optional<JobCgroup> killGroup = sameGroup.isPresent() ? sameGroup : JobCgroup.forKilling(sysfsRoot, procfsRoot);
        Optional<Path> setpriv = pdeathsigSetter();
        long self = nat.selfPid();
        argv = wrapped(argv, setpriv, self, cgroup, sameGroup.isPresent() ? Optional.empty() : killGroup,
                spec.hangupsIgnored());
        Cleanup cleanup = new Cleanup(cgroup, killGroup);
        try {
            becomeSubreaper(nat);
        } catch (RuntimeException e) {
            cleanup.run();
            throw e;
        }
        startInitReaperIfPidOne(nat);
        Optional<JobSentinel> sentinel = JobSentinel.start(spec.grace(), killGroup.map(JobCgroup::dir), self);
        cleanup.sentinel = sentinel;
        Forwarding forwarding = Forwarding.install(spec, nat, table);
        cleanup.forwarding = forwarding;
        Output output = null;
        if (spec.output().isPresent()) {
            try {
                output = Output.open(nat, spec.output().get());
            } catch (JobStartException e) {
                cleanup.run();
                jobEnded(nat);
                throw e;
            }
        }
        Instant started = Instant.now();
        final ProcessCalls.Spawned s;
        try {
            s = spawn(nat, argv, env, output == null ? -1 : output.writeEnd);
        } finally {
            if (output != null) {
                output.closeWriteEnd(nat);
            }
        }
        if (s.pid() <= 0) {
            if (output != null) {
                output.abandon();
            }
            cleanup.run();
            jobEnded(nat);
            throw new JobStartException("cannot start " + program + ": " + s.reason(), s.notFound());
        }
        sentinel.ifPresent(x -> x.started(s.pid()));
        ProcessKey leader;
        try {
            leader = table.key(s.pid());
        } catch (RuntimeException e) {
            // Gone (and a zombie of ours) before its identity could be read: the start time is unknown.
            leader = new ProcessKey(s.pid(), 0);
        }
        Optional<OutputPump> pump = output == null ? Optional.empty()
                : Optional.of(OutputPump.start(output.readEnd, output.file, "procscope-job-output-" + s.pid()));
        LinuxJob job = new LinuxJob(spec, leader, started, nat, table, signals, kernelLog, memory, sampler, gpus,
                cgroup, killGroup, sentinel, pump, forwarding);
        job.begin();
        return job;
    }

    /**
     * The wrapper that every job's command runs in (one shell, which then becomes the command: same pid, same
     * session): {@code sh -c WRAPPER procscope-job PPID MEMORY KILL HUP CMD...}. With {@code PPID} (set when
     * {@code setpriv --pdeathsig} started it), it first checks that its parent is still the supervisor: the
     * parent-death signal is armed only from {@code setpriv}'s {@code prctl} on, so a supervisor that died before
     * that would leave the job unarmed; the shell reads its parent after (as {@code $PPID}) and exits with 125
     * instead of running the command. It then moves itself into the memory cgroup ({@code MEMORY}, its
     * {@code cgroup.procs}; a failure ends it, with 125), into the kill cgroup ({@code KILL}; a failure leaves the
     * job to the sentinel's best effort), and ignores SIGHUP if {@code HUP} is 1 (SIG_IGN survives exec, as under
     * {@code nohup}).
     */
    static final String WRAPPER = String.join("\n",
            "[ -z \"$1\" ] || [ \"$PPID\" = \"$1\" ] || exit 125",
            "[ -z \"$2\" ] || echo $$ > \"$2\" || exit 125",
            "[ -z \"$3\" ] || { echo $$ > \"$3\"; } 2>/dev/null",
            "[ \"$4\" != 1 ] || trap '' HUP",
            "shift 4",
            "exec \"$@\"");

    /** @return the command as spawned: in {@link #WRAPPER}, under {@code setpriv --pdeathsig TERM} where it can be */
    static List<String> wrapped(List<String> argv, Optional<Path> setpriv, long supervisor, Optional<JobCgroup> memory,
                                Optional<JobCgroup> kill, boolean hangupsIgnored) {
        if (setpriv.isEmpty() && memory.isEmpty() && kill.isEmpty() && !hangupsIgnored) {
            return argv;
        }
        List<String> out = new ArrayList<>();
        setpriv.ifPresent(p -> out.addAll(List.of(p.toString(), "--pdeathsig", "TERM", "--")));
        out.addAll(List.of("sh", "-c", WRAPPER, "procscope-job", setpriv.isPresent() ? Long.toString(supervisor) : "",
                memory.map(c -> c.procsFile().toString()).orElse(""), kill.map(c -> c.procsFile().toString()).orElse(""),
                hangupsIgnored ? "1" : "0"));
        out.addAll(argv);
        return out;
    }

    /** What to undo when a start fails. */
    private static final class Cleanup implements Runnable {
        private final Optional<JobCgroup> memory;
        private final Optional<JobCgroup> kill;
        Optional<JobSentinel> sentinel = Optional.empty();
        Forwarding forwarding;

        Cleanup(Optional<JobCgroup> memory, Optional<JobCgroup> kill) {
            this.memory = memory;
            this.kill = kill;
        }

        @Override
        public void run() {
            if (forwarding != null) {
                forwarding.close();
            }
            sentinel.ifPresent(JobSentinel::done);
            memory.ifPresent(JobCgroup::remove);
            kill.filter(k -> memory.isEmpty() || k != memory.get()).ifPresent(JobCgroup::remove);
        }
    }

    /** A job's output file, open, and the pipe that will feed it. */
    private static final class Output {
        final FileChannel file;
        final java.io.InputStream readEnd;
        int writeEnd;

        private Output(FileChannel file, java.io.InputStream readEnd, int writeEnd) {
            this.file = file;
            this.readEnd = readEnd;
            this.writeEnd = writeEnd;
        }

        static Output open(ProcessCalls nat, Path path) {
            FileChannel file;
            try {
                file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new JobStartException("cannot write the job's output to " + path + ": " + reason(e), false);
            }
            int[] fds = new int[2];
            int errno = nat.pipe(fds);
            if (errno != 0) {
                closeQuietly(file);
                throw new JobStartException("cannot make a pipe for the job's output: "
                        + new ProcessCalls.Spawned(-1, errno).reason(), false);
            }
            java.io.InputStream in;
            try {
                // The read end as a stream of this JVM's: opened again through /proc (the pipe itself, not a copy).
                in = new java.io.FileInputStream("/proc/self/fd/" + fds[0]);
            } catch (IOException e) {
                nat.close(fds[1]);
                closeQuietly(file);
                throw new JobStartException("cannot read the pipe for the job's output: " + reason(e), false);
            } finally {
                nat.close(fds[0]);
            }
            return new Output(file, in, fds[1]);
        }

        void closeWriteEnd(ProcessCalls nat) {
            if (writeEnd >= 0) {
                nat.close(writeEnd);
                writeEnd = -1;
            }
        }

        void abandon() {
            closeQuietly(readEnd);
            closeQuietly(file);
        }

        private static void closeQuietly(java.io.Closeable c) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing to release
            }
        }
    }

    /** @return the cause of a failed file operation in words, as {@code strerror(3)} says it */
    static String reason(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * @return why the program cannot be run, as a shell would say it, or null if it can be: not found (127), or
     *         found but not executable, or a directory (126)
     */
    static JobStartException unrunnable(String program, String path) {
        if (program.indexOf('/') >= 0) {
            Path p = Path.of(program);
            if (!Files.exists(p)) {
                return new JobStartException("cannot start " + program + ": No such file or directory", true);
            }
            if (Files.isDirectory(p)) {
                return new JobStartException("cannot start " + program + ": Is a directory", false);
            }
            if (!Files.isExecutable(p)) {
                return new JobStartException("cannot start " + program + ": Permission denied (not executable)", false);
            }
            return null;
        }
        boolean denied = false;
        for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return null;
            }
            denied |= Files.isRegularFile(p);
        }
        return denied
                ? new JobStartException("cannot start " + program + ": Permission denied (found on PATH, not executable)",
                        false)
                : new JobStartException("cannot start " + program + ": not found on PATH", true);
    }

    /**
     * Spawns on the one thread that does all of this JVM's spawning, which lives as long as the JVM: the kernel
     * sends the parent-death signal when the <em>thread</em> that created the child ends (prctl(2)), so a job
     * started from a short-lived thread would otherwise get TERM when that thread ends.
     */
    private static ProcessCalls.Spawned spawn(ProcessCalls nat, List<String> argv, Map<String, String> env, int outFd) {
        java.util.concurrent.Future<ProcessCalls.Spawned> f = Spawner.EXECUTOR.submit(() -> {
            synchronized (LEADERS) {
                ProcessCalls.Spawned s = nat.spawnInNewSession(argv, env, outFd);
                if (s.pid() > 0) {
                    LEADERS.add(s.pid());
                }
                return s;
            }
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the child may be spawned already: its pid must not be lost
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException("spawning failed: " + c, c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The spawning thread, made on first use; a daemon, it never ends before the JVM. */
    private static final class Spawner {
        static final java.util.concurrent.ExecutorService EXECUTOR =
                java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "procscope-job-spawner");
                    t.setDaemon(true);
                    return t;
                });
    }

    private static final Object SETPRIV_LOCK = new Object();
    private static Optional<Path> setprivChecked;

    /**
     * @return {@code setpriv} (util-linux 2.33+) where it can set the parent-death signal
     *         ({@code setpriv --pdeathsig TERM -- sh -c 'exit 0'} succeeds once, checked once per JVM)
     */
    static Optional<Path> pdeathsigSetter() {
        synchronized (SETPRIV_LOCK) {
            if (setprivChecked == null) {
                setprivChecked = onPath("setpriv", System.getenv("PATH")).filter(p -> {
                    try {
                        Process probe = new ProcessBuilder(p.toString(), "--pdeathsig", "TERM", "--", "sh", "-c", "exit 0")
                                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                        if (!probe.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                            probe.destroyForcibly();
                            return false;
                        }
                        return probe.exitValue() == 0;
                    } catch (IOException e) {
                        return false;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
            }
            return setprivChecked;
        }
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
