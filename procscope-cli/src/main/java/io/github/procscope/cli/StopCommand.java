package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/** {@code procscope stop PID [--grace D] [--tree]}: TERM, a grace period, then KILL, never to a recycled pid. */
@Command(name = "stop", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Stop a process (or a tree) gracefully: TERM, wait, KILL.",
                "It sends TERM (a request the process may handle, e.g. to checkpoint), waits up to the "
                        + "grace period, then sends KILL (final; it cannot be caught) to what is left, and waits "
                        + "until it is gone. With --tree its descendants too, re-scanned until none is left "
                        + "(children forked meanwhile, and orphans re-parented away but still in its process group "
                        + "or session).",
                "Each process is checked through a pidfd and signalled through it: a recycled pid is never "
                        + "hit. PID 1 (unless --allow-init), kernel threads, procscope itself and the shell that "
                        + "started it are refused, and nothing is sent. Exit status 0 when everything is gone; 1 when "
                        + "a process survived (not permitted) or did not exist; 2 when the target is refused."},
        footer = {"", "Examples:", "  procscope stop 4121 --grace 30s --tree", "  procscope --json stop 4121"})
final class StopCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Parameters(index = "0", paramLabel = "PID", converter = PidConverter.class, description = "The process.")
    long pid;

    @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.Grace.class,
            description = "How long to wait after the first signal before KILL (default: 10s).")
    Duration grace = StopOptions.defaults().gracePeriod();

    @Option(names = "--tree", description = "Stop its descendants too.")
    boolean tree;

    @Option(names = "--signal", paramLabel = "SIGNAL", converter = SignalConverter.class,
            description = "The first signal (default: TERM; e.g. INT, or USR1 for jobs that checkpoint on it).")
    Signal signal = Signal.TERM;

    @Option(names = "--allow-init", description = "Allow stopping PID 1 of this PID namespace (its init: in a "
            + "container, the whole container). Refused without it.")
    boolean allowInit;

    @Override
    public Integer call() {
        Context ctx = root.context();
        StopOptions options = StopOptions.defaults().withSignal(signal).withGracePeriod(grace);
        Signals signals = ctx.signals("stop");
        if (allowInit) {
            signals = signals.allowingInit();
        }
        ProcessKey key = signals.key(pid);
        StopReport report = tree ? signals.stopTree(key, options) : signals.stop(key, options);
        if (ctx.json()) {
            ctx.printJson(json(report));
        } else {
            print(ctx.out(), report, ctx.width());
        }
        if (!report.allGone()) {
            ctx.err().println("procscope stop: " + report.survivors().size() + " process(es) still alive: "
                    + report.survivors().stream().map(s -> s.pid() + " (" + s.ending() + ")")
                    .reduce((a, b) -> a + ", " + b).orElse(""));
            return ProcscopeCli.NOT_FOUND;
        }
        return ProcscopeCli.OK;
    }

    /**
     * What {@code stop --json} writes, one field per component.
     *
     * @param allGone     whether every process of the target is gone
     * @param signal      the first signal's name ({@code TERM})
     * @param gracePeriod how long KILL waited, as {@code gracePeriodSeconds}
     * @param elapsed     how long the stop took, as {@code elapsedSeconds}
     * @param processes   each process signalled
     */
    record View(boolean allGone, String signal, Duration gracePeriod, Duration elapsed, List<Stopped> processes) {
    }

    /**
     * A process of {@link View}.
     *
     * @param pid        its pid
     * @param comm       its command name
     * @param ending     what ended it
     * @param after      when it was gone, after the first signal, as {@code afterSeconds}
     * @param exitStatus how it ended, where its status could be read
     */
    record Stopped(long pid, String comm, StopReport.Ending ending, Duration after, Optional<Exit> exitStatus) {
    }

    /**
     * An exit status as the tool writes it: the fields of both variants of {@link ExitStatus}, those of the other
     * variant null ({@code code} when killed, {@code signal} when it exited).
     */
    record Exit(OptionalInt code, Optional<String> signal, boolean coreDumped, ExitStatus.Source source,
                int shellStatus) {
        static Exit of(ExitStatus s) {
            return s instanceof ExitStatus.Killed k
                    ? new Exit(OptionalInt.empty(), Optional.of(k.signal().name()), k.coreDumped(), s.source(),
                    s.shellStatus())
                    : new Exit(OptionalInt.of(((ExitStatus.Exited) s).code()), Optional.empty(), false, s.source(),
                    s.shellStatus());
        }
    }

    static JsonNode json(StopReport r) {
        List<Stopped> processes = r.processes().stream().map(p -> new Stopped(p.pid(), p.comm(), p.ending(),
                p.after(), p.exitStatus().map(Exit::of))).toList();
        return Json.of(new View(r.allGone(), r.signal().name(), r.gracePeriod(), r.elapsed(), processes));
    }

    private static void print(PrintStream out, StopReport r, int width) {
        Table t = new Table().right("PID").left("COMMAND").left("ENDED BY").right("AFTER");
        for (StopReport.StoppedProcess p : r.processes()) {
            t.row(p.pid(), p.comm(), words(p.ending(), r.signal()), String.format(Locale.ROOT, "%.2fs", Units.seconds(p.after())));
        }
        t.print(out, width);
        out.printf(Locale.ROOT, "%s, %d process(es) in %.2fs%s%n",
                r.allGone() ? "All gone" : r.survivors().size() + " still alive",
                r.processes().size(), Units.seconds(r.elapsed()),
                r.killNeeded() ? "; KILL was needed (it did not end within the grace period after "
                        + r.signal().name() + ")" : "");
    }

    private static String words(StopReport.Ending e, Signal first) {
        return switch (e) {
            case TERM -> first.name();
            case KILL -> "KILL";
            case GONE -> "GONE (already)";
            case SURVIVED -> "SURVIVED";
            case NOT_PERMITTED -> "NOT PERMITTED";
        };
    }

    /** A signal by name or number: {@code TERM}, {@code SIGTERM}, {@code 15}. */
    static final class SignalConverter implements CommandLine.ITypeConverter<Signal> {
        @Override
        public Signal convert(String value) {
            try {
                return Signal.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
