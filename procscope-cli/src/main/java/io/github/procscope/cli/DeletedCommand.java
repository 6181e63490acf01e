package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** {@code procscope deleted}: deleted files still held open, as {@code lsof +L1} lists them. */
@Command(name = "deleted", mixinStandardHelpOptions = true,
        description = {"Find deleted files still held open (lsof +L1).",
                "A deleted file's blocks stay allocated until the last process holding it closes it or "
                        + "exits: this is the gap between df (which counts them) and du (which cannot see them). "
                        + "totalAllocatedBytes is the space they hold, each file counted once; it comes back when the holders "
                        + "end.",
                "Without root, other users' processes cannot be read: they are counted and their pids "
                        + "listed."},
        footer = {"", "Examples:", "  procscope deleted", "  procscope --json deleted"})
final class DeletedCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Override
    public Integer call() {
        Context ctx = root.context();
        DeletedFilesScan scan = ctx.openFiles().deletedFiles();
        if (ctx.json()) {
            ctx.printJson(json(scan));
        } else {
            print(ctx.out(), scan, ctx.width());
        }
        return ProcscopeCli.OK;
    }

    static ObjectNode json(DeletedFilesScan scan) {
        ObjectNode o = Json.object();
        ArrayNode holders = o.putArray("files");
        for (DeletedFile f : scan.files()) {
            ObjectNode h = holders.addObject();
            h.put("pid", f.pid());
            h.put("comm", f.comm());
            h.put("fd", f.fd());
            h.put("path", f.path());
            h.put("sizeBytes", f.sizeBytes());
            h.put("allocatedBytes", f.allocatedBytes());
        }
        o.put("totalAllocatedBytes", scan.totalAllocatedBytes());
        ArrayNode fs = o.putArray("fileSystems");
        for (DeletedSpace s : scan.fileSystems()) {
            ObjectNode n = fs.addObject();
            Json.putText(n, "mountPoint", s.mountPoint());
            Json.putText(n, "fsType", s.fsType());
            n.put("files", s.files());
            n.put("sizeBytes", s.sizeBytes());
            n.put("allocatedBytes", s.allocatedBytes());
        }
        o.put("processesScanned", scan.processesScanned());
        ArrayNode unreadable = o.putArray("unreadablePids");
        scan.unreadablePids().forEach(unreadable::add);
        return o;
    }

    private static void print(PrintStream out, DeletedFilesScan scan, int width) {
        if (scan.files().isEmpty()) {
            out.println("No deleted file is held open" + (scan.complete() ? "." : " by the processes that could be read."));
        } else {
            Table t = new Table().right("PID").left("COMMAND").right("FD").right("SIZE").left("PATH");
            for (DeletedFile f : scan.files()) {
                t.row(f.pid(), f.comm(), f.fd(), Units.bytes(f.sizeBytes()), f.path() + " (deleted)");
            }
            t.print(out, width);
            out.println();
            for (DeletedSpace s : scan.fileSystems()) {
                Table.wrap(out, String.format("%s held on %s (%s): %d file(s); it comes back when the holders close"
                        + " them or end", Units.bytes(s.allocatedBytes()), s.mountPoint().orElse("device " + s.device()),
                        s.fsType().orElse("?"), s.files()), "  ", width);
            }
        }
        if (!scan.complete()) {
            Table.wrap(out, scan.unreadablePids().size() + " process(es) could not be read: their descriptors are"
                    + " refused (another user's, or protected even from root); pids "
                    + scan.unreadablePids().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" ")),
                    "  ", width);
        }
    }
}
