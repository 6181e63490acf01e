package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.QosClass;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code procscope ps}: the columns of {@code ps -eo pid,ppid,user,stat,rss,vsz,nlwp,etime,%cpu,comm}. */
@Command(name = "ps", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"List processes, like ps -e with RSS, VSZ, threads and %%CPU.",
                "The columns of ps -eo pid,ppid,user,stat,rss,vsz,nlwp,etime,%%cpu,comm. RSS and VSZ are in KiB, "
                        + "as ps prints them (JSON: rssBytes and vszBytes, in bytes).",
                "%%CPU is computed as ps computes it: the CPU time used over the process's whole life "
                        + "divided by its elapsed time (100 = one CPU busy all along). It is not top's recent CPU: "
                        + "for the CPU over an interval, use 'procscope watch PID'.",
                "STAT is the state letter, then < (high priority), N (low priority), L (pages locked in memory), "
                        + "s (session leader), l (multi-threaded) and + (in the terminal's foreground process group)."},
        footer = {"", "Examples:", "  procscope ps --sort=-rss --user alice",
                "  procscope ps --state Z            zombies only",
                "  procscope ps --by-user            resident memory and process count per user",
                "  procscope ps --by-pod             the same per Kubernetes pod (--by-container: per container)",
                "  procscope --json ps --pid 4121,4122"})
final class PsCommand implements Callable<Integer> {
    /** The sort keys, by name. */
    static final Map<String, Comparator<ProcessInfo>> KEYS = keys();

