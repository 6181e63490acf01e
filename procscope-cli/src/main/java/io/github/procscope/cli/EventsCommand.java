package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ExitCause;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.api.events.ProcessEvents;
import io.github.procscope.api.process.ProcessSnapshot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code procscope events}: process forks, execs, renames and exits as they happen. */
@Command(name = "events", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Print process forks, execs, renames and exits as they happen.",
                "From the kernel's process connector where this user may open it (root, or CAP_NET_ADMIN on the "
                        + "host), with exit codes, signals and core dumps, and OOM kills named from the kernel log "
                        + "or the memory cgroup's oom_kill counter; with --tree otherwise from a pidfd per process "
                        + "of the tree (exit statuses of this tool's children, and of others from Linux 6.15); "
                        + "otherwise by comparing snapshots every --interval, which misses processes shorter than "
                        + "the interval and cannot know exit statuses. Standard error says which source is used, "
                        + "and why a better one is not.",
                "The name shown is the process's own at that moment: a fork's is its parent's, an exec's the new "
                        + "program's, a rename's (prctl PR_SET_NAME, a write to /proc/PID/comm; no exec) the new "
                        + "one, an exit's the last it had.",
                "With --json: one object per line with type, pid, ppid, comm, time, exitCode, signal, coreDumped, "
                        + "cause and source."},
        footer = {"", "Examples:", "  procscope events --tree 4121", "  procscope --json events --count 100"})
final class EventsCommand implements java.util.concurrent.Callable<Integer> {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

    @ParentCommand
    ProcscopeCli root;

    @Spec
    CommandSpec spec;

    @Option(names = "--tree", paramLabel = "PID", converter = PidConverter.class,
            description = "Only the process PID and its descendants (those it forks while watched too).")
    Long tree;

    @Option(names = "--count", paramLabel = "N", description = "Stop after N events (default: until interrupted).")
    Integer count;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "The snapshot interval when snapshots must be compared (default: 500ms).")
    Duration interval = Duration.ofMillis(500);

    @Option(names = "--diff", description = "Compare snapshots even where the process connector is available.")
    boolean diff;

    @Override
    public Integer call() throws InterruptedException {
        if (count != null && count < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--count must be at least 1, not " + count);
        }
        if (interval.toMillis() < 10) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--interval must be at least 10ms, not "
                    + interval);
        }
        Context ctx = root.context();
        ProcessKey top = null;
        if (tree != null) {
            ProcessSnapshot s = ctx.procfs().snapshot();
            top = s.find(tree).orElseThrow(() -> new NoSuchProcessException(tree)).key();
        }
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger printed = new AtomicInteger();
        ProcessEventListener listener = new ProcessEventListener() {
            @Override
            public void onEvent(ProcessEvent e) {
                if (count != null && printed.get() >= count) {
                    return;
                }
                synchronized (ctx.out()) {
                    if (ctx.json()) {
                        ctx.printJsonLine(json(e));
                    } else {
                        ctx.out().println(line(e));
                    }
                    ctx.out().flush();
                }
                if (count != null && printed.incrementAndGet() >= count) {
                    done.countDown();
                }
            }

            @Override
            public void onLoss(long lostSoFar) {
                ctx.err().println("procscope events: the kernel dropped events (" + lostSoFar
                        + " overrun(s) so far); resynchronised from a snapshot");
            }
        };
        ProcessEvents events = ctx.scope().events();
        EventSubscription subscription;
        if (top != null) {
            subscription = diff ? events.subscribeTree(top, listener, interval, EventSource.SNAPSHOT_DIFF)
                    : events.subscribeTree(top, listener, interval);
        } else {
            subscription = diff ? events.subscribe(listener, interval, EventSource.SNAPSHOT_DIFF)
                    : events.subscribe(listener, interval);
        }
        try (EventSubscription sub = subscription) {
            ctx.err().println("procscope events: source " + sub.source().name().toLowerCase(Locale.ROOT)
                    + sub.fallbackReason().map(r -> " (" + r + ")").orElse(""));
            ctx.err().flush();
            done.await();
            if (sub.dropped() > 0) {
                ctx.err().println("procscope events: " + sub.dropped() + " event(s) dropped (output too slow)");
            }
        }
        return ProcscopeCli.OK;
    }

    /**
     * An event as {@code events --json} writes it, one field per component: the event's own components, its key
     * flat ({@code startTimeTicks}), and {@code coreDumped} only where an exit's status was read (else null).
     */
    record View(EventType type, long pid, OptionalLong ppid, Optional<String> comm, Instant time,
                OptionalInt exitCode, OptionalInt signal, Optional<Boolean> coreDumped, Optional<ExitCause> cause,
                Optional<String> evidence, EventSource source, OptionalLong startTimeTicks) {
        static View of(ProcessEvent e) {
            return new View(e.type(), e.pid(), e.ppid(), e.comm(), e.time(), e.exitCode(), e.signal(),
                    e.type() == EventType.EXIT && e.exitStatusKnown() ? Optional.of(e.coreDumped()) : Optional.empty(),
                    e.cause(), e.evidence(), e.source(), e.key().isPresent()
                            ? OptionalLong.of(e.key().get().startTimeTicks()) : OptionalLong.empty());
        }
    }

    static JsonNode json(ProcessEvent e) {
        return Json.of(View.of(e));
    }

    static String line(ProcessEvent e) {
        String what = switch (e.type()) {
            case FORK -> "fork  by " + (e.ppid().isPresent() ? Long.toString(e.ppid().getAsLong()) : "?");
            case EXEC -> "exec";
            case RENAME -> "rename";
            case EXIT -> "exit  " + (e.exitCode().isPresent() ? "code " + e.exitCode().getAsInt()
                    : e.signal().isPresent() ? "signal " + e.signal().getAsInt() + (e.coreDumped() ? " (core dumped)" : "")
                    : "(status unknown)") + e.cause().map(c -> " " + c.name()).orElse("");
        };
        return String.format(Locale.ROOT, "%s %7d %-15s %s", CLOCK.format(LocalTime.ofInstant(e.time(),
                ZoneId.systemDefault())), e.pid(), Table.printable(e.comm().orElse("?")), what);
    }
}
