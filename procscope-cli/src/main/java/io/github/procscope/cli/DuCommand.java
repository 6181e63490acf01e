package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.disk.DirectoryTotal;
import io.github.procscope.api.disk.DirectoryUsage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code procscope du PATH [--top N]}: disk usage under a directory and its largest subdirectories. */
@Command(name = "du", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure disk usage under a directory, like du -x.",
                "SIZE is the space the files take on disk (allocated blocks, each hard-linked file once, "
                        + "without crossing into other file systems); APPARENT is the sum of their sizes (du -b): "
                        + "smaller for sparse files, larger for many tiny ones. The largest directories are listed, "
                        + "nested ones included.",
                "If df says a disk is fuller than du can account for, deleted files may still be held "
                        + "open: see 'procscope deleted'."},
        footer = {"", "Examples:", "  procscope du /var --top 5", "  procscope --json du /data/checkpoints"})
final class DuCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PATH", description = "The directory to measure.")
    Path path;

    @Option(names = "--top", paramLabel = "N", description = "How many of the largest directories to list (default: 10).")
    int top = 10;

    @Override
    public Integer call() {
        if (top < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--top must be 0 or more, not " + top);
        }
        Context ctx = root.context();
        DirectoryUsage u = ctx.resources().directoryUsage(path, top);
        if (ctx.json()) {
            ctx.printJson(json(u));
        } else {
            print(ctx.out(), u, ctx.width());
        }
        return ProcscopeCli.OK;
    }

    static JsonNode json(DirectoryUsage u) {
        return Json.of(new View(u.root(), u));
    }

    /**
     * {@code du}'s JSON: the directory examined, then the {@link DirectoryUsage} record's components, flat.
     *
     * @param root  as {@link DirectoryUsage#root()}
     * @param usage the usage
     */
    record View(Path root, @JsonUnwrapped DirectoryUsage usage) {
    }

    private static void print(PrintStream out, DirectoryUsage u, int width) {
        Table t = new Table().right("SIZE").right("APPARENT").left("PATH");
        t.row(Units.bytes(u.total().allocatedBytes()), Units.bytes(u.total().apparentBytes()), u.root() + " (total)");
        for (DirectoryTotal d : u.largest()) {
            t.row(Units.bytes(d.allocatedBytes()), Units.bytes(d.apparentBytes()), d.path());
        }
        t.print(out, width);
        out.printf("%d file(s) in %d director%s%n", u.files(), u.directories(), u.directories() == 1 ? "y" : "ies");
        if (!u.unreadable().isEmpty()) {
            out.println(u.unreadable().size() + " director" + (u.unreadable().size() == 1 ? "y" : "ies")
                    + " could not be read (not counted), e.g. " + u.unreadable().get(0));
        }
        if (!u.otherFileSystems().isEmpty()) {
            out.println(u.otherFileSystems().size() + " mount point(s) of other file systems not entered, e.g. "
                    + u.otherFileSystems().get(0));
        }
    }
}
