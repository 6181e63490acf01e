package io.github.procscope.examples.cli;

import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.ProcessAccessDeniedException;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.ProcfsUnavailableException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code procscope}: processes, memory, files, signals and GPUs of this machine, as a person reads
 * them or as JSON for scripts.
 */
@Command(name = "procscope",
        mixinStandardHelpOptions = true,
        versionProvider = ProcscopeCli.Version.class,
        sortOptions = false,
        description = {"See processes, memory, files and GPUs; stop process trees safely.",
                "Without a subcommand: an overview of this machine."},
        subcommands = {PsCommand.class, TreeCommand.class, ThreadsCommand.class, DoctorCommand.class, LabCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Examples:", "  procscope                     overview",
                "  procscope ps --sort=-rss      processes, largest resident memory first",
                "  procscope --json tree 1       the process tree under PID 1, as JSON"})
public final class ProcscopeCli implements Callable<Integer> {
    /** Success. */
    public static final int OK = 0;
    /** The target does not exist or may not be read. */
    public static final int NOT_FOUND = 1;
    /** Bad usage. */
    public static final int USAGE = 2;

    @Option(names = "--procfs-root", paramLabel = "DIR", description = "Read this procfs tree instead of /proc.")
    Path procfsRoot;

    @Option(names = "--sysfs-root", paramLabel = "DIR", description = "Read this sysfs tree instead of /sys.")
    Path sysfsRoot;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    private Context context;

    /** Runs the tool and exits with its status. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(out, err, args));
    }

    /**
     * Runs the tool without exiting, for tests and embedding.
     *
     * @param out  where results go
     * @param err  where errors go (one line each)
     * @param args the command line
     * @return the exit status
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        ProcscopeCli root = new ProcscopeCli();
        CommandLine cl = new CommandLine(root);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionStrategy(parseResult -> {
            root.context = new Context(root.procfsRoot, root.sysfsRoot, root.json, out);
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine cmd = ex.getCommandLine();
            err.println(cmd.getCommandName().equals("procscope") ? "procscope: " + ex.getMessage()
                    : "procscope " + cmd.getCommandName() + ": " + ex.getMessage()
                    + " (see 'procscope " + cmd.getCommandName() + " --help')");
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            err.println("procscope: " + message(ex));
            return exitStatus(ex);
        });
        return cl.execute(args);
    }

    static String message(Throwable ex) {
        String m = ex.getMessage();
        return m == null || m.isBlank() ? ex.getClass().getSimpleName() : m;
    }

    static int exitStatus(Throwable ex) {
        if (ex instanceof NoSuchProcessException || ex instanceof ProcessAccessDeniedException) {
            return NOT_FOUND;
        }
        if (ex instanceof ProcfsUnavailableException || ex instanceof IllegalArgumentException
                || ex instanceof CommandLine.ParameterException) {
            return USAGE;
        }
        if (ex instanceof ProcscopeException) {
            return NOT_FOUND;
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

    /** The tool's version, from the jar's manifest when packaged. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Optional.ofNullable(ProcscopeCli.class.getPackage().getImplementationVersion()).orElse("development build");
            return new String[] {"procscope " + v};
        }
    }
}
