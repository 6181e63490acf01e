package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.signals.Signal;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code run --detach}: the run that returns at once, and the supervisor it leaves behind.
 *
 * <p>The detaching run makes the log file and the job's record, then starts {@code procscope run --detached-as ID}
 * on this JVM's class path under {@code setsid} (a new session without a controlling terminal) with SIGHUP
 * ignored, standard input from {@code /dev/null} and standard output and error appended to the log; it waits
 * until that supervisor has started the job (or failed to) and prints the job's id, pid and log. The supervisor
 * runs the job as the foreground {@code run} does, in a session of its own, with SIGHUP ignored and line
 * buffering requested, and keeps the record: running (with its own pid and start time, and the job's), then
 * ended with the report.
 *
 * <p>The job's record is the one JSON the tool builds as a tree ({@link ObjectNode}) rather than from a record:
 * it is a file read back, checked field by field by {@link JobStore} (it may come from another version of the
 * tool, or be tampered with), and updated in place by the supervisor, so that a field this version does not know
 * survives the rewrite. What {@code run --detach --json} and {@code jobs --json} print are records.
 */
final class Detacher {
    /**
     * What {@code run --detach --json} prints once the job has started.
     *
     * @param id            the job's id
     * @param pid           the job's pid
     * @param supervisorPid its supervisor's pid
     * @param log           its log
     */
    record Started(String id, long pid, long supervisorPid, Path log) {
    }

    private static final Duration START_WAIT = Duration.ofSeconds(60);
    private static final int MAX_ATTEMPTS = 1000;

    private final Context ctx;
    private final RunCommand run;

    Detacher(Context ctx, RunCommand run) {
        this.ctx = ctx;
        this.run = run;
    }

    /** @return 0 once the job runs; its start failure's status otherwise */
    int detach() {
        if (!ctx.live()) {
            throw new IllegalArgumentException("--detach runs jobs on this machine: --procfs-root is not for it");
        }
        String program = run.command.get(0);
        String problem = unrunnable(program, System.getenv("PATH"));
        if (problem != null) {
            ctx.err().println("procscope run: cannot start " + program + ": " + problem);
            return problem.startsWith("not found") || problem.startsWith("No such") ? 127 : 126;
        }
        if (!run.forwardIgnored) {
            noticeIgnored();
        }
        Optional<Path> setsid = onPath("setsid", System.getenv("PATH"));
        if (setsid.isEmpty()) {
            throw new IllegalStateException("--detach needs the setsid program (util-linux) on PATH");
        }
        JobStore store = JobStore.open(run.stateDir, true);
        Path dir = run.logDir.toAbsolutePath().normalize();
        try {
            // rwxr-xr-x whatever the umask: 'logs' refuses a log in a directory that others may write to
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        } catch (IOException e) {
            throw new IllegalArgumentException("--log " + run.logDir + ": cannot make the directory: "
                    + IoErrors.reason(e), e);
        }
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--log " + run.logDir + " is not a directory");
        }
        try {
            store.checkLogDirectory(dir);
        } catch (IOException e) {
            throw new IllegalArgumentException("--log " + run.logDir + ": cannot read the directory: "
                    + IoErrors.reason(e), e);
        }
        ZonedDateTime now = ZonedDateTime.now();
        String id = null;
        Path log = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS && id == null; attempt++) {
            String candidate = JobStore.stamp(now, attempt);
            Path file = dir.resolve(candidate + ".log");
            try {
                // never an existing file: a log of another run stays as it is; never writable by others
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
            } catch (FileAlreadyExistsException e) {
                continue;
            } catch (IOException e) {
                throw new IllegalArgumentException("--log " + run.logDir + ": cannot make " + file + ": "
                        + IoErrors.reason(e), e);
            }
            if (store.create(candidate, record(candidate, file, "starting"))) {
                id = candidate;
                log = file;
            } else {
                deleteQuietly(file);
            }
        }
        if (id == null) {
            throw new IllegalArgumentException("no free name for a log in " + dir + " or a record in " + store.dir());
        }
        Process supervisor;
        try {
            supervisor = new ProcessBuilder(supervisorCommand(setsid.get(), id, store.dir()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            store.write(id, record(id, log, "failed").put("error", "cannot start the supervisor: " + e.getMessage()));
            throw new IllegalStateException("cannot start the supervisor: " + e.getMessage(), e);
        }
        return awaitStart(store, id, log, supervisor);
    }

    /** Says which forwarded signals this process ignores (as the supervisor it starts will): they are not passed on. */
    private void noticeIgnored() {
        io.github.procscope.api.signals.SignalSet ignored;
        try {
            ignored = ctx.scope().signals().dispositions(ProcessHandle.current().pid()).ignored();
        } catch (RuntimeException e) {
            return; // unreadable: the supervisor still says it in the log
        }
        for (Signal s : run.forwardedSignals()) {
            if (s != Signal.HUP && ignored.contains(s)) {
                ctx.err().println(RunCommand.ignoredNotice(s));
            }
        }
    }

    private int awaitStart(JobStore store, String id, Path log, Process supervisor) {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (true) {
            JobStore.Loaded loaded = store.read(id).orElseThrow(() -> new IllegalStateException("the record of job "
                    + id + " disappeared from " + store.dir()));
            ObjectNode rec = loaded.record().orElseThrow(() -> new IllegalStateException(loaded.refusal()));
            String state = rec.path("state").asText();
            if (state.equals("running") || state.equals("ended")) {
                long pid = rec.path("job").path("pid").asLong();
                if (ctx.json()) {
                    ctx.printJson(Json.of(new Started(id, pid, supervisor.pid(), log)));
                } else {
                    ctx.out().println("job " + id + " (pid " + pid + ", supervisor " + supervisor.pid() + ")");
                    ctx.out().println("log " + log);
                }
                return ProcscopeCli.OK;
            }
            if (state.equals("failed")) {
                ctx.err().println("procscope run: " + rec.path("error").asText("the job could not be started"));
                return rec.path("shellStatus").asInt(127);
            }
            if (!supervisor.isAlive() && store.usable(id).map(r -> r.path("state").asText().equals("starting")).orElse(true)) {
                ctx.err().println("procscope run: the supervisor of job " + id + " ended (status "
                        + supervisor.exitValue() + ") before starting the job; see " + log);
                return ProcscopeCli.NOT_FOUND;
            }
            if (System.nanoTime() > deadline) {
                ctx.err().println("procscope run: job " + id + " is still starting after " + START_WAIT.toSeconds()
                        + " s (supervisor pid " + supervisor.pid() + "); see 'procscope jobs' and " + log);
                return ProcscopeCli.OK;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 128 + Signal.INT.number();
            }
        }
    }

    /**
     * The collector and heap of a JVM that runs for as long as a job: a heap that grows only as far as it must (the
     * JVM's default starts at 1/64 of the machine's memory, a young generation of a third of that). From JDK 24 on the
     * serial GC grows its old generation to the heap's maximum before it collects it, so G1 runs it there. The
     * launcher ({@code ./procscope}) gives {@code run}, {@code watch}, {@code events} and {@code logs -f} the same.
     *
     * @param feature the JDK's feature release
     * @return the JVM options
     */
    static List<String> smallHeap(int feature) {
        return feature >= 24
                ? List.of("-XX:+UseG1GC", "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1",
                        "-XX:G1PeriodicGCInterval=5000", "-XX:GCTimeRatio=4", "-Xms8m", "-XX:MinHeapFreeRatio=10",
                        "-XX:MaxHeapFreeRatio=30")
                : List.of("-XX:+UseSerialGC", "-Xmn4m", "-Xms8m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30");
    }

    /** The supervisor: a JVM like this one, in a new session, with SIGHUP ignored from its first instruction. */
    private List<String> supervisorCommand(Path setsid, String id, Path stateDir) {
        List<String> cmd = new ArrayList<>(List.of(setsid.toString(), "sh", "-c", "trap '' HUP && exec \"$@\"", "sh"));
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(smallHeap(Runtime.version().feature()));
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("procscope.") || name.startsWith("jna.")) {
                cmd.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        List<String> cp = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                cp.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        cmd.addAll(List.of("-cp", String.join(File.pathSeparator, cp), ProcscopeCli.class.getName()));
        cmd.addAll(List.of("run", "--detached-as", id, "--state-dir", stateDir.toString(),
                "--grace", run.grace.toMillis() + "ms", "--interval", run.interval.toMillis() + "ms"));
        List<Signal> fwd = run.forwardedSignals();
        cmd.addAll(List.of("--forward", fwd.isEmpty() ? "none"
                : String.join(",", fwd.stream().map(Signal::name).toList())));
        if (run.memoryLimit != null) {
            cmd.addAll(List.of("--memory-limit", Long.toString(run.memoryLimit)));
        }
        if (run.report != null) {
            cmd.addAll(List.of("--report", run.report.toAbsolutePath().toString()));
        }
        if (run.pss) {
            cmd.add("--pss");
        }
        if (run.forwardIgnored) {
            cmd.add("--forward-ignored");
        }
        cmd.add("--");
        cmd.addAll(run.command);
        return cmd;
    }

    /**
     * The supervisor's side: starts the job, keeps its record, writes the report.
     *
     * @return the job's status, as a shell gives it
     */
    int supervise(JobSpec given) throws InterruptedException {
        JobStore store = JobStore.open(run.stateDir, false);
        String id = run.detachedAs;
        ObjectNode rec = store.usable(id).orElseThrow(() -> new IllegalArgumentException("no job record '"
                + Table.printable(id) + "' in " + store.dir()));
        List<Signal> fwd = new ArrayList<>(given.forwardedSignals());
        fwd.remove(Signal.HUP); // a detached job ignores hang-ups: passing one on would only start the grace period
        // The job's output goes through a pipe that this supervisor copies into the log, so that what the log
        // cannot take (a full disk) is counted instead of lost without a word.
        JobSpec spec = given.withForwardedSignals(fwd).withHangupsIgnored(true).withLineBuffering(true)
                .withOutput(Path.of(rec.path("log").asText()));
        ProcessKey self = ctx.procfs().key(ProcessHandle.current().pid());
        ObjectNode sup = rec.putObject("supervisor");
        sup.put("pid", self.pid());
        sup.put("startTimeTicks", self.startTimeTicks());
        Gpus gpus = null;
        try {
            gpus = ctx.scope().openGpus();
        } catch (GpuUnavailableException e) {
            // No GPU to sample.
        }
        try {
            Job job;
            try {
                job = gpus != null ? ctx.scope().jobs().start(spec, gpus) : ctx.scope().jobs().start(spec);
            } catch (JobStartException e) {
                rec.put("state", "failed");
                rec.put("error", ProcscopeCli.message(e));
                rec.put("shellStatus", e.shellStatus());
                store.write(id, rec);
                ctx.err().println("procscope run: " + ProcscopeCli.message(e));
                return e.shellStatus();
            }
            RunCommand.notForwarded(ctx, job.notForwarded());
            ObjectNode j = rec.putObject("job");
            j.put("pid", job.leader().pid());
            j.put("startTimeTicks", job.leader().startTimeTicks());
            rec.put("state", "running");
            store.write(id, rec);
            JobReport r = job.await();
            if (run.report != null) {
                RunCommand.write(run.report, r);
            }
            // The log's last line first, then the record that says the job ended: 'logs -f' stops following
            // once the record says so, and must find that line already written.
            ctx.err().println("procscope run: job " + id + ": " + r.exit().explanation()
                    + (r.stragglers().isEmpty() ? "" : " " + r.stragglers().size()
                    + " process(es) left behind were ended."));
            ctx.err().flush();
            rec.put("state", "ended");
            Json.put(rec, "endTime", r.endTime());
            rec.set("report", RunCommand.json(r));
            store.write(id, rec);
            return r.exit().status().shellStatus();
        } finally {
            if (gpus != null) {
                gpus.close();
            }
        }
    }

    private ObjectNode record(String id, Path log, String state) {
        ObjectNode o = Json.object();
        o.put("id", id);
        o.put("state", state);
        Json.putStrings(o, "command", run.command);
        Json.put(o, "startTime", Instant.now());
        o.putNull("endTime");
        o.put("log", log.toString());
        o.put("workingDirectory", Path.of("").toAbsolutePath().toString());
        o.put("reportFile", run.report == null ? null : run.report.toAbsolutePath().toString());
        return o;
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            // an empty file of ours left behind
        }
    }

    /**
     * @return why the program cannot be run, in a shell's words, or null if it can be: "not found on PATH" or "No
     *         such file or directory" (127), "Permission denied", "Is a directory" (126)
     */
    static String unrunnable(String program, String path) {
        if (program.indexOf('/') >= 0) {
            Path p = Path.of(program);
            if (!Files.exists(p)) {
                return "No such file or directory";
            }
            if (Files.isDirectory(p)) {
                return "Is a directory";
            }
            return Files.isExecutable(p) ? null : "Permission denied (not executable)";
        }
        boolean denied = false;
        for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return null;
            }
            denied |= Files.isRegularFile(p);
        }
        return denied ? "Permission denied (found on PATH, not executable)" : "not found on PATH";
    }

    /**
     * @return the executable the program names: itself when it holds a {@code /}, else the first on the path
     */
    static Optional<Path> onPath(String program, String path) {
        if (program.indexOf('/') >= 0) {
            Path p = Path.of(program);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
