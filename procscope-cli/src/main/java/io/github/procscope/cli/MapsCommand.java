package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.SmapsCounters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code procscope maps PID}: the address space of a process as {@code pmap -x} shows it, then its totals. */
@Command(name = "maps", mixinStandardHelpOptions = true,
        description = {"Show the memory regions of a process, like pmap -x.",
                "The regions of /proc/PID/smaps with their size, RSS and dirty memory (in KiB; JSON gives "
                        + "bytes), then the totals of /proc/PID/smaps_rollup:",
                "  VSZ   address space reserved; most of it may never be touched",
                "  RSS   resident in physical memory now, shared pages counted in full",
                "  PSS   RSS with each shared page divided among the processes sharing it",
                "  USS   private to this process: what its exit would give back",
                "  swap  swapped out",
                "Reading another user's process needs root (or CAP_SYS_PTRACE). A zombie (exited, not yet "
                        + "reaped) holds no memory: it is named as one, exit status 1, as for a process that does not "
                        + "exist."},
        footer = {"", "Examples:", "  procscope maps 4121", "  procscope --json maps 4121"})
final class MapsCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Parameters(index = "0", paramLabel = "PID", converter = PidConverter.class, description = "The process.")
    long pid;

    @Override
    public Integer call() {
        Context ctx = root.context();
        ProcessMemory memory = ctx.memory();
        MemoryMaps maps = memory.smaps(pid);
        if (maps.regions().isEmpty()) {
            Integer zombie = ctx.zombie("maps", pid, "holds no memory");
            if (zombie != null) {
                return zombie;
            }
        }
        MemoryTotals totals = memory.totals(pid);
        if (ctx.json()) {
            ObjectNode o = Json.object();
            ArrayNode regions = o.putArray("regions");
            for (MemoryRegion r : maps.regions()) {
                regions.add(json(r));
            }
            ObjectNode t = o.putObject("totals");
            t.put("vszBytes", totals.vszBytes());
            t.put("rssBytes", totals.rssBytes());
            t.put("pssBytes", totals.pssBytes());
            t.put("ussBytes", totals.ussBytes());
            t.put("swapBytes", totals.swapBytes());
            ctx.printJson(o);
            return ProcscopeCli.OK;
        }
        print(ctx.out(), maps, totals, ctx.width());
        return ProcscopeCli.OK;
    }

    static ObjectNode json(MemoryRegion r) {
        ObjectNode o = Json.object();
        o.put("startAddress", Long.toHexString(r.startAddress()));
        o.put("endAddress", Long.toHexString(r.endAddress()));
        o.put("sizeBytes", r.sizeBytes());
        o.put("permissions", r.permissions().toString());
        o.put("offsetBytes", r.offsetBytes());
        o.put("device", r.device().toString());
        o.put("inode", r.inode());
        Json.putText(o, "pathname", r.pathname());
        o.put("kind", r.kind().name());
        o.put("deleted", r.deleted());
        if (r.usage().isPresent()) {
            SmapsCounters c = r.usage().get().counters();
            o.put("rssBytes", c.rssBytes());
            o.put("pssBytes", c.pssBytes());
            o.put("dirtyBytes", c.dirtyBytes());
            o.put("swapBytes", c.swapBytes());
        } else {
            o.putNull("rssBytes");
            o.putNull("pssBytes");
            o.putNull("dirtyBytes");
            o.putNull("swapBytes");
        }
        return o;
    }

    private static void print(PrintStream out, MemoryMaps maps, MemoryTotals totals, int width) {
        Table t = new Table().left("Address").right("Kbytes").right("RSS").right("Dirty").left("Mode").left("Mapping");
        long size = 0;
        long rss = 0;
        long dirty = 0;
        for (MemoryRegion r : maps.regions()) {
            SmapsCounters c = r.usage().map(u -> u.counters()).orElse(SmapsCounters.ZERO);
            long d = c.dirtyBytes();
            t.row(String.format(Locale.ROOT, "%016x", r.startAddress()), r.sizeBytes() / 1024, c.rssBytes() / 1024,
                    d / 1024, r.permissions(), mapping(r));
            size += r.sizeBytes();
            rss += c.rssBytes();
            dirty += d;
        }
        t.row("total kB", size / 1024, rss / 1024, dirty / 1024, "", "");
        t.print(out, width);
        out.println();
        out.printf(Locale.ROOT, "VSZ %s  RSS %s  PSS %s  USS %s  swap %s%n", Units.bytes(totals.vszBytes()),
                Units.bytes(totals.rssBytes()), Units.bytes(totals.pssBytes()), Units.bytes(totals.ussBytes()),
                Units.bytes(totals.swapBytes()));
    }

    /** @return what pmap prints in its Mapping column: a file's name, or the kind in brackets */
    static String mapping(MemoryRegion r) {
        String name;
        if (r.pathname().isPresent() && (r.kind() == RegionKind.FILE || r.kind() == RegionKind.DEVICE
                || r.kind() == RegionKind.SHARED_MEMORY)) {
            String p = r.pathname().get();
            int slash = p.lastIndexOf('/');
            name = slash >= 0 && slash < p.length() - 1 ? p.substring(slash + 1) : p;
        } else if (r.pathname().isPresent()) {
            name = r.pathname().get();
        } else {
            name = "[ anon ]";
        }
        return r.deleted() ? name + " (deleted)" : name;
    }
}
