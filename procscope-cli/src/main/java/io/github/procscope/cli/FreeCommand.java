package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.memory.AvailableSource;
import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.api.memory.SystemMemory;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/** {@code procscope free}: system memory as {@code free} shows it, and the cgroup's limit when there is one. */
@Command(name = "free", mixinStandardHelpOptions = true,
        description = {"Show memory, like free.",
                "From /proc/meminfo. 'available' is what new work can use without swapping: free memory "
                        + "plus the cache the kernel can drop. Low 'free' is normal (the kernel caches files in "
                        + "unused memory); low 'available' is memory pressure. used = total - available and "
                        + "buff/cache = Buffers + Cached + SReclaimable, as procps-ng 4 computes them.",
                "In a container the cgroup's limit is the real ceiling: it is shown when one applies."},
        footer = {"", "Examples:", "  procscope free", "  procscope --json free"})
final class FreeCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Override
    public Integer call() {
        Context ctx = root.context();
        SystemMemory m = ctx.resources().memory();
        Optional<CgroupMemory> cg = ctx.resources().cgroupMemory();
        if (ctx.json()) {
            ctx.printJson(json(m, cg));
        } else {
            print(ctx.out(), m, cg, ctx.width());
        }
        return ProcscopeCli.OK;
    }

    /** What {@code free --json} writes, one field per component: free's figures, and the cgroup's memory. */
    record View(long totalBytes, long freeBytes, long availableBytes, long usedBytes, long buffersBytes,
                long cacheBytes, long swapTotalBytes, long swapFreeBytes, OptionalLong sharedBytes,
                AvailableSource availableSource, Optional<CgroupView> cgroupMemory) {
    }

    /** The memory cgroup of {@link View}: its version and path, the limit that applies, usage and peak. */
    record CgroupView(CgroupVersion version, String cgroupPath, OptionalLong effectiveLimitBytes, long usageBytes,
                      OptionalLong peakBytes) {
    }

    static JsonNode json(SystemMemory m, Optional<CgroupMemory> cg) {
        return Json.of(new View(m.totalBytes(), m.freeBytes(), m.availableBytes(), m.usedBytes(), m.buffersBytes(),
                m.cacheBytes(), m.swapTotalBytes(), m.swapFreeBytes(), m.sharedBytes(), m.availableSource(),
                cg.map(c -> new CgroupView(c.version(), c.cgroupPath(), c.effectiveLimitBytes(), c.usageBytes(),
                        c.peakBytes()))));
    }

    private static void print(PrintStream out, SystemMemory m, Optional<CgroupMemory> cg, int width) {
        Table t = new Table().left("").right("total").right("used").right("free").right("shared")
                .right("buff/cache").right("available");
        t.row("Mem:", Units.bytes(m.totalBytes()), Units.bytes(m.usedBytes()), Units.bytes(m.freeBytes()),
                m.sharedBytes().isPresent() ? Units.bytes(m.sharedBytes().getAsLong()) : "-",
                Units.bytes(m.bufferCacheBytes()), Units.bytes(m.availableBytes()));
        t.row("Swap:", Units.bytes(m.swapTotalBytes()), Units.bytes(m.swapUsedBytes()), Units.bytes(m.swapFreeBytes()),
                "", "", "");
        t.print(out, width);
        if (m.availableSource() == AvailableSource.ESTIMATED) {
            out.println("(this kernel has no MemAvailable: 'available' is estimated as procps-ng 3.3 did)");
        } else if (m.availableSource() == AvailableSource.FREE) {
            out.println("(this kernel has no MemAvailable and the estimate's inputs were unreadable: 'available'"
                    + " is only the free memory)");
        }
        if (cg.isPresent()) {
            CgroupMemory c = cg.get();
            Table.wrap(out, String.format("cgroup %s (%s): usage %s of %s", c.cgroupPath(), c.version(),
                    Units.bytes(c.usageBytes()), c.effectiveLimitBytes().isPresent()
                            ? "limit " + Units.bytes(c.effectiveLimitBytes().getAsLong()) : "no limit"), "  ", width);
        }
    }
}
