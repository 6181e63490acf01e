package io.github.procscope.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.system.SystemResources;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The global options of one invocation, resolved into readers that all share the same roots: every reader
 * comes from one {@link Procscope} over {@code --procfs-root} and {@code --sysfs-root}, so that a fixture tree
 * reaches them all.
 */
final class Context {
    private static final Path PROC = Path.of("/proc");
    private static final Path SYS = Path.of("/sys");

    private final Path procfsRoot;
    private final Path sysfsRoot;
    private final boolean json;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean stdoutIsTerminal;
    private final int width;
    private Procscope scope;

    Context(Path procfsRoot, Path sysfsRoot, boolean json, PrintStream out, PrintStream err, boolean stdoutIsTerminal,
            int width) {
        this.procfsRoot = procfsRoot;
        this.sysfsRoot = sysfsRoot;
        this.json = json;
        this.out = out;
        this.err = err;
        this.stdoutIsTerminal = stdoutIsTerminal;
        this.width = width;
    }

    /**
     * Checks the roots before a subcommand runs: the procfs root must be a procfs (it has {@code stat} with a
     * {@code btime} line and {@code uptime}), the sysfs root a directory.
     *
     * @throws ProcfsUnavailableException naming the root and what is wrong with it
     */
    void validate() {
        procfs();
        if (sysfsRoot != null && !Files.isDirectory(sysfsRoot)) {
            throw new ProcfsUnavailableException(sysfsRoot, (Files.exists(sysfsRoot) ? "it is not a directory"
                    : "it does not exist") + " (--sysfs-root takes a sysfs tree such as /sys)");
        }
    }

    /** @return the front door over both roots, made once */
    synchronized Procscope scope() {
        if (scope == null) {
            scope = Procscope.at(procfsRoot(), sysfsRoot());
        }
        return scope;
    }

    /** @return the process table under {@code --procfs-root}, or the live one */
    ProcessTable procfs() {
        return scope().processes();
    }

    /** @return the memory, load and disk reader under both roots */
    SystemResources resources() {
        return scope().resources();
    }

    /** @return the process memory reader under the procfs root */
    ProcessMemory memory() {
        return scope().memory();
    }

    /** @return the open-file reader under the procfs root */
    OpenFiles openFiles() {
        return scope().openFiles();
    }

    /**
     * Opens the GPUs through NVML (the library named by the system property {@code procscope.nvml.library}, the
     * environment variable {@code PROCSCOPE_NVML_LIBRARY}, or the driver's); open device files are looked for
     * under the procfs root. Close it.
     *
     * @throws io.github.procscope.api.gpu.GpuUnavailableException if no GPU can be used, with the reason
     */
    Gpus openGpus() {
        return scope().openGpus();
    }

    /**
     * @param what the subcommand, for the message
     * @return a signal sender over the live process table
     * @throws IllegalArgumentException if {@code --procfs-root} names another tree: signals go to this system's
     *                                  processes, whose identities only the live {@code /proc} can check
     */
    Signals signals(String what) {
        if (!live()) {
            throw new IllegalArgumentException(what + " acts on this system's processes and checks each one's identity"
                    + " in /proc before it signals; it does not work with --procfs-root " + procfsRoot);
        }
        return scope().signals();
    }

    /**
     * The doctor over every source this invocation names: the process table, memory, file systems and
     * disks, open files, the GPUs, and the kernel log ({@code kmsg} when given, else {@code /dev/kmsg} for the
     * live system only: a fixture tree has no kernel log of its own).
     *
     * @param kmsg a kernel log in the kmsg format to read instead, or null
     * @param gpus whether to look at GPUs
     * @return the doctor
     */
    Doctor doctor(Path kmsg, boolean gpus) {
        Optional<KernelLog> log = kmsg != null ? Optional.of(scope().kernelLog(kmsg))
                : live() ? Optional.of(scope().kernelLog()) : Optional.empty();
        return scope().doctor(log, gpus);
    }

    /** @return whether the procfs root is this system's {@code /proc}, as the front door tells it */
    boolean live() {
        return scope().isLive();
    }

    /** @return the procfs root given, or {@code /proc} */
    Path procfsRoot() {
        return procfsRoot == null ? PROC : procfsRoot;
    }

    /** @return the sysfs root given, or {@code /sys} */
    Path sysfsRoot() {
        return sysfsRoot == null ? SYS : sysfsRoot;
    }

    boolean json() {
        return json;
    }

    private boolean verbose;

    /** @param verbose whether {@code --verbose} was given */
    void verbose(boolean verbose) {
        this.verbose = verbose;
    }

    /** @return whether {@code --verbose} was given */
    boolean verbose() {
        return verbose;
    }

    /**
     * Says on stderr how many processes a listing left out because their kernel files are malformed, and with
     * {@code --verbose} which and why; nothing when there are none.
     *
     * @param command the subcommand, for the message
     * @param s       the snapshot listed
     */
    void noteUnreadable(String command, io.github.procscope.api.process.ProcessSnapshot s) {
        if (s.unreadable().isEmpty()) {
            return;
        }
        err.println("procscope " + command + ": " + s.unreadable().size() + " process(es) left out: their kernel"
                + " files are malformed" + (verbose ? ":" : " (--verbose names them)"));
        if (verbose) {
            for (io.github.procscope.api.process.UnreadableProcess u : s.unreadable()) {
                err.println("  pid " + u.pid() + ": " + u.reason());
            }
        }
    }

    /**
     * Says in one line that a process is a zombie, when it is: a zombie has exited and holds no memory and no open
     * files until its parent reaps it, so an empty answer about it would mislead. Like a process that does not
     * exist, this is exit status 1.
     *
     * @param command the subcommand, for the message
     * @param pid     the process asked about, whose answer was empty
     * @param what    what it lacks, for the message ("holds no open files")
     * @return {@link ProcscopeCli#NOT_FOUND} after the line when it is a zombie, else {@code null} (the empty
     *         answer stands, or the process is gone and the next read says so)
     */
    Integer zombie(String command, long pid, String what) {
        io.github.procscope.api.process.ProcessInfo p;
        try {
            p = procfs().process(pid, java.util.Set.of());
        } catch (io.github.procscope.api.core.NoSuchProcessException e) {
            return null;
        }
        if (p.state() != io.github.procscope.api.process.ProcessState.ZOMBIE) {
            return null;
        }
        err.println("procscope " + command + ": process " + pid + " (" + Table.printable(p.comm()) + ") is a zombie:"
                + " it has exited and " + what + "; its parent " + p.ppid() + " has not reaped it yet");
        return ProcscopeCli.NOT_FOUND;
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    /** @return whether standard output is a terminal (a person watches), as far as the JVM can tell */
    boolean stdoutIsTerminal() {
        return stdoutIsTerminal;
    }

    /** @return how wide a table line may be: the terminal's {@code COLUMNS}, or 80 */
    int width() {
        return width;
    }

    /** Jackson's mappers, made when JSON is first printed: a table never loads Jackson. */
    private static final class Mappers {
        static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        static final ObjectMapper COMPACT = new ObjectMapper();
    }

    static ObjectMapper mapper() {
        return Mappers.MAPPER;
    }

    /** Prints a JSON document, indented. */
    void printJson(JsonNode node) {
        try {
            out.println(Mappers.MAPPER.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Prints a JSON document on one line (a row of a stream: JSON Lines). */
    void printJsonLine(JsonNode node) {
        try {
            out.println(Mappers.COMPACT.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
