package io.github.procscope.cli;

import io.github.procscope.api.files.FdKind;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFlag;
import io.github.procscope.api.files.OpenFlags;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/** {@code procscope fds PID}: the open files of a process, as {@code lsof -p PID} lists them. */
@Command(name = "fds", mixinStandardHelpOptions = true,
        description = {"List the open files of a process, like lsof -p PID.",
                "From /proc/PID/fd and fdinfo: the descriptor with lsof's mode letter (r, w, u), its type "
                        + "(REG file, DIR, CHR or BLK device, FIFO pipe, SOCK, a_inode such as eventfd or epoll), "
                        + "size, offset, open flags (the table leaves out O_ and O_LARGEFILE) and target.",
                "A file deleted while open is marked (deleted): its blocks stay allocated until the last "
                        + "descriptor closes. Another user's process needs root.",
                "A zombie (exited, not yet reaped) holds no open files: it is named as one, exit status 1, as for "
                        + "a process that does not exist."},
        footer = {"", "Examples:", "  procscope fds 4121", "  procscope --json fds 4121"})
final class FdsCommand implements Callable<Integer> {
    @Mixin
    ProcessTarget target;

    @Override
    public Integer call() {
        Context ctx = target.context();
        long pid = target.pid();
        List<OpenFd> fds = ctx.openFiles().fds(pid);
        if (fds.isEmpty()) {
            Integer zombie = ctx.zombie("fds", pid, "holds no open files");
            if (zombie != null) {
                return zombie;
            }
        }
        if (ctx.json()) {
            ctx.printJson(Json.of(fds.stream().map(FdsCommand::row).toList()));
            return ProcscopeCli.OK;
        }
        Table t = new Table().right("FD").left("TYPE").right("SIZE").right("OFFSET").left("FLAGS").left("TARGET");
        for (OpenFd fd : fds) {
            t.row(fd.fd() + mode(fd.flags()), type(fd.kind()),
                    fd.sizeBytes().isPresent() ? Long.toString(fd.sizeBytes().getAsLong()) : "-", fd.positionBytes(),
                    shortFlags(fd.flags()), fd.target());
        }
        t.print(ctx.out(), ctx.width());
        return ProcscopeCli.OK;
    }

    /**
     * An open file as {@code fds --json} writes it, one field per component: lsof's columns, the flags by name.
     */
    record Row(int fd, FdKind kind, String target, Optional<String> path, boolean deleted, OptionalLong sizeBytes,
               long positionBytes, List<String> flags) {
    }

    private static Row row(OpenFd fd) {
        return new Row(fd.fd(), fd.kind(), fd.target(), fd.path(), fd.deleted(), fd.sizeBytes(), fd.positionBytes(),
                flagNames(fd.flags()));
    }

    /** @return the access mode ({@code O_RDONLY}, {@code O_WRONLY}, {@code O_RDWR}), then the other flags */
    static List<String> flagNames(OpenFlags f) {
        List<String> out = new ArrayList<>();
        out.add(switch (f.accessMode()) {
            case READ_ONLY -> "O_RDONLY";
            case WRITE_ONLY -> "O_WRONLY";
            case READ_WRITE -> "O_RDWR";
            default -> f.accessMode().name();
        });
        for (OpenFlag flag : f.flags()) {
            out.add(flag.name());
        }
        return out;
    }

    /**
     * @return the flags for the table: without the access mode (the letter after the fd number says it), without
     *         {@code O_LARGEFILE} (every open of a 64-bit program has it) and without the {@code O_} prefix
     */
    private static String shortFlags(OpenFlags f) {
        List<String> out = new ArrayList<>();
        for (OpenFlag flag : f.flags()) {
            if (flag != OpenFlag.O_LARGEFILE) {
                out.add(flag.name().substring(2));
            }
        }
        return out.isEmpty() ? "-" : String.join(",", out);
    }

    /** @return lsof's mode letter after the fd number: r, w or u (read and write) */
    private static String mode(OpenFlags f) {
        return switch (f.accessMode()) {
            case READ_ONLY -> "r";
            case WRITE_ONLY -> "w";
            case READ_WRITE -> "u";
            default -> "";
        };
    }

    /** @return lsof's TYPE column */
    static String type(FdKind kind) {
        return switch (kind) {
            case REGULAR_FILE -> "REG";
            case DIRECTORY -> "DIR";
            case CHARACTER_DEVICE -> "CHR";
            case BLOCK_DEVICE -> "BLK";
            case PIPE -> "FIFO";
            case SOCKET -> "SOCK";
            case SYMLINK -> "LINK";
            case ANON_INODE -> "a_inode";
            case UNKNOWN -> "unknown";
        };
    }
}
