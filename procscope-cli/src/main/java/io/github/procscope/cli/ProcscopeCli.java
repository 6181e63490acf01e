package io.github.procscope.cli;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.gpu.GpuUnavailableException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code procscope}: processes, memory, files, signals and GPUs of this machine, as a person reads
 * them or as JSON for scripts.
 */
@Command(name = "procscope",
        mixinStandardHelpOptions = true,
        versionProvider = ProcscopeCli.Version.class,
        sortOptions = false,
        description = {"See processes, memory, files, disks and GPUs; stop process trees safely.",
                "Without a subcommand: an overview of this machine.",
                "Exit status: 0 success; 1 the target does not exist or may not be read; 2 bad usage; 3 "
                        + "(gpu) no GPU can be used; 4 malformed kernel data (a procfs or sysfs file that is "
                        + "not what the kernel writes)."},
        footer = {"", "Examples:", "  procscope                     overview",
                "  procscope ps --sort=-rss      processes, largest resident memory first",
                "  procscope --json tree 1       the process tree under PID 1, as JSON",
                "  procscope watch 4121          memory, CPU and GPU of a run over time"})
public final class ProcscopeCli implements Callable<Integer> {
    /** Success. */
    public static final int OK = 0;
    /** The target does not exist or may not be read. */
    public static final int NOT_FOUND = 1;
    /** Bad usage. */
    public static final int USAGE = 2;
    /** {@code gpu}: NVML is unavailable (no driver, no GPU, no permission). */
    public static final int GPU_UNAVAILABLE = 3;
    /** A procfs or sysfs file is malformed, not a regular file, or larger than the kernel writes. */
    public static final int KERNEL_DATA = 4;

    @Option(names = "--procfs-root", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "Read this procfs tree instead of /proc (a fixture, or another mount).")
    Path procfsRoot;

    @Option(names = "--sysfs-root", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "Read this sysfs tree instead of /sys.")
    Path sysfsRoot;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print JSON instead of a table.")
    boolean json;

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Name the processes a listing left out because their kernel files are malformed.")
    boolean verbose;

    /**
     * The subcommands by name, in the order the help lists them. Only the one a command line names is given to
     * picocli (building the model of every subcommand by reflection is most of a short command's start-up);
     * the help and a typo get them all, the overview and the version none.
     * {@code SubcommandTableTest} holds each name to its class's {@code @Command} name.
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands(PsCommand.class, "ps", TreeCommand.class, "tree",
            ThreadsCommand.class, "threads", MapsCommand.class, "maps", FdsCommand.class, "fds",
            DeletedCommand.class, "deleted", FreeCommand.class, "free", DfCommand.class, "df", DuCommand.class,
            "du", IostatCommand.class, "iostat", SignalsCommand.class, "signals", StopCommand.class, "stop",
            GpuCommand.class, "gpu", WatchCommand.class, "watch", EventsCommand.class, "events",
            DemoTrainCommand.class, "demo-train", DoctorCommand.class, "doctor", LabCommand.class, "lab",
            ServeCommand.class, "serve", RunCommand.class, "run", JobsCommand.class, "jobs", LogsCommand.class,
            "logs", CommandLine.HelpCommand.class, "help");

    /** The global options that take a value as the next argument. */
    private static final Set<String> GLOBAL_OPTIONS_WITH_VALUE = Set.of("--procfs-root", "--sysfs-root");

    private Context context;

