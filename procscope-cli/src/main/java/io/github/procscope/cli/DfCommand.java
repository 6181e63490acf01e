package io.github.procscope.cli;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.system.SystemResources;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/** {@code procscope df [--inodes] [PATH...]}: file systems with their space or inodes, as {@code df} shows them. */
@Command(name = "df", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show file systems with their space or inodes, like df.",
                "Size, used, available and use%% like df -h, or inodes like df -i with --inodes. Use%% is "
                        + "used / (used + available), rounded up, as df computes it: the blocks reserved for root do "
                        + "not count as available. A disk can be full with free blocks when it runs out of inodes "
                        + "(many small files): check --inodes.",
                "Pseudo file systems (proc, sysfs, cgroup...) and repeated mounts of one device are left "
                        + "out unless --all is given. Mount points come from the procfs root's self/mountinfo, their "
                        + "figures from statvfs(2)."},
        footer = {"", "Examples:", "  procscope df", "  procscope df --inodes /data", "  procscope --json df --all"})
final class DfCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = {"-i", "--inodes"}, description = "Show inodes instead of space (df -i).")
    boolean inodes;

    @Option(names = {"-a", "--all"}, description = "Include pseudo file systems and repeated mounts.")
    boolean all;

    @Parameters(arity = "0..*", paramLabel = "PATH", description = "Only the file systems holding these paths.")
    List<Path> paths = List.of();

    @Override
    public Integer call() {
        Context ctx = root.context();
        SystemResources res = ctx.resources();
        List<FileSystemUsage> list = new ArrayList<>();
        if (!paths.isEmpty()) {
            for (Path p : paths) {
                list.add(res.fileSystem(p));
            }
        } else {
            list = all ? res.fileSystems() : dfDefault(res.fileSystems());
        }
        if (ctx.json()) {
            ctx.printJson(Json.of(list.stream().map(DfCommand::row).toList()));
            return ProcscopeCli.OK;
        }
        Table t;
        if (inodes) {
            t = new Table().left("Filesystem").left("Type").right("Inodes").right("IUsed").right("IFree").right("IUse%")
                    .left("Mounted on");
            for (FileSystemUsage f : list) {
                t.row(f.mount().source(), f.mount().fsType(), f.inodes(), f.inodesUsed(), f.inodesFree(),
                        percent(f.inodeUsePercent()), f.mountPoint());
            }
        } else {
            t = new Table().left("Filesystem").left("Type").right("Size").right("Used").right("Avail").right("Use%")
                    .left("Mounted on");
            for (FileSystemUsage f : list) {
                t.row(f.mount().source(), f.mount().fsType(), Units.bytes(f.sizeBytes()), Units.bytes(f.usedBytes()),
                        Units.bytes(f.availableBytes()), percent(f.usePercent()), f.mountPoint());
            }
        }
        t.print(ctx.out(), ctx.width());
        return ProcscopeCli.OK;
    }

    /**
     * @return what {@code df} shows without {@code -a}: no pseudo file systems, and one entry per device (the
     *         mount with the shortest mount point, the first of equals), in mount order
     */
    static List<FileSystemUsage> dfDefault(List<FileSystemUsage> all) {
        Map<DeviceNumber, FileSystemUsage> byDevice = new LinkedHashMap<>();
        for (FileSystemUsage f : all) {
            if (f.isPseudo()) {
                continue;
            }
            FileSystemUsage prior = byDevice.get(f.mount().device());
            if (prior == null || f.mountPoint().length() < prior.mountPoint().length()) {
                byDevice.put(f.mount().device(), f);
            }
        }
        List<FileSystemUsage> out = new ArrayList<>();
        for (FileSystemUsage f : all) {
            if (byDevice.get(f.mount().device()) == f) {
                out.add(f);
            }
        }
        return out;
    }

    /** A file system as {@code df --json} writes it, one field per component: df's columns, the mount flat. */
    record Row(String mountPoint, String fsType, String source, long sizeBytes, long usedBytes, long availableBytes,
               OptionalInt usePercent, long inodes, long inodesUsed, long inodesFree, OptionalInt inodeUsePercent,
               boolean readOnly) {
    }

    private static Row row(FileSystemUsage f) {
        return new Row(f.mountPoint(), f.mount().fsType(), f.mount().source(), f.sizeBytes(), f.usedBytes(),
                f.availableBytes(), f.usePercent(), f.inodes(), f.inodesUsed(), f.inodesFree(), f.inodeUsePercent(),
                f.readOnly());
    }

    private static String percent(OptionalInt p) {
        return p.isPresent() ? p.getAsInt() + "%" : "-";
    }
}
