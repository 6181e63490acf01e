package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/** {@code procscope jobs}: the jobs started with {@code run --detach}, live and finished. */
@Command(name = "jobs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"List jobs started with 'run --detach', live and finished.",
                "STATUS is running, exited N, killed by SIGx, OOM-killed, preempted (and how it ended), failed to "
                        + "start, or supervisor died; job ended: the record says running but its supervisor (same pid, "
                        + "same start time) no longer exists, so no report will come, and the job was ended with it "
                        + "(TERM, KILL after the grace period). '; log lost N bytes' follows when output could not be "
                        + "written to the log (a full disk).",
                "Only records of the invoking user (or root) in a directory no one else can write to (or a sticky one)"
                        + " are listed; any other record is refused: one line on standard error says which and why.",
                "Exit status: 0; 1 the state directory is refused; 2 bad usage."},
        footer = {"", "Examples:", "  procscope jobs", "  procscope --json jobs"})
final class JobsCommand implements Callable<Integer> {
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("MM-dd HH:mm")
            .withZone(ZoneId.systemDefault());

    /** The fewest characters of a command shown before the log's path. */
    private static final int MIN_COMMAND = 12;

    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Where jobs are recorded (default: "
            + "$PROCSCOPE_STATE_DIR, else $XDG_STATE_HOME/procscope/jobs, else ~/.local/state/procscope/jobs).")
    Path stateDir;

    @Override
    public Integer call() {
        Context ctx = root.context();
        List<ObjectNode> records = new java.util.ArrayList<>();
        for (JobStore.Loaded l : JobStore.open(stateDir, false).list()) {
            if (l.usable()) {
                records.add(l.record().get());
            } else {
                ctx.err().println("procscope jobs: " + l.refusal());
            }
        }
        if (ctx.json()) {
            ctx.printJson(Json.of(records.stream().map(r -> Row.of(ctx, r)).toList()));
            return ProcscopeCli.OK;
        }
        // The log's path is what a user copies: it comes last and whole; the command is cut to make room for it.
        Table t = new Table().left("ID").right("PID").left("STATUS").left("STARTED").left("COMMAND").left("LOG")
                .wholeLast();
        List<String[]> rows = new java.util.ArrayList<>();
        int[] w = {"ID".length(), "PID".length(), "STATUS".length(), "STARTED".length(), "LOG".length()};
        for (ObjectNode r : records) {
            JsonNode pid = r.path("job").path("pid");
            String[] row = {r.path("id").asText(), pid.isNumber() ? pid.asText() : "-", status(ctx, r), started(r),
                    String.join(" ", strings(r.path("command"))), r.path("log").asText()};
            rows.add(row);
            for (int i : new int[] {0, 1, 2, 3}) {
                w[i] = Math.max(w[i], Table.printable(row[i]).length());
            }
            w[4] = Math.max(w[4], Table.printable(row[5]).length());
        }
        int room = Math.max(MIN_COMMAND, ctx.width() - (w[0] + w[1] + w[2] + w[3] + w[4] + 5));
        for (String[] row : rows) {
            String command = Table.printable(row[4]);
            t.row(row[0], row[1], row[2], row[3], command.length() <= room ? command
                    : command.substring(0, room - Table.ELLIPSIS.length()) + Table.ELLIPSIS, row[5]);
        }
        t.print(ctx.out(), ctx.width());
        return ProcscopeCli.OK;
    }

    private static String started(ObjectNode r) {
        try {
            return WHEN.format(Instant.parse(r.path("startTime").asText()));
        } catch (RuntimeException e) {
            return "-";
        }
    }

    private static List<String> strings(JsonNode a) {
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        a.forEach(n -> out.add(n.asText()));
        return out;
    }

