package io.github.procscope.cli;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.RegionPermissions;
import io.github.procscope.api.memory.SmapsCounters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
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
    @Mixin
    ProcessTarget target;

    @Override
    public Integer call() {
        Context ctx = target.context();
        long pid = target.pid();
        ProcessMemory memory = ctx.memory();
        // Each region is kept as the few numbers shown, not as its whole record, and printed only once the read
        // has ended with the process still there: a process of a hundred thousand regions fits a small heap.
        List<Row> rows = new ArrayList<>();
        memory.forEachRegion(pid, r -> rows.add(Row.of(r)));
        if (rows.isEmpty()) {
            Integer zombie = ctx.zombie("maps", pid, "holds no memory");
            if (zombie != null) {
                return zombie;
            }
        }
        MemoryTotals totals = memory.totals(pid);
        if (ctx.json()) {
            printJson(ctx.out(), rows, totals);
            return ProcscopeCli.OK;
        }
        print(ctx.out(), rows, totals, ctx.width());
        return ProcscopeCli.OK;
    }

    /** What the table and the JSON show of a region. */
    record Row(long startAddress, long endAddress, RegionPermissions permissions, long offsetBytes,
               DeviceNumber device, long inode, Optional<String> pathname, RegionKind kind, boolean deleted,
               long rssBytes, long pssBytes, long dirtyBytes, long swapBytes, boolean hasUsage) {
        static Row of(MemoryRegion r) {
            SmapsCounters c = r.usage().map(u -> u.counters()).orElse(SmapsCounters.ZERO);
            return new Row(r.startAddress(), r.endAddress(), r.permissions(), r.offsetBytes(), r.device(), r.inode(),
                    r.pathname(), r.kind(), r.deleted(), c.rssBytes(), c.pssBytes(), c.dirtyBytes(), c.swapBytes(),
                    r.usage().isPresent());
        }

        long sizeBytes() {
            return endAddress - startAddress;
        }
    }

    /**
     * Writes the document region by region through one generator, indented as {@link Context#printJson} does,
     * so that the whole document of a process of a hundred thousand regions is never in memory.
     */
    private static void printJson(PrintStream out, List<Row> rows, MemoryTotals totals) {
        try {
            JsonGenerator g = Context.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8);
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            g.writeStartObject();
            g.writeArrayFieldStart("regions");
            for (Row r : rows) {
                Json.write(g, Region.of(r));
            }
            g.writeEndArray();
            g.writeFieldName("totals");
            Json.write(g, new Totals(totals.vszBytes(), totals.rssBytes(), totals.pssBytes(), totals.ussBytes(),
                    totals.swapBytes()));
            g.writeEndObject();
            g.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
    }

    /**
     * A region of {@code maps}' JSON, named as {@link MemoryRegion}'s accessors and its usage's
     * {@link SmapsCounters}: addresses in hexadecimal as the kernel writes them, the inode unsigned, the usage
     * null where smaps was not read.
     *
     * @param startAddress as {@link MemoryRegion#startAddress()}, hexadecimal
     * @param endAddress   as {@link MemoryRegion#endAddress()}, hexadecimal
     * @param sizeBytes    as {@link MemoryRegion#sizeBytes()}
     * @param permissions  as {@link MemoryRegion#permissions()}, as in the kernel's file ({@code r-xp})
     * @param offsetBytes  as {@link MemoryRegion#offsetBytes()}
     * @param device       as {@link MemoryRegion#device()}, {@code major:minor}
     * @param inode        as {@link MemoryRegion#inode()}, unsigned
     * @param pathname     as {@link MemoryRegion#pathname()}
     * @param kind         as {@link MemoryRegion#kind()}
     * @param deleted      as {@link MemoryRegion#deleted()}
     * @param rssBytes     as {@link SmapsCounters#rssBytes()}
     * @param pssBytes     as {@link SmapsCounters#pssBytes()}
     * @param dirtyBytes   as {@link SmapsCounters#dirtyBytes()}
     * @param swapBytes    as {@link SmapsCounters#swapBytes()}
     */
    record Region(String startAddress, String endAddress, long sizeBytes, String permissions, long offsetBytes,
                  String device, @JsonSerialize(using = Json.Unsigned.class) long inode, Optional<String> pathname,
                  RegionKind kind, boolean deleted, OptionalLong rssBytes, OptionalLong pssBytes,
                  OptionalLong dirtyBytes, OptionalLong swapBytes) {
        static Region of(Row r) {
            return new Region(Long.toHexString(r.startAddress()), Long.toHexString(r.endAddress()), r.sizeBytes(),
                    r.permissions().toString(), r.offsetBytes(), r.device().toString(), r.inode(), r.pathname(),
                    r.kind(), r.deleted(), usage(r, r.rssBytes()), usage(r, r.pssBytes()), usage(r, r.dirtyBytes()),
                    usage(r, r.swapBytes()));
        }

        private static OptionalLong usage(Row r, long v) {
            return r.hasUsage() ? OptionalLong.of(v) : OptionalLong.empty();
        }
    }

    /**
     * The totals of {@code maps}' JSON, named as {@link MemoryTotals}' accessors.
     *
     * @param vszBytes  as {@link MemoryTotals#vszBytes()}
     * @param rssBytes  as {@link MemoryTotals#rssBytes()}
     * @param pssBytes  as {@link MemoryTotals#pssBytes()}
     * @param ussBytes  as {@link MemoryTotals#ussBytes()}
     * @param swapBytes as {@link MemoryTotals#swapBytes()}
     */
    record Totals(long vszBytes, long rssBytes, long pssBytes, long ussBytes, long swapBytes) {
    }

    private static void print(PrintStream out, List<Row> rows, MemoryTotals totals, int width) {
        Table t = new Table().left("Address").right("Kbytes").right("RSS").right("Dirty").left("Mode").left("Mapping");
        long size = 0;
        long rss = 0;
        long dirty = 0;
        for (Row r : rows) {
            size += r.sizeBytes();
            rss += r.rssBytes();
            dirty += r.dirtyBytes();
        }
        t.row("total kB", size / 1024, rss / 1024, dirty / 1024, "", "");
        // The table's lines are made as they are printed, none held.
        t.print(out, width, rows.size(), i -> {
            Row r = rows.get(i);
            return new Object[] {address(r.startAddress()), r.sizeBytes() / 1024, r.rssBytes() / 1024,
                r.dirtyBytes() / 1024, r.permissions(), mapping(r.pathname(), r.kind(), r.deleted())};
        });
        out.println();
        out.printf(Locale.ROOT, "VSZ %s  RSS %s  PSS %s  USS %s  swap %s%n", Units.bytes(totals.vszBytes()),
                Units.bytes(totals.rssBytes()), Units.bytes(totals.pssBytes()), Units.bytes(totals.ussBytes()),
                Units.bytes(totals.swapBytes()));
    }

    /** @return the address as sixteen hexadecimal digits, as {@code pmap -x} prints it */
    private static String address(long a) {
        String hex = Long.toHexString(a);
        return "0000000000000000".substring(hex.length()) + hex;
    }

    /** @return what pmap prints in its Mapping column: a file's name, or the kind in brackets */
    private static String mapping(Optional<String> pathname, RegionKind kind, boolean deleted) {
        String name;
        if (pathname.isPresent() && (kind == RegionKind.FILE || kind == RegionKind.DEVICE
                || kind == RegionKind.SHARED_MEMORY)) {
            String p = pathname.get();
            int slash = p.lastIndexOf('/');
            name = slash >= 0 && slash < p.length() - 1 ? p.substring(slash + 1) : p;
        } else if (pathname.isPresent()) {
            name = pathname.get();
        } else {
            name = "[ anon ]";
        }
        return deleted ? name + " (deleted)" : name;
    }
}
