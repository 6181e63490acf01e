package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
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

    static JsonNode json(DeletedFilesScan scan) {
        return Json.of(new View(scan.files().stream().map(f -> new FileRow(f.pid(), f.comm(), f.fd(), f.path(),
                f.sizeBytes(), f.allocatedBytes())).toList(), scan.totalAllocatedBytes(),
                scan.fileSystems().stream().map(s -> new Space(s.mountPoint(), s.fsType(), s.files(), s.sizeBytes(),
                        s.allocatedBytes())).toList(), scan.processesScanned(), scan.unreadablePids()));
    }

    /**
     * {@code deleted}'s JSON, named as {@link DeletedFilesScan}'s accessors; the instant of the scan is not written.
     *
     * @param files               the files, each with its holder's pid
     * @param totalAllocatedBytes as {@link DeletedFilesScan#totalAllocatedBytes()}
     * @param fileSystems         the space held per file system, the device by its mount point
     * @param processesScanned    as {@link DeletedFilesScan#processesScanned()}
     * @param unreadablePids      as {@link DeletedFilesScan#unreadablePids()}
     */
    record View(List<FileRow> files, long totalAllocatedBytes, List<Space> fileSystems, int processesScanned,
                List<Long> unreadablePids) {
    }

    /**
     * A deleted file held open, as {@link DeletedFile} (its holder by pid; device and inode are the library's).
     *
     * @param pid            the holder's pid ({@link DeletedFile#pid()})
     * @param comm           as {@link DeletedFile#comm()}
     * @param fd             as {@link DeletedFile#fd()}
     * @param path           as {@link DeletedFile#path()}
     * @param sizeBytes      as {@link DeletedFile#sizeBytes()}
     * @param allocatedBytes as {@link DeletedFile#allocatedBytes()}
     */
    record FileRow(long pid, String comm, int fd, String path, long sizeBytes, long allocatedBytes) {
    }

    /**
     * The space held on one file system, as {@link DeletedSpace}, named by its mount point.
     *
     * @param mountPoint     as {@link DeletedSpace#mountPoint()}
     * @param fsType         as {@link DeletedSpace#fsType()}
     * @param files          as {@link DeletedSpace#files()}
     * @param sizeBytes      as {@link DeletedSpace#sizeBytes()}
     * @param allocatedBytes as {@link DeletedSpace#allocatedBytes()}
     */
    record Space(Optional<String> mountPoint, Optional<String> fsType, int files, long sizeBytes,
                 long allocatedBytes) {
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