    /**
     * A job as {@code jobs --json} prints it: what its record says (the record's own JSON, as {@code run}
     * wrote it: times, command, log, report) and what the tool finds now (its status in words, whether its
     * supervisor still runs).
     *
     * @param id              the job's id
     * @param status          its state in words ({@link #status})
     * @param state           the record's state ({@code starting}, {@code running}, {@code ended}, {@code failed})
     * @param pid             the job's pid, null before it started
     * @param supervisorPid   its supervisor's pid, null before it started
     * @param supervisorAlive whether the supervisor still runs, the same process
     * @param startTime       when the job was started, as recorded
     * @param endTime         when it ended, as recorded, or null
     * @param command         its command line, as recorded
     * @param log             its log's path
     * @param reportFile      where its report was also written, or null
     * @param exit            its report's {@code exit}, or null before it ended
     * @param report          its report (as {@code run --report} writes it), or null before it ended
     */
    record Row(String id, String status, String state, OptionalLong pid, OptionalLong supervisorPid,
               boolean supervisorAlive, JsonNode startTime, JsonNode endTime, JsonNode command, JsonNode log,
               JsonNode reportFile, JsonNode exit, JsonNode report) {
        /** @return the record of a job as {@code jobs --json} prints it */
        static Row of(Context ctx, ObjectNode r) {
            return new Row(r.path("id").asText(), JobsCommand.status(ctx, r), r.path("state").asText(),
                    pid(r.path("job")), pid(r.path("supervisor")), JobsCommand.supervisorAlive(ctx, r), r.path("startTime"),
                    orNull(r.path("endTime")), r.path("command"), r.path("log"), orNull(r.path("reportFile")),
                    r.path("report").path("exit").isObject() ? r.path("report").path("exit") : null,
                    r.path("report").isObject() ? r.path("report") : null);
        }

        private static OptionalLong pid(JsonNode process) {
            JsonNode pid = process.path("pid");
            return pid.isNumber() ? OptionalLong.of(pid.asLong()) : OptionalLong.empty();
        }

        private static JsonNode orNull(JsonNode n) {
            return n.isMissingNode() ? null : n;
        }
    }

    /** @return the job's state in words, with a lost log tail if there was one */
    static String status(Context ctx, ObjectNode r) {
        JsonNode lost = r.path("report").path("lostOutput");
        String state = state(ctx, r);
        return lost.path("bytes").isIntegralNumber() ? state + "; log lost " + lost.path("bytes").asLong() + " bytes"
                : state;
    }

    private static String state(Context ctx, ObjectNode r) {
        switch (r.path("state").asText()) {
            case "ended":
                return ending(r.path("report").path("exit"));
            case "failed":
                return "failed to start";
            case "starting":
                return r.path("supervisor").isObject() && !supervisorAlive(ctx, r) ? "supervisor gone" : "starting";
            case "running":
                if (supervisorAlive(ctx, r)) {
                    return "running";
                }
                return alive(ctx, r.path("job")) ? "supervisor gone, job alive" : "supervisor died; job ended";
            default:
                return "unknown";
        }
    }

    private static String ending(JsonNode exit) {
        String how = exit.path("code").isNumber() ? "exited " + exit.path("code").asInt()
                : "killed by " + exit.path("signal").asText("?");
        switch (exit.path("cause").asText()) {
            case "OOM_KILLED":
                return "OOM-killed";
            case "PREEMPTED":
                return "preempted, " + how;
            default:
                return how;
        }
    }

    /** @return whether the job's supervisor still runs: the same pid with the same start time, not a zombie */
    static boolean supervisorAlive(Context ctx, ObjectNode r) {
        return alive(ctx, r.path("supervisor"));
    }

    /** @return whether a recorded process {pid, startTimeTicks} still exists, the same one, not a zombie */
    static boolean alive(Context ctx, JsonNode key) {
        if (!key.path("pid").isIntegralNumber() || !key.path("startTimeTicks").isIntegralNumber()) {
            return false;
        }
        long pid = key.path("pid").asLong();
        if (pid <= 0) {
            return false;
        }
        try {
            ProcessInfo p = ctx.procfs().process(pid);
            return p.startTimeTicks() == key.path("startTimeTicks").asLong() && p.state() != ProcessState.ZOMBIE
                    && p.state() != ProcessState.DEAD;
        } catch (RuntimeException e) {
            return false; // gone, or not readable: not a supervisor procscope can vouch for
        }
    }
}
