package io.github.procscope.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.ForwardedSignal;
import io.github.procscope.api.job.GpuGhost;
import io.github.procscope.api.job.JobEnding;
import io.github.procscope.api.job.JobEvent;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobStartException;
import io.github.procscope.api.job.LostOutput;
import io.github.procscope.api.job.Straggler;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code procscope run [options] -- CMD ARGS...}: a command as a supervised job, in the foreground. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a command as a supervised job and explain how it ended.",
                "It runs in the foreground.",
                "The command runs in a session of its own with this terminal's input, output and error. "
                        + "Its processes are sampled for peak memory, CPU and, where NVML can be used, GPU memory per GPU. "
                        + "TERM, INT, HUP and USR1 received by procscope are passed on to every process of the "
                        + "job (a signal that procscope's own parent made it ignore, as trap '' TERM or nohup do, is "
                        + "not, unless --forward-ignored: procscope says so when it starts); after the grace period, "
                        + "KILL. When the command's first process ends, every process "
                        + "it left behind gets TERM, then KILL after the grace period, so that nothing of the job is "
                        + "left. Orphans of the job come back to procscope (it is their child subreaper) and are reaped.",
                "If procscope itself is killed (SIGKILL, the OOM killer), its job is ended too: the job's first "
                        + "process gets TERM from the kernel (its parent-death signal, through setpriv --pdeathsig), "
                        + "and a small sentinel process sends TERM to the job's process group, then KILL after the "
                        + "grace period, to the job's own cgroup where one can be made (root, cgroup v2 with "
                        + "cgroup.kill: also processes that left the job's session), else to its process group.",
                "With --detach --log DIR it runs in the background instead, immune to hang-ups: procscope "
                        + "starts a supervisor of its own in a new session, which starts the job in another (no "
                        + "controlling terminal, SIGHUP ignored, standard input from /dev/null), with standard output "
                        + "and error together in DIR/<timestamp>.log and line-buffered output requested "
                        + "(PYTHONUNBUFFERED=1, stdbuf -oL -eL); it prints the job's id, pid and log and returns. "
                        + "Output that the log cannot take (a full disk) is counted, and 'procscope jobs' and "
                        + "'procscope logs' say how many bytes are missing, from when and why. "
                        + "'procscope jobs' lists such jobs, 'procscope logs ID -f' follows one.",
                "Exit status: the job's, as a shell gives it: N when it exited with N, 128 + S when signal S "
                        + "killed it; 127 when the command was not found, 126 when it could not be executed; 2 bad usage. "
                        + "With --detach: 0 once the job runs."},
        footer = {"", "Examples:", "  procscope run -- python train.py --epochs 10",
                "  procscope run --report run.json --grace 30s --forward TERM,USR1 -- ./train.sh",
                "  procscope run --detach --log logs --report run.json -- python train.py"})
