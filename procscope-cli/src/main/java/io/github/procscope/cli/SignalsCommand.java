package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalAction;
import io.github.procscope.api.signals.SignalSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code procscope signals PID}: how a process will react to each signal, in words. */
@Command(name = "signals", mixinStandardHelpOptions = true,
        description = {"Show how a process reacts to each signal.",
                "From /proc/PID/status and each thread's status: which signals it ignores (nohup ignores "
                        + "HUP), which it catches (a handler runs: a training loop that checkpoints on TERM), which "
                        + "are blocked (held back until unblocked) and which are pending. Then the answers: will it "
                        + "survive its terminal hanging up? Does TERM end it at once? KILL and STOP can be neither "
                        + "caught, blocked nor ignored.",
                "JSON: 'blocked' lists the signals every thread blocks (held back for the whole process); "
                        + "each thread's own masks are under 'threads'."},
        footer = {"", "Examples:", "  procscope signals 4121", "  procscope --json signals $(pgrep -f train.py)"})
final class SignalsCommand implements Callable<Integer> {
    /** Signals always shown in the table, caught or not: the ones that end or stop jobs. */
    private static final List<Signal> NOTABLE = List.of(Signal.HUP, Signal.INT, Signal.QUIT, Signal.USR1, Signal.USR2,
            Signal.TERM);

    @Mixin
    ProcessTarget target;

    @Override
    public Integer call() {
        Context ctx = target.context();
        long pid = target.pid();
        ProcessInfo p = ctx.procfs().process(pid);
        Dispositions d = ctx.scope().signals().dispositions(p.key());
        if (ctx.json()) {
            ctx.printJson(json(d, p));
        } else {
            print(ctx.out(), d, p, ctx.width());
        }
        return ProcscopeCli.OK;
    }

    /** @return the signals blocked in every thread: held back for the process as a whole */
    static SignalSet blocked(Dispositions d) {
        if (d.threads().isEmpty()) {
            return d.process().blocked();
        }
        SignalSet all = null;
        for (Dispositions.ThreadMasks t : d.threads()) {
            all = all == null ? t.masks().blocked() : all.intersection(t.masks().blocked());
        }
        return all;
    }

    /**
     * What {@code signals --json} writes, one field per component: the process's signal sets, the signals
     * blocked in every thread ({@code blocked}), what its dispositions mean, and each thread's own sets.
     */
    record View(long pid, String comm, SignalSet pending, SignalSet blocked, SignalSet ignored, SignalSet caught,
                boolean survivesHangup, boolean handlesTerm, boolean blocksTerm, List<ThreadView> threads) {
    }

    /** A thread of {@link View}: its id, name, and the signals pending for it and blocked by it. */
    record ThreadView(long tid, String name, SignalSet pending, SignalSet blocked) {
    }

    static JsonNode json(Dispositions d, ProcessInfo p) {
        List<ThreadView> threads = new java.util.ArrayList<>();
        for (Dispositions.ThreadMasks t : d.threads()) {
            threads.add(new ThreadView(t.tid(), t.name(), t.masks().pending(), t.masks().blocked()));
        }
        return Json.of(new View(d.pid(), p.comm(), d.pending(), blocked(d), d.ignored(), d.caught(),
                d.survivesHangup(), d.handlesTerm(), d.blocksTerm(), threads));
    }

    private static void print(PrintStream out, Dispositions d, ProcessInfo p, int width) {
        SignalSet blocked = blocked(d);
        out.printf("Signals of %d (%s):%n", d.pid(), Table.printable(p.comm()));
        out.println("  pending  " + names(d.pending()));
        out.println("  blocked  " + names(blocked));
        out.println("  ignored  " + names(d.ignored()));
        out.println("  caught   " + names(d.caught()));
        out.println();
        TreeSet<Signal> shown = new TreeSet<>(NOTABLE);
        shown.addAll(d.caught().signals());
        shown.addAll(d.ignored().signals());
        shown.addAll(d.pending().signals());
        shown.addAll(blocked.signals());
        for (Signal s : shown) {
            out.printf("  %-6s %s%n", s.name(), words(d, s, blocked));
        }
        out.println();
        String hangup;
        if (d.ignoresHangup()) {
            hangup = "Hang-up: survives it; HUP is ignored (as nohup arranges).";
        } else if (d.survivesHangup()) {
            hangup = "Hang-up: its HUP handler decides; it may survive its terminal closing.";
        } else {
            hangup = "Hang-up: dies when its terminal or SSH session hangs up (HUP is neither ignored nor caught);"
                    + " start long runs under nohup, tmux or screen.";
        }
        Table.wrap(out, hangup, "  ", width);
        String term;
        if (d.ignoresTerm()) {
            term = "TERM: ignored; a graceful stop needs KILL after its grace period.";
        } else if (d.blocksTerm()) {
            term = "TERM: blocked in every thread; it stays pending until unblocked. KILL still ends it.";
        } else if (d.handlesTerm()) {
            term = "TERM: caught; its handler can checkpoint and exit (a JVM then exits with status 143).";
        } else {
            term = "TERM: ends it at once (the default action), with no chance to save work.";
        }
        List<Dispositions.ThreadMasks> blocking = d.threadsBlocking(Signal.TERM);
        if (!blocking.isEmpty() && !d.blocksTerm()) {
            term += " Thread(s) " + blocking.stream().map(t -> t.tid() + " (" + t.name() + ")")
                    .collect(Collectors.joining(", ")) + " block it; another thread takes it.";
        }
        Table.wrap(out, term, "  ", width);
    }

    private static String words(Dispositions d, Signal s, SignalSet blocked) {
        List<String> parts = new ArrayList<>();
        switch (d.disposition(s)) {
            case IGNORED -> parts.add("ignored");
            case CAUGHT -> parts.add("caught: a handler runs");
            default -> parts.add("default: " + action(s.defaultAction()));
        }
        if (blocked.contains(s)) {
            parts.add("blocked (held back until unblocked)");
        }
        if (d.pending().contains(s)) {
            parts.add("pending");
        }
        return String.join("; ", parts);
    }

    private static String action(SignalAction a) {
        return switch (a) {
            case TERMINATE -> "terminates it";
            case CORE -> "terminates it with a core dump";
            case IGNORE -> "nothing happens";
            case STOP -> "stops it";
            case CONTINUE -> "continues it if stopped";
        };
    }

    private static String names(SignalSet set) {
        return set.isEmpty() ? "-" : String.join(" ", set.names()).toUpperCase(Locale.ROOT);
    }
}
