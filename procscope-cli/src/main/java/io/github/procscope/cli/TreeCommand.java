package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTree;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code procscope tree [PID]}: the process tree with each subtree's resident memory. */
@Command(name = "tree", mixinStandardHelpOptions = true,
        description = {"Show the process tree with the RSS of each subtree.",
                "All of it, or the subtree under PID. A training run is a parent with DataLoader workers: "
                        + "its subtree RSS is the run's total.",
                "Under PID, workers that were re-parented away from the subtree (double-forked, or orphaned) but "
                        + "are still in a process group or session it leads are listed after it."},
        footer = {"", "Examples:", "  procscope tree 4121", "  procscope --json tree"})
final class TreeCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", converter = PidConverter.class,
            description = "The subtree's root (default: the whole tree).")
    Long pid;

    @picocli.CommandLine.Mixin
    KubernetesSockets kubernetes = new KubernetesSockets();

    @Override
    public Integer call() {
        Context ctx = root.context();
        io.github.procscope.api.process.ProcessSnapshot snapshot = ctx.procfs().snapshot(Set.of(Facet.CGROUP));
        try (PodNames names = kubernetes.names(ctx, "tree",
                snapshot.processes().stream().map(ProcessInfo::owner).toList())) {
            return show(ctx, snapshot, names);
        }
    }

    private Integer show(Context ctx, io.github.procscope.api.process.ProcessSnapshot snapshot, PodNames names) {
        ctx.noteUnreadable("tree", snapshot);
        ProcessTree tree = snapshot.tree();
        List<ProcessInfo> tops;
        List<ProcessInfo> adopted = List.of();
        if (pid != null) {
            ProcessInfo top = tree.get(pid).orElseThrow(() -> new NoSuchProcessException(pid));
            tops = List.of(top);
            adopted = adopted(ctx, tree, top);
        } else {
            tops = tree.roots();
        }
        if (ctx.json()) {
            ArrayNode arr = Context.mapper().createArrayNode();
            for (ProcessInfo p : tops) {
                arr.add(json(tree, p, names));
            }
            ObjectNode doc;
            if (pid != null) {
                doc = (ObjectNode) arr.get(0);
                ArrayNode a = doc.putArray("adopted");
                adopted.forEach(p -> a.add(json(tree, p, names)));
            } else {
                doc = Context.mapper().createObjectNode();
                doc.set("roots", arr);
            }
            Json.putLeftOut(doc, snapshot);
            ctx.printJson(doc);
            return ProcscopeCli.OK;
        }
        int width = ctx.width();
        for (ProcessInfo p : tops) {
            print(ctx.out(), tree, p, "", "", width, names);
        }
        if (!adopted.isEmpty()) {
            ctx.out().println("re-parented away from the tree, still in its group or session:");
            for (ProcessInfo p : adopted) {
                print(ctx.out(), tree, p, "", "", width, names);
            }
        }
        return ProcscopeCli.OK;
    }

    private static void print(PrintStream out, ProcessTree tree, ProcessInfo p, String lead, String childLead, int width,
                              PodNames names) {
        String owner = Owners.label(p.owner(), names);
        String line = String.format("%s%d %s [%c] rss %s subtree %s%s", lead, p.pid(), Table.printable(p.comm()),
                p.state().letter(), Units.bytes(p.rssBytes()), Units.bytes(tree.subtreeRssBytes(p.pid())),
                owner.equals("-") || owner.equals(parentOwner(tree, p, names)) ? "" : "  " + owner);
        out.println(line.length() > width ? line.substring(0, width) : line);
        List<ProcessInfo> kids = tree.children(p.pid());
        for (int i = 0; i < kids.size(); i++) {
            boolean last = i == kids.size() - 1;
            print(out, tree, kids.get(i), childLead + (last ? "`-- " : "|-- "), childLead + (last ? "    " : "|   "), width,
                    names);
        }
    }

    /**
     * @return the job's members that are not in the subtree under {@code top} (double-forked workers, orphans of a
     *         member), topmost only: those {@link JobTree} keeps by group and session
     */
    private static List<ProcessInfo> adopted(Context ctx, ProcessTree tree, ProcessInfo top) {
        JobSample s = ctx.scope().jobTree(top.key(), JobTreeOptions.basic()).refresh();
        Set<Long> inSubtree = new java.util.HashSet<>();
        inSubtree.add(top.pid());
        tree.descendants(top.pid()).forEach(p -> inSubtree.add(p.pid()));
        Set<Long> members = new java.util.HashSet<>();
        s.members().forEach(m -> members.add(m.pid()));
        List<ProcessInfo> out = new java.util.ArrayList<>();
        for (JobMember m : s.members()) {
            if (!inSubtree.contains(m.pid()) && !members.contains(m.process().ppid())) {
                tree.get(m.pid()).ifPresent(out::add);
            }
        }
        return out;
    }

    /** @return the parent's OWNER cell: a child in its parent's container is not labelled again */
    private static String parentOwner(ProcessTree tree, ProcessInfo p, PodNames names) {
        return tree.get(p.ppid()).map(q -> Owners.label(q.owner(), names)).orElse("-");
    }

    private static ObjectNode json(ProcessTree tree, ProcessInfo p, PodNames names) {
        ObjectNode o = Context.mapper().createObjectNode();
        o.put("pid", p.pid());
        o.put("ppid", p.ppid());
        o.put("comm", p.comm());
        o.put("state", p.state().name());
        o.put("rssBytes", p.rssBytes());
        o.put("subtreeRssBytes", tree.subtreeRssBytes(p.pid()));
        Owners.putJson(o, p);
        Owners.putOwnerJson(o, p.owner(), names);
        ArrayNode kids = o.putArray("children");
        for (ProcessInfo c : tree.children(p.pid())) {
            kids.add(json(tree, c, names));
        }
        return o;
    }
}
