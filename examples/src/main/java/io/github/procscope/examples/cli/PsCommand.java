package io.github.procscope.examples.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code procscope ps}: the columns of {@code ps -eo pid,ppid,user,stat,rss,vsz,nlwp,etime,%cpu,comm}. */
@Command(name = "ps", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"List processes like ps -eo pid,ppid,user,stat,rss,vsz,nlwp,etime,%cpu,comm.",
                "RSS and VSZ are in KiB as ps prints them; %CPU is CPU time over the process's life."},
        footer = {"", "Examples:", "  procscope ps --sort=-rss --user alice",
                "  procscope ps --state Z            zombies only",
                "  procscope ps --by-user            resident memory and process count per user"})
final class PsCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--sort", paramLabel = "KEY",
            description = "Sort by pid, ppid, user, state, rss, vsz, threads, elapsed, cpu or comm; prefix - for"
                    + " descending (default: pid).")
    String sort = "pid";

    @Option(names = "--user", split = ",", paramLabel = "USER", description = "Only processes of these users (names or uids).")
    List<String> users = List.of();

    @Option(names = "--pid", split = ",", paramLabel = "PID", converter = PidConverter.class,
            description = "Only these pids.")
    List<Long> pids = List.of();

    @Option(names = "--state", paramLabel = "LETTERS", description = "Only processes in these states, e.g. Z or DR.")
    String states;

    @Option(names = "--by-user", description = "Per-user totals of RSS and processes instead of a process list.")
    boolean byUser;

    @Override
    public Integer call() {
        Context ctx = root.context();
        ProcessSnapshot snapshot = ctx.procfs().snapshot();
        List<ProcessInfo> list = snapshot.processes().stream().filter(this::selected)
                .sorted(comparator(sort)).collect(Collectors.toCollection(ArrayList::new));
        if (byUser) {
            printByUser(ctx, list);
            return ProcscopeCli.OK;
        }
        if (ctx.json()) {
            ArrayNode arr = Context.mapper().createArrayNode();
            for (ProcessInfo p : list) {
                arr.add(json(p));
            }
            ctx.printJson(arr);
            return ProcscopeCli.OK;
        }
        Table t = new Table().right("PID").right("PPID").left("USER").left("STAT").right("RSS").right("VSZ")
                .right("NLWP").right("ELAPSED").right("%CPU").left("COMMAND");
        for (ProcessInfo p : list) {
            t.row(p.pid(), p.ppid(), user(p), stat(p), p.rssBytes() / 1024, p.vszBytes() / 1024, p.threads(),
                    Units.elapsed(p.elapsed()), Units.percent(p.lifetimeCpuPercent()), p.comm());
        }
        t.print(ctx.out(), Table.terminalWidth());
        return ProcscopeCli.OK;
    }

    static ObjectNode json(ProcessInfo p) {
        ObjectNode o = Context.mapper().createObjectNode();
        o.put("pid", p.pid());
        o.put("ppid", p.ppid());
        o.put("uid", p.uid());
        if (p.user().isPresent()) {
            o.put("user", p.user().get());
        } else {
            o.putNull("user");
        }
        o.put("state", String.valueOf(p.state().letter()));
        o.put("comm", p.comm());
        o.put("threads", p.threads());
        o.put("rssBytes", p.rssBytes());
        o.put("vszBytes", p.vszBytes());
        o.put("cpuPercent", Math.round(p.lifetimeCpuPercent() * 10) / 10.0);
        o.put("startTime", p.startTime().toString());
        o.put("elapsedSeconds", Units.seconds(p.elapsed()));
        o.put("cpuSeconds", Units.seconds(p.cpuTime()));
        return o;
    }

    private void printByUser(Context ctx, List<ProcessInfo> list) {
        Map<String, long[]> totals = new TreeMap<>();
        for (ProcessInfo p : list) {
            long[] t = totals.computeIfAbsent(user(p), k -> new long[3]);
            t[0]++;
            t[1] += p.rssBytes();
            t[2] = p.uid();
        }
        List<Map.Entry<String, long[]>> rows = new ArrayList<>(totals.entrySet());
        rows.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed()
                .thenComparing(Map.Entry::getKey));
        if (ctx.json()) {
            ArrayNode arr = Context.mapper().createArrayNode();
            for (var e : rows) {
                ObjectNode o = arr.addObject();
                o.put("user", e.getKey());
                o.put("uid", e.getValue()[2]);
                o.put("processes", e.getValue()[0]);
                o.put("rssBytes", e.getValue()[1]);
            }
            ctx.printJson(arr);
            return;
        }
        Table t = new Table().left("USER").right("PROCESSES").right("RSS");
        for (var e : rows) {
            t.row(e.getKey(), e.getValue()[0], Units.bytes(e.getValue()[1]));
        }
        t.print(ctx.out(), Table.terminalWidth());
    }

    private boolean selected(ProcessInfo p) {
        if (!pids.isEmpty() && !pids.contains(p.pid())) {
            return false;
        }
        if (states != null && states.indexOf(p.state().letter()) < 0) {
            return false;
        }
        if (!users.isEmpty()) {
            String name = p.user().orElse("");
            String uid = Long.toString(p.uid());
            return users.stream().anyMatch(u -> u.equals(name) || u.equals(uid));
        }
        return true;
    }

    static String user(ProcessInfo p) {
        return p.user().orElse(Long.toString(p.uid()));
    }

    /** The STAT column: the state letter, then ps's flags {@code < N s l +}. */
    static String stat(ProcessInfo p) {
        StringBuilder sb = new StringBuilder().append(p.state().letter());
        if (p.nice() < 0) {
            sb.append('<');
        } else if (p.nice() > 0) {
            sb.append('N');
        }
        if (p.sid() == p.pid()) {
            sb.append('s');
        }
        if (p.threads() > 1) {
            sb.append('l');
        }
        if (p.stat().terminalProcessGroup().isPresent() && p.stat().terminalProcessGroup().getAsLong() == p.pgid()) {
            sb.append('+');
        }
        return sb.toString();
    }

    private static final Set<String> KEYS = Set.of("pid", "ppid", "user", "state", "rss", "vsz", "threads",
            "elapsed", "cpu", "comm");

    static Comparator<ProcessInfo> comparator(String spec) {
        boolean desc = spec.startsWith("-");
        String key = (desc || spec.startsWith("+") ? spec.substring(1) : spec).toLowerCase(Locale.ROOT);
        Comparator<ProcessInfo> c;
        switch (key) {
            case "pid": c = Comparator.comparingLong(ProcessInfo::pid); break;
            case "ppid": c = Comparator.comparingLong(ProcessInfo::ppid); break;
            case "user": c = Comparator.comparing(PsCommand::user); break;
            case "state": c = Comparator.comparing(p -> p.state().letter()); break;
            case "rss": c = Comparator.comparingLong(ProcessInfo::rssBytes); break;
            case "vsz": c = Comparator.comparingLong(ProcessInfo::vszBytes); break;
            case "threads": c = Comparator.comparingInt(ProcessInfo::threads); break;
            case "elapsed": c = Comparator.comparing(ProcessInfo::elapsed); break;
            case "cpu": c = Comparator.comparingDouble(ProcessInfo::lifetimeCpuPercent); break;
            case "comm": c = Comparator.comparing(ProcessInfo::comm); break;
            default:
                throw new IllegalArgumentException("unknown sort key '" + spec + "': use one of "
                        + new java.util.TreeSet<>(KEYS) + ", with - for descending");
        }
        c = desc ? c.reversed() : c;
        return c.thenComparingLong(ProcessInfo::pid);
    }
}
