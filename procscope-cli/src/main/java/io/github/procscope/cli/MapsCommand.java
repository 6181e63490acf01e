package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
                write(g, r);
            }
            g.writeEndArray();
            ObjectNode t = Json.object();
            t.put("vszBytes", totals.vszBytes());
            t.put("rssBytes", totals.rssBytes());
            t.put("pssBytes", totals.pssBytes());
            t.put("ussBytes", totals.ussBytes());
            t.put("swapBytes", totals.swapBytes());
            g.writeFieldName("totals");
            g.writeTree(t);
            g.writeEndObject();
            g.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
    }

    /** Writes one region's object: the fields, names and values {@code JsonFieldNamesTest} holds the tool to. */
    private static void write(JsonGenerator g, Row r) throws IOException {
        g.writeStartObject();
        g.writeStringField("startAddress", Long.toHexString(r.startAddress()));
        g.writeStringField("endAddress", Long.toHexString(r.endAddress()));
        g.writeNumberField("sizeBytes", r.sizeBytes());
        g.writeStringField("permissions", r.permissions().toString());
        g.writeNumberField("offsetBytes", r.offsetBytes());
        g.writeStringField("device", r.device().toString());
        g.writeFieldName("inode");
        if (r.inode() >= 0) {
            g.writeNumber(r.inode());
        } else {
            g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(r.inode()))); // unsigned, at or above 2^63
        }
        if (r.pathname().isPresent()) {
            g.writeStringField("pathname", r.pathname().get());
        } else {
            g.writeNullField("pathname");
        }
        g.writeStringField("kind", r.kind().name());
        g.writeBooleanField("deleted", r.deleted());
        String[] names = {"rssBytes", "pssBytes", "dirtyBytes", "swapBytes"};
        long[] values = {r.rssBytes(), r.pssBytes(), r.dirtyBytes(), r.swapBytes()};
        for (int i = 0; i < names.length; i++) {
            if (r.hasUsage()) {
                g.writeNumberField(names[i], values[i]);
            } else {
                g.writeNullField(names[i]);
            }
        }
        g.writeEndObject();
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