    private static Map<String, Class<?>> subcommands(Object... classAndName) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (int i = 0; i < classAndName.length; i += 2) {
            m.put((String) classAndName[i + 1], (Class<?>) classAndName[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * @param args a command line
     * @return the subcommands picocli needs for it: the one it names before any other positional argument; all
     *         of them for the help, or when it names something else (so that picocli's message can list them);
     *         none for the overview or the version
     */
    static Collection<Class<?>> subcommandsFor(String... args) {
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return SUBCOMMANDS.values();
            }
            if (a.startsWith("-")) {
                if (GLOBAL_OPTIONS_WITH_VALUE.contains(a)) {
                    i++;
                }
                // -h, --help, or a cluster of short options with h in it (-Vh)
                help |= a.equals("--help") || (!a.startsWith("--") && a.indexOf('h') > 0);
                continue;
            }
            Class<?> named = SUBCOMMANDS.get(a);
            return named == null || named == CommandLine.HelpCommand.class ? SUBCOMMANDS.values() : List.of(named);
        }
        // No subcommand: the help lists them all; the overview and the version need none.
        return help ? SUBCOMMANDS.values() : List.of();
    }

    /** Runs the tool and exits with its status. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(out, err, System.console() != null, Table.terminalWidth(), args));
    }

    /**
     * Runs the tool without exiting, for tests and embedding; standard output counts as not a terminal, 80
     * columns wide.
     *
     * @param out  where results go
     * @param err  where errors go (one line each)
     * @param args the command line
     * @return the exit status
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        return run(out, err, false, 80, args);
    }

    static int run(PrintStream out, PrintStream err, boolean terminal, int width, String... args) {
        ProcscopeCli root = new ProcscopeCli();
        CommandLine cl = new CommandLine(root);
        for (Class<?> sub : subcommandsFor(args)) {
            cl.addSubcommand(sub);
        }
        HelpLayout.apply(cl, width, terminal && System.getenv("COLUMNS") == null);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionStrategy(parseResult -> {
            for (CommandLine.ParseResult pr = parseResult; pr != null; pr = pr.subcommand()) {
                if (!pr.unmatched().isEmpty()) {
                    // picocli lets a help command through with arguments it did not match; refuse them.
                    String name = pr.commandSpec().name();
                    err.println("procscope" + (name.equals("procscope") ? "" : " " + name) + ": unknown option or"
                            + " argument '" + pr.unmatched().get(0) + "' (see 'procscope --help')");
                    return USAGE;
                }
            }
            Integer help = CommandLine.executeHelpRequest(parseResult);
            if (help != null) {
                return help;
            }
            root.context = new Context(root.procfsRoot, root.sysfsRoot, root.json, out, err, terminal, width);
            root.context.verbose(root.verbose);
            Object command = parseResult.asCommandLineList().get(parseResult.asCommandLineList().size() - 1).getCommand();
            if (!(command instanceof DemoTrainCommand)) {
                try {
                    root.context.validate();
                } catch (ProcfsUnavailableException e) {
                    err.println("procscope: " + message(e));
                    return USAGE;
                } catch (RuntimeException e) {
                    // The root's stat or uptime refused (a FIFO, a device, too large) or malformed: one line, and
                    // the exit status of what it is, as when a subcommand meets it.
                    err.println("procscope: " + message(e));
                    return exitStatus(e);
                }
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println(usageError(ex));
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            err.println("procscope" + (cmd.getCommandName().equals("procscope") ? "" : " " + cmd.getCommandName())
                    + ": " + message(ex));
            return exitStatus(ex);
        });
        return cl.execute(args);
    }

    /**
     * @param ex a command line picocli could not parse
     * @return one line that says what was wrong: an unknown subcommand or option by its own name only (never a
     *         value that followed it), with the names it most resembles
     */
    static String usageError(CommandLine.ParameterException ex) {
        CommandLine cmd = ex.getCommandLine();
        String name = cmd.getCommandName().equals("procscope") ? "procscope" : "procscope " + cmd.getCommandName();
        String see = " (see '" + name + " --help')";
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            List<String> unmatched = u.getUnmatched();
            String option = unmatched.stream().filter(s -> s.startsWith("-") && s.length() > 1).findFirst()
                    .orElse(null);
            boolean root = cmd.getCommandName().equals("procscope");
            if (root && !unmatched.get(0).startsWith("-")) {
                String typo = unmatched.get(0);
                return "procscope: unknown subcommand '" + typo + "'"
                        + didYouMean(typo, cmd.getSubcommands().keySet()) + " (see 'procscope --help' for the list)";
            }
            if (option != null) {
                String typed = option.contains("=") ? option.substring(0, option.indexOf('=')) : option;
                List<String> names = new java.util.ArrayList<>();
                cmd.getCommandSpec().options().stream().filter(o -> !o.hidden())
                        .forEach(o -> names.addAll(List.of(o.names())));
                return name + ": unknown option '" + typed + "'" + didYouMean(typed, names) + see;
            }
            return name + ": unexpected argument '" + unmatched.get(0) + "'" + see;
        }
        return name + ": " + oneLine(ex.getMessage()) + see;
    }

    /** @return {@code "; did you mean 'x'?"} naming the closest candidates, or nothing when none is close */
    static String didYouMean(String typed, Collection<String> candidates) {
        int best = Integer.MAX_VALUE;
        List<String> closest = new java.util.ArrayList<>();
        for (String c : new java.util.LinkedHashSet<>(candidates)) {
            int d = distance(typed, c);
            if (d < best) {
                best = d;
                closest.clear();
            }
            if (d == best) {
                closest.add(c);
            }
        }
        String bare = typed.replaceFirst("^-+", "");
        if (closest.isEmpty() || best > Math.max(2, bare.length() / 3)) {
            return "";
        }
        return "; did you mean " + String.join(" or ", closest.stream().map(c -> "'" + c + "'").toList()) + "?";
    }

    /** @return the edit distance of two strings (insertions, deletions, substitutions, each 1) */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** @return the exception's message on one line, or its type when it has none */
    static String message(Throwable ex) {
        String m = ex.getMessage();
        return m == null || m.isBlank() ? ex.getClass().getSimpleName() : oneLine(m);
    }

    private static String oneLine(String s) {
        return s.strip().replace("\r", "").replace('\n', ' ');
    }

    static int exitStatus(Throwable ex) {
        if (ex instanceof GpuUnavailableException) {
            return GPU_UNAVAILABLE;
        }
        if (ex instanceof NoSuchProcessException || ex instanceof ProcessAccessDeniedException) {
            return NOT_FOUND;
        }
        if (ex instanceof io.github.procscope.api.core.ProcfsParseException
                || ex instanceof io.github.procscope.api.core.ProcfsFileRefusedException) {
            return KERNEL_DATA;
        }
        if (ex instanceof ProcfsUnavailableException || ex instanceof IllegalArgumentException
                || ex instanceof CommandLine.ParameterException) {
            return USAGE;
        }
        return NOT_FOUND;
    }

    /** @return the resolved global options, for subcommands */
    Context context() {
        return context;
    }

    @Override
    public Integer call() {
        return new Overview(context).print();
    }

    /** The tool's version, from {@code version.properties}, which the build fills in with the project's version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = ProcscopeCli.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // fall through to the manifest
            }
            String v = Optional.ofNullable(p.getProperty("version")).filter(s -> !s.startsWith("$"))
                    .or(() -> Optional.ofNullable(ProcscopeCli.class.getPackage().getImplementationVersion()))
                    .orElse("(version unknown: not built by Maven)");
            return new String[] {"procscope " + v};
        }
    }
}