    @ParentCommand
    ProcscopeCli root;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--sort", paramLabel = "KEY", converter = SortConverter.class,
            description = "Sort by pid, ppid, user, state, rss, vsz, threads, elapsed, cpu or comm; prefix - for"
                    + " descending (default: pid).")
    Comparator<ProcessInfo> sort = KEYS.get("pid");

    @Option(names = "--user", split = ",", paramLabel = "USER", description = "Only processes of these users (names or uids).")
    List<String> users = List.of();

    @Option(names = "--pid", split = ",", paramLabel = "PID", converter = PidConverter.class,
            description = "Only these pids; exit status 1 when none of them exists.")
    List<Long> pids = List.of();

    @Option(names = "--state", paramLabel = "LETTERS", converter = StatesConverter.class,
            description = "Only processes in these states, e.g. Z (zombies) or DR (disk sleep and running).")
    Set<Character> states;

    @Option(names = "--by-user", description = "Per-user totals of RSS and processes instead of a process list.")
    boolean byUser;

    @Option(names = "--by-container", description = "Per-container totals of RSS and processes (from the cgroup paths; "
            + "processes outside containers as '-').")
    boolean byContainer;

    @Option(names = "--by-pod", description = "Per-Kubernetes-pod totals of RSS and processes (from the cgroup paths; "
            + "processes outside pods as '-').")
    boolean byPod;

    @CommandLine.Mixin
    KubernetesSockets kubernetes = new KubernetesSockets();

    @Override
    public Integer call() {
        Context ctx = root.context();
        if ((byUser ? 1 : 0) + (byContainer ? 1 : 0) + (byPod ? 1 : 0) > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--by-user, --by-container and --by-pod cannot be combined");
        }
        ProcessSnapshot snapshot = ctx.procfs().snapshot(Set.of(Facet.CGROUP));
        ctx.noteUnreadable("ps", snapshot);
        for (String u : users) {
            if (!knownUser(u, snapshot)) {
                ctx.err().println("procscope ps: no user '" + Table.printable(u) + "' on this system");
                return ProcscopeCli.NOT_FOUND;
            }
        }
        List<ProcessInfo> list = snapshot.processes().stream().filter(this::selected)
                .sorted(sort.thenComparingLong(ProcessInfo::pid)).collect(Collectors.toCollection(ArrayList::new));
        if (!pids.isEmpty() && list.isEmpty()) {
            ctx.err().println("procscope ps: no process with pid "
                    + pids.stream().map(String::valueOf).collect(Collectors.joining(", ")));
            return ProcscopeCli.NOT_FOUND;
        }
        if (byUser) {
            printByUser(ctx, list, snapshot);
            return ProcscopeCli.OK;
        }
        try (PodNames names = kubernetes.names(ctx, "ps", list.stream().map(ProcessInfo::owner).toList())) {
            print(ctx, list, snapshot, names);
        }
        return ProcscopeCli.OK;
    }

    private void print(Context ctx, List<ProcessInfo> list, ProcessSnapshot snapshot, PodNames names) {
        if (byContainer || byPod) {
            printByWorkload(ctx, list, byPod, snapshot, names);
        } else if (ctx.json()) {
            ctx.printJson(Json.of(new Listing(list.stream().map(p -> Row.of(p, names)).toList(),
                    Json.LeftOut.of(snapshot))));
        } else {
            boolean owners = Owners.anyShown(list);
            Table t = new Table().right("PID", 5).right("PPID", 5).left("USER").left("STAT").right("RSS", 6)
                    .right("VSZ", 7).right("NLWP").right("ELAPSED", 8).right("%CPU");
            if (owners) {
                t.left("OWNER");
            }
            t.left("COMMAND");
            for (ProcessInfo p : list) {
                List<Object> cells = new ArrayList<>(List.of(p.pid(), p.ppid(), shortUser(p),
                        stat(p, locksMemory(ctx, p)), p.rssBytes() / 1024,
                        p.vszBytes() / 1024, p.threads(), Units.elapsed(p.elapsed()),
                        Units.percent(p.lifetimeCpuPercent())));
                if (owners) {
                    cells.add(Owners.label(p.owner(), names));
                }
                cells.add(p.comm());
                t.row(cells.toArray());
            }
            t.print(ctx.out(), ctx.width());
        }
    }

    /**
     * ps's JSON: the processes, and the ones the snapshot left out.
     *
     * @param processes the processes listed
     * @param leftOut   what the snapshot left out, flat
     */
    record Listing(List<Row> processes, @JsonUnwrapped Json.LeftOut leftOut) {
    }

    /**
     * One process of ps's JSON (and of the overview's top five): the fields named as {@link ProcessInfo}'s
     * accessors, the owner's flat.
     *
     * @param pid                as {@link ProcessInfo#pid()}
     * @param ppid               as {@link ProcessInfo#ppid()}
     * @param uid                as {@link ProcessInfo#uid()}
     * @param user               the user's name, or the uid as the table shows it when it has none
     * @param state              as {@link ProcessInfo#state()}
     * @param comm               as {@link ProcessInfo#comm()}
     * @param threads            as {@link ProcessInfo#threads()}
     * @param rssBytes           as {@link ProcessInfo#rssBytes()}
     * @param vszBytes           as {@link ProcessInfo#vszBytes()}
     * @param lifetimeCpuPercent as {@link ProcessInfo#lifetimeCpuPercent()}, to one decimal as ps prints it
     * @param startTime          as {@link ProcessInfo#startTime()}
     * @param elapsed            as {@link ProcessInfo#elapsed()}
     * @param cpuTime            as {@link ProcessInfo#cpuTime()}
     * @param cgroup             its cgroups, null when not read
     * @param owner              whose process it is, flat
     */
    record Row(long pid, long ppid, long uid, String user, ProcessState state, String comm, int threads,
               long rssBytes, long vszBytes, double lifetimeCpuPercent, Instant startTime, Duration elapsed,
               Duration cpuTime, Optional<Owners.Cgroup> cgroup, @JsonUnwrapped Owners.Fields owner) {
        static Row of(ProcessInfo p, PodNames names) {
            return new Row(p.pid(), p.ppid(), p.uid(), PsCommand.user(p), p.state(), p.comm(), p.threads(), p.rssBytes(),
                    p.vszBytes(), Math.round(p.lifetimeCpuPercent() * 10) / 10.0, p.startTime(), p.elapsed(),
                    p.cpuTime(), Owners.Cgroup.of(p), Owners.Fields.of(p.owner(), names));
        }
    }

    /**
     * A group of {@code ps --by-user}.
     *
     * @param user      the user's name, or the uid when it has none
     * @param uid       the uid
     * @param processes how many processes
     * @param rssBytes  their resident memory together
     */
    record UserGroup(String user, long uid, long processes, long rssBytes) {
    }

    /**
     * A group of {@code ps --by-pod}: the pod's UID and QoS class (null outside pods), and its Kubernetes
     * namespace and name when the runtime names it (absent otherwise).
     *
     * @param podUid    as {@link Owner#podUid()}
     * @param qosClass  as {@link Owner#qosClass()}
     * @param namespace the pod's namespace, or null
     * @param pod       the pod's name, or null
     * @param processes how many processes
     * @param rssBytes  their resident memory together
     */
    record PodGroup(Optional<String> podUid, Optional<QosClass> qosClass,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String namespace,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String pod, long processes, long rssBytes) {
    }

    /**
     * A group of {@code ps --by-container}.
     *
     * @param container the container (null outside containers)
     * @param processes how many processes
     * @param rssBytes  their resident memory together
     */
    record ContainerGroup(Optional<Owners.ContainerJson> container, long processes, long rssBytes) {
    }

    /**
     * The JSON of {@code ps --by-…}: the groups, and the processes the snapshot left out.
     *
     * @param groups  the groups, largest first
     * @param leftOut what the snapshot left out, flat
     */
    record Groups(List<?> groups, @JsonUnwrapped Json.LeftOut leftOut) {
    }

    /** Totals per container (or pod): processes and RSS, largest first; processes outside any as {@code -}. */
    private void printByWorkload(Context ctx, List<ProcessInfo> list, boolean pods, ProcessSnapshot snapshot,
                                 PodNames names) {
        Map<String, long[]> totals = new TreeMap<>();
        Map<String, ProcessInfo> sample = new TreeMap<>();
        for (ProcessInfo p : list) {
            String key = (pods ? Owners.podKey(p) : Owners.containerKey(p)).orElse("-");
            long[] t = totals.computeIfAbsent(key, k -> new long[2]);
            t[0]++;
            t[1] += p.rssBytes();
            sample.putIfAbsent(key, p);
        }
        List<Map.Entry<String, long[]>> rows = new ArrayList<>(totals.entrySet());
        rows.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed()
                .thenComparing(Map.Entry::getKey));
        if (ctx.json()) {
            List<Object> groups = new ArrayList<>();
            for (var e : rows) {
                ProcessInfo s = sample.get(e.getKey());
                boolean outside = e.getKey().equals("-");
                var named = outside ? Optional.<io.github.procscope.api.kubernetes.PodContainer>empty()
                        : names.of(s.owner());
                if (pods) {
                    groups.add(new PodGroup(outside ? Optional.empty() : s.owner().flatMap(Owner::podUid),
                            outside ? Optional.empty() : s.owner().flatMap(Owner::qosClass),
                            named.map(n -> n.namespace()).orElse(null), named.map(n -> n.pod()).orElse(null),
                            e.getValue()[0], e.getValue()[1]));
                } else {
                    groups.add(new ContainerGroup(Owners.ContainerJson.of(outside ? Optional.empty() : s.owner(),
                            names), e.getValue()[0], e.getValue()[1]));
                }
            }
            ctx.printJson(Json.of(new Groups(groups, Json.LeftOut.of(snapshot))));
            return;
        }
        // the Kubernetes names, in a column of their own, when the runtime names any of the rows
        boolean named = rows.stream().anyMatch(e -> !e.getKey().equals("-")
                && names.of(sample.get(e.getKey()).owner()).isPresent());
        Table t = pods ? new Table().left("POD").left("QOS") : new Table().left("CONTAINER").left("RUNTIME").left("POD");
        t.right("PROCESSES").right("RSS");
        if (named) {
            // last: a narrow terminal cuts the names, never the totals
            t.left(pods ? "NAMESPACE/NAME" : "NAMESPACE/POD/CONTAINER");
        }
        for (var e : rows) {
            ProcessInfo s = sample.get(e.getKey());
            var o = e.getKey().equals("-") ? Optional.<Owner>empty() : s.owner();
            List<Object> cells = new ArrayList<>();
            if (pods) {
                cells.add(e.getKey());
                cells.add(o.flatMap(Owner::qosClass).map(Owners::qosName).orElse("-"));
            } else {
                cells.add(e.getKey().equals("-") ? "-" : e.getKey().substring(0, 12));
                cells.add(o.flatMap(Owner::runtime).map(r -> r.name().toLowerCase(Locale.ROOT)).orElse("-"));
                cells.add(o.flatMap(Owner::podUid).orElse("-"));
            }
            cells.add(e.getValue()[0]);
            cells.add(Units.bytes(e.getValue()[1]));
            if (named) {
                cells.add(names.of(o).map(n -> Table.printable(n.namespace() + "/" + n.pod()
                        + (pods ? "" : "/" + n.container()))).orElse("-"));
            }
            t.row(cells.toArray());
        }
        t.print(ctx.out(), ctx.width());
    }

    private void printByUser(Context ctx, List<ProcessInfo> list, ProcessSnapshot snapshot) {
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
            ctx.printJson(Json.of(new Groups(rows.stream().map(e -> new UserGroup(e.getKey(), e.getValue()[2],
                    e.getValue()[0], e.getValue()[1])).toList(), Json.LeftOut.of(snapshot))));
            return;
        }
        Table t = new Table().left("USER").right("PROCESSES").right("RSS");
        for (var e : rows) {
            t.row(e.getKey(), e.getValue()[0], Units.bytes(e.getValue()[1]));
        }
        t.print(ctx.out(), ctx.width());
    }

    private boolean selected(ProcessInfo p) {
        if (!pids.isEmpty() && !pids.contains(p.pid())) {
            return false;
        }
        if (states != null && !states.contains(p.state().letter())) {
            return false;
        }
        if (!users.isEmpty()) {
            String name = p.user().orElse("");
            String uid = Long.toString(p.uid());
            return users.stream().anyMatch(u -> u.equals(name) || u.equals(uid));
        }
        return true;
    }

    /**
     * @return whether a {@code --user} value names a user: a uid, the user of a process, or a name the system's
     *         user database knows
     */
    static boolean knownUser(String u, ProcessSnapshot snapshot) {
        if (!u.isEmpty() && u.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return true;
        }
        if (snapshot.processes().stream().anyMatch(p -> p.user().filter(u::equals).isPresent())) {
            return true;
        }
        try {
            java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(u);
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false; // UserPrincipalNotFoundException, or a name the lookup refuses
        }
    }

    static String user(ProcessInfo p) {
        return p.user().orElse(Long.toString(p.uid()));
    }

    /** @return the user as ps's USER column shows it: at most 8 characters, a longer name cut with {@code +} */
    static String shortUser(ProcessInfo p) {
        String u = user(p);
        return u.length() <= 8 ? u : u.substring(0, 7) + "+";
    }

    /**
     * @return whether the process has pages locked in memory ({@code VmLck} of {@code /proc/PID/status} above
     *         0), read only for a process that has an address space: a kernel thread or a zombie has none, so
     *         locks none. One read of {@code status} (and of {@code stat}, to check that the pid still names the
     *         process listed) per such process shown; a process that ended or hides its status since the
     *         listing shows no {@code L}
     */
    static boolean locksMemory(Context ctx, ProcessInfo p) {
        if (p.isKernelThread() || p.state() == ProcessState.ZOMBIE || p.state() == ProcessState.DEAD) {
            return false;
        }
        try {
            return ctx.procfs().status(p.key()).memory().lockedBytes().orElse(0) > 0;
        } catch (io.github.procscope.api.core.ProcscopeException e) {
            return false; // gone, hidden or malformed since the listing: nothing to show
        }
    }

    /**
     * The STAT column: the state letter, then ps's flags in the order procps prints them: {@code <} or
     * {@code N}, {@code L}, {@code s}, {@code l}, {@code +}.
     *
     * @param p      the process
     * @param locked whether it has pages locked in memory ({@link #locksMemory})
     * @return the column's text
     */
    static String stat(ProcessInfo p, boolean locked) {
        StringBuilder sb = new StringBuilder().append(p.state().letter());
        if (p.nice() < 0) {
            sb.append('<');
        } else if (p.nice() > 0) {
            sb.append('N');
        }
        if (locked) {
            sb.append('L');
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

    private static Map<String, Comparator<ProcessInfo>> keys() {
        Map<String, Comparator<ProcessInfo>> m = new TreeMap<>();
        m.put("pid", Comparator.comparingLong(ProcessInfo::pid));
        m.put("ppid", Comparator.comparingLong(ProcessInfo::ppid));
        m.put("user", Comparator.comparing(PsCommand::user));
        m.put("state", Comparator.comparing(p -> p.state().letter()));
        m.put("rss", Comparator.comparingLong(ProcessInfo::rssBytes));
        m.put("vsz", Comparator.comparingLong(ProcessInfo::vszBytes));
        m.put("threads", Comparator.comparingInt(ProcessInfo::threads));
        m.put("elapsed", Comparator.comparing(ProcessInfo::elapsed));
        m.put("cpu", Comparator.comparingDouble(ProcessInfo::lifetimeCpuPercent));
        m.put("comm", Comparator.comparing(ProcessInfo::comm));
        return m;
    }

    /** {@code rss}, {@code +rss} or {@code -rss}; an unknown key is refused with the list of keys. */
    static final class SortConverter implements CommandLine.ITypeConverter<Comparator<ProcessInfo>> {
        @Override
        public Comparator<ProcessInfo> convert(String spec) {
            String s = spec.strip();
            boolean desc = s.startsWith("-");
            String key = (desc || s.startsWith("+") ? s.substring(1) : s).toLowerCase(Locale.ROOT);
            Comparator<ProcessInfo> c = KEYS.get(key);
            if (c == null) {
                throw new CommandLine.TypeConversionException("unknown sort key '" + spec + "': use one of "
                        + String.join(", ", KEYS.keySet()) + ", with - before it for descending");
            }
            return desc ? c.reversed() : c;
        }
    }

    /** State letters, each one the kernel uses; anything else is refused with the list of letters. */
    static final class StatesConverter implements CommandLine.ITypeConverter<Set<Character>> {
        @Override
        public Set<Character> convert(String value) {
            Set<Character> out = new LinkedHashSet<>();
            for (char c : value.strip().toCharArray()) {
                if (ProcessState.fromLetter(c).isEmpty()) {
                    StringBuilder known = new StringBuilder();
                    for (ProcessState s : ProcessState.values()) {
                        known.append(s.letter());
                    }
                    throw new CommandLine.TypeConversionException("'" + c + "' is not a process state: use letters of "
                            + known + " (R running, S sleeping, D disk sleep, Z zombie, T stopped, I idle)");
                }
                out.add(c);
            }
            if (out.isEmpty()) {
                throw new CommandLine.TypeConversionException("give at least one state letter, e.g. Z or DR");
            }
            return out;
        }
    }
}
