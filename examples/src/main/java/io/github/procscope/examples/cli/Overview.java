package io.github.procscope.examples.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessTree;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

/** What {@code procscope} prints without a subcommand: this machine at a glance. */
final class Overview {
    private static final int TOP = 5;

    private final Context ctx;

    Overview(Context ctx) {
        this.ctx = ctx;
    }

    int print() {
        ProcessSnapshot s = ctx.procfs().snapshot();
        ProcessTree tree = s.tree();
        String host = hostname();
        List<ProcessInfo> top = s.processes().stream()
                .sorted(Comparator.comparingLong(ProcessInfo::rssBytes).reversed()).limit(TOP).toList();
        int zombies = tree.zombies().size();
        if (ctx.json()) {
            ObjectNode o = Context.mapper().createObjectNode();
            o.put("host", host);
            o.put("uptimeSeconds", Units.seconds(s.uptime()));
            o.put("bootTime", ctx.procfs().bootTime().toString());
            o.put("processes", s.size());
            o.put("zombies", zombies);
            ArrayNode arr = o.putArray("topByRss");
            top.forEach(p -> arr.add(PsCommand.json(p)));
            ctx.printJson(o);
            return ProcscopeCli.OK;
        }
        ctx.out().printf("host %s, up %s, %d processes, %d zombies%n", host, Units.elapsed(s.uptime()),
                s.size(), zombies);
        ctx.out().println();
        ctx.out().println("Largest resident memory:");
        Table t = new Table().right("PID").left("USER").right("RSS").right("VSZ").left("COMMAND");
        for (ProcessInfo p : top) {
            t.row(p.pid(), PsCommand.user(p), Units.bytes(p.rssBytes()), Units.bytes(p.vszBytes()), p.comm());
        }
        t.print(ctx.out(), Table.terminalWidth());
        return ProcscopeCli.OK;
    }

    private String hostname() {
        Path f = ctx.procfsRoot().resolve("sys/kernel/hostname");
        try {
            return Files.readString(f, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return "(unknown)";
        }
    }
}
