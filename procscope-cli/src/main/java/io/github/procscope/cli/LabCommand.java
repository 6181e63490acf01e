package io.github.procscope.cli;

import io.github.procscope.cli.lab.Lab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code procscope lab --out DIR}: the eight steps of "See a Process With Your Own Eyes", run for real. */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = {"Run the lab \"See a Process With Your Own Eyes\" for real.",
                "It makes a process tree, threads, a zombie, an orphan, reserved-but-untouched memory,",
                "a deleted-but-open file and a TERM-surviving process happen, observes them, and writes",
                "01-tree.txt ... 08-notes.md and lab.json to DIR, a new or empty directory.",
                "Everything it starts, it ends by pid, also on failure or Ctrl-C."},
        footer = {"", "Examples:", "  procscope lab --out lab-results",
                "  procscope lab --out lab-results --scratch /mnt/small   (step 6's 64 MiB file goes there)"})
final class LabCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Where the eight files and lab.json go: a new or empty directory.")
    Path out;

    @Option(names = "--scratch", paramLabel = "DIR",
            description = "Where step 6 writes its 64 MiB file; its file system's free space is watched (default: DIR).")
    Path scratch;

    @Override
    public Integer call() {
        Context ctx = root.context();
        Map<String, Object> facts = new Lab(out, scratch != null ? scratch : out, ctx.procfs()).run();
        if (ctx.json()) {
            ctx.printJson(Context.mapper().valueToTree(facts));
        } else {
            ctx.out().println("lab written to " + out.toAbsolutePath() + ":");
            for (String f : new String[] {"01-tree.txt", "02-threads.txt", "03-zombie.txt", "04-orphan.txt",
                    "05-memory.txt", "06-deleted.txt", "07-signal.txt", "08-notes.md", "lab.json"}) {
                ctx.out().println("  " + f);
            }
        }
        return ProcscopeCli.OK;
    }
}