final class RunCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--report", paramLabel = "FILE",
            description = "Write the job's report here, as JSON (replaced if it exists; not a directory).")
    Path report;

    @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long the job may take to end after a forwarded signal, and processes left behind "
                    + "after TERM, before KILL (default: 10s).")
    Duration grace = JobSpec.DEFAULT_GRACE;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How often the job's processes are sampled for peak memory and CPU (default: 1s; at least 10ms).")
    Duration interval = JobSpec.DEFAULT_INTERVAL;

    @Option(names = "--forward", paramLabel = "SIGNALS", split = ",",
            description = "The signals passed on to the job, by name or number, comma-separated, or 'none' "
                    + "(default: TERM,INT,HUP,USR1; USR2 is the JVM's own and "
                    + "cannot be forwarded).")
    List<String> forward;

    @Option(names = "--forward-ignored", description = "Also pass on the signals of --forward that procscope's "
            + "parent made it ignore (trap '' TERM, nohup's HUP, INT of a background job): procscope takes them "
            + "again, and the job gets them with their default action. Without it, procscope says at start which "
            + "ones it will not pass on.")
    boolean forwardIgnored;

    @Option(names = "--memory-limit", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "Run the job in a memory cgroup of its own with this limit (bytes, or with K, M, G, T: "
                    + "binary units, e.g. 512M, 8G; at least 1M). Needs a writable memory cgroup controller (root).")
    Long memoryLimit;

    @Option(names = "--pss", description = "Also sample the proportional set size of the job's processes "
            + "(smaps_rollup; costlier than RSS) for the report's peakPssBytes.")
    boolean pss;

    @Option(names = "--detach", description = "Run the job in the background, immune to hang-ups, and return "
            + "at once (needs --log).")
    boolean detach;

    @Option(names = "--log", paramLabel = "DIR", description = "With --detach: the directory for the job's "
            + "log, DIR/<timestamp>.log (made if missing; an existing file is never replaced).")
    Path logDir;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "With --detach: where the job is recorded for "
            + "'procscope jobs' (default: $PROCSCOPE_STATE_DIR, else $XDG_STATE_HOME/procscope/jobs, else "
            + "~/.local/state/procscope/jobs).")
    Path stateDir;

    /** Set by a detaching run for the supervisor it starts: the id of the job record to keep. */
    @Option(names = "--detached-as", paramLabel = "ID", hidden = true)
    String detachedAs;

    @Parameters(arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (after --).")
    List<String> command;

    @Override
    public Integer call() {
        Context ctx = root.context();
        ctx.signals("run");
        if (detach && logDir == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--detach needs --log DIR: a job in the"
                    + " background has no terminal to write to");
        }
        if (!detach && logDir != null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--log is for --detach");
        }
        JobSpec spec;
        try {
            spec = JobSpec.of(command).withGrace(grace).withSampleInterval(interval)
                    .withForwardedSignals(forwardedSignals()).withPss(pss).withIgnoredSignalsForwarded(forwardIgnored);
            if (memoryLimit != null) {
                spec = spec.withMemoryLimit(memoryLimit);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        if (report != null && Files.isDirectory(report)) {
            throw new IllegalArgumentException("--report " + report + " is a directory; name a file");
        }
        if (detach) {
            return new Detacher(ctx, this).detach();
        }
        if (detachedAs != null) {
            try {
                return new Detacher(ctx, this).supervise(spec);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 128 + Signal.INT.number();
            }
        }
        JobReport r;
        Gpus gpus = null;
        try {
            gpus = ctx.scope().openGpus();
        } catch (GpuUnavailableException e) {
            // No GPU to sample: the report's peakGpuMemoryBytes stays empty.
        }
        try {
            io.github.procscope.api.job.Job job = gpus != null ? ctx.scope().jobs().start(spec, gpus)
                    : ctx.scope().jobs().start(spec);
            notForwarded(ctx, job.notForwarded());
            r = job.await();
        } catch (JobStartException e) {
            ctx.err().println("procscope run: " + ProcscopeCli.message(e));
            return e.shellStatus();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ctx.err().println("procscope run: interrupted while waiting for the job");
            return 128 + Signal.INT.number();
        } finally {
            if (gpus != null) {
                gpus.close();
            }
        }
        if (report != null) {
            write(report, r);
        }
        ExitStatus s = r.exit().status();
        if (!s.isSuccess() || !r.stragglers().isEmpty()) {
            ctx.err().println("procscope run: " + r.exit().explanation()
                    + (r.stragglers().isEmpty() ? "" : " " + r.stragglers().size() + " process(es) left behind were ended."));
        }
        return s.shellStatus();
    }

    /** Says, one line each, which signals are not passed on to the job because this JVM ignored them on entry. */
    static void notForwarded(Context ctx, List<io.github.procscope.api.signals.PreemptionGuard.Refusal> refused) {
        for (io.github.procscope.api.signals.PreemptionGuard.Refusal r : refused) {
            if (r.reason() == io.github.procscope.api.signals.PreemptionGuard.Reason.INHERITED_IGNORED) {
                ctx.err().println(ignoredNotice(r.signal()));
            }
        }
    }

    /** @return the line that says a signal ignored on entry is not passed on, and how to have it passed on */
    static String ignoredNotice(Signal s) {
        return "procscope run: " + s.fullName() + " is not passed on to the job: it was ignored when procscope started"
                + (s == Signal.HUP ? " (under nohup)" : s == Signal.INT ? " (a background job's INT, or trap '' INT)"
                : " (trap '' " + s.name() + ")") + "; --forward-ignored passes it on";
    }

    List<Signal> forwardedSignals() {
        if (forward == null) {
            return JobSpec.DEFAULT_FORWARDED;
        }
        if (forward.size() == 1 && forward.get(0).trim().equalsIgnoreCase("none")) {
            return List.of();
        }
        List<Signal> out = new ArrayList<>();
        for (String f : forward) {
            try {
                out.add(Signal.parse(f.trim()));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--forward: " + e.getMessage());
            }
        }
        return out;
    }

    static void write(Path file, JobReport r) {
        try {
            Path abs = file.toAbsolutePath();
            Path tmp = Files.createTempFile(abs.getParent(), ".procscope-report-", ".tmp");
            try {
                Files.writeString(tmp, Context.mapper().writerWithDefaultPrettyPrinter()
                        .writeValueAsString(json(r)) + "\n", StandardCharsets.UTF_8);
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write the report to " + file + ": " + IoErrors.reason(e), e);
        }
    }

    /** @return the report with its stable JSON names */
    static JsonNode json(JobReport r) {
        return Json.of(Report.of(r));
    }

    /**
     * The run report's JSON: the {@link JobReport} record's components, a process by its pid, a signal by its
     * full name ({@code SIGTERM}), an exit status as {@link ExitJson}.
     *
     * @param command             as {@link JobReport#command()}
     * @param leaderPid           as {@link JobReport#leaderPid()}
     * @param startTime           as {@link JobReport#startTime()}
     * @param endTime             as {@link JobReport#endTime()}
     * @param duration            as {@link JobReport#duration()}
     * @param exit                as {@link JobReport#exit()}
     * @param peakRssBytes        as {@link JobReport#peakRssBytes()}
     * @param peakProcessRssBytes as {@link JobReport#peakProcessRssBytes()}
     * @param peakGpuMemoryBytes  as {@link JobReport#peakGpuMemoryBytes()}, by GPU index in order
     * @param cpu                 as {@link JobReport#cpu()}
     * @param processesStarted    as {@link JobReport#processesStarted()}
     * @param stragglers          as {@link JobReport#stragglers()}
     * @param forwardedSignals    as {@link JobReport#forwardedSignals()}
     * @param peakPssBytes        as {@link JobReport#peakPssBytes()}
     * @param peakThreads         as {@link JobReport#peakThreads()}
     * @param events              as {@link JobReport#events()}
     * @param eventsOmitted       as {@link JobReport#eventsOmitted()}
     * @param lostOutput          as {@link JobReport#lostOutput()}
     * @param ghosts              as {@link JobReport#ghosts()}
     */
    record Report(List<String> command, long leaderPid, Instant startTime, Instant endTime, Duration duration,
                  Ending exit, long peakRssBytes, long peakProcessRssBytes, SortedMap<Integer, Long> peakGpuMemoryBytes,
                  Duration cpu, int processesStarted, List<StragglerJson> stragglers,
                  List<ForwardedJson> forwardedSignals, OptionalLong peakPssBytes, int peakThreads,
                  List<EventJson> events, long eventsOmitted, Optional<LostOutput> lostOutput, List<GpuGhost> ghosts) {
        static Report of(JobReport r) {
            JobEnding e = r.exit();
            return new Report(r.command(), r.leaderPid(), r.startTime(), r.endTime(), r.duration(),
                    new Ending(ExitJson.of(e.status()), e.cause(), e.explanation(), e.oomKill().orElse(null)),
                    r.peakRssBytes(), r.peakProcessRssBytes(), new TreeMap<>(r.peakGpuMemoryBytes()), r.cpu(),
                    r.processesStarted(),
                    r.stragglers().stream().map(x -> new StragglerJson(x.process().pid(), x.comm(), x.cmdline(),
                            x.endedBy().fullName())).toList(),
                    r.forwardedSignals().stream().map(f -> new ForwardedJson(f.signal().fullName(), f.at(),
                            f.processes())).toList(),
                    r.peakPssBytes(), r.peakThreads(),
                    r.events().stream().map(v -> new EventJson(v.kind(), v.process().pid(), v.ppid(), v.comm(), v.at(),
                            v.status().map(ExitJson::of))).toList(),
                    r.eventsOmitted(), r.lostOutput(), r.ghosts());
        }
    }

    /**
     * How a job ended: its status flat, then the {@link JobEnding} record's other components (the OOM kill only
     * when there was one).
     *
     * @param status      the exit status, flat
     * @param cause       as {@link JobEnding#cause()}
     * @param explanation as {@link JobEnding#explanation()}
     * @param oomKill     as {@link JobEnding#oomKill()}, or null (then absent)
     */
    record Ending(@JsonUnwrapped ExitJson status, JobEnding.Cause cause, String explanation,
                  @JsonInclude(JsonInclude.Include.NON_NULL) OomKill oomKill) {
    }

    /**
     * An exit status of a job's report: the exit code or the signal's full name (the other null), whether a core
     * was dumped and the shell's status, as {@link ExitStatus.Exited} and {@link ExitStatus.Killed} name them.
     *
     * @param code        as {@link ExitStatus.Exited#code()}, or null
     * @param signal      as {@link ExitStatus.Killed#signal()}, its full name, or null
     * @param coreDumped  as {@link ExitStatus.Killed#coreDumped()}; false for an exit
     * @param shellStatus as {@link ExitStatus#shellStatus()}
     */
    record ExitJson(Integer code, String signal, boolean coreDumped, int shellStatus) {
        static ExitJson of(ExitStatus s) {
            if (s instanceof ExitStatus.Killed k) {
                return new ExitJson(null, k.signal().fullName(), k.coreDumped(), s.shellStatus());
            }
            return new ExitJson(((ExitStatus.Exited) s).code(), null, false, s.shellStatus());
        }
    }

    /**
     * A process left behind and ended, as {@link Straggler}.
     *
     * @param pid     its pid ({@link Straggler#process()})
     * @param comm    as {@link Straggler#comm()}
     * @param cmdline as {@link Straggler#cmdline()}
     * @param endedBy as {@link Straggler#endedBy()}, its full name
     */
    record StragglerJson(long pid, String comm, List<String> cmdline, String endedBy) {
    }

    /**
     * A signal passed on to the job, as {@link ForwardedSignal}.
     *
     * @param signal    as {@link ForwardedSignal#signal()}, its full name
     * @param at        as {@link ForwardedSignal#at()}
     * @param processes as {@link ForwardedSignal#processes()}
     */
    record ForwardedJson(String signal, Instant at, int processes) {
    }

    /**
     * A start or an exit in the job, as {@link JobEvent}.
     *
     * @param kind   as {@link JobEvent#kind()}
     * @param pid    its pid ({@link JobEvent#process()})
     * @param ppid   as {@link JobEvent#ppid()}
     * @param comm   as {@link JobEvent#comm()}
     * @param at     as {@link JobEvent#at()}
     * @param status as {@link JobEvent#status()}
     */
    record EventJson(JobEvent.Kind kind, long pid, long ppid, String comm, Instant at, Optional<ExitJson> status) {
    }

    /** A size in bytes: {@code 1048576}, {@code 512K}, {@code 64M}, {@code 8G}, {@code 1T} (binary, with or without {@code iB}). */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.trim().toUpperCase(Locale.ROOT);
            if (v.endsWith("IB")) {
                v = v.substring(0, v.length() - 2);
            } else if (v.endsWith("B")) {
                v = v.substring(0, v.length() - 1);
            }
            int shift = 0;
            if (!v.isEmpty() && "KMGT".indexOf(v.charAt(v.length() - 1)) >= 0) {
                shift = 10 * ("KMGT".indexOf(v.charAt(v.length() - 1)) + 1);
                v = v.substring(0, v.length() - 1);
            }
            if (!v.matches("[0-9]{1,18}")) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size: write bytes, or 512K, 64M, 8G, 1T");
            }
            long n = Long.parseLong(v);
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new CommandLine.TypeConversionException("'" + value + "' is too large");
            }
            return n << shift;
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "run %s", command);
    }
}
