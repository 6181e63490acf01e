package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTree;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
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
            Json.LeftOut leftOut = Json.LeftOut.of(snapshot);
            if (pid != null) {
                ctx.printJson(Json.of(new Top(Node.of(tree, tops.get(0), names),
                        adopted.stream().map(p -> Node.of(tree, p, names)).toList(), leftOut)));
            } else {
                ctx.printJson(Json.of(new Roots(tops.stream().map(p -> Node.of(tree, p, names)).toList(), leftOut)));
            }
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

    /**
     * A process of the tree's JSON and its children, the fields named as {@link ProcessInfo}'s accessors.
     *
     * @param pid             as {@link ProcessInfo#pid()}
     * @param ppid            as {@link ProcessInfo#ppid()}
     * @param comm            as {@link ProcessInfo#comm()}
     * @param state           as {@link ProcessInfo#state()}
     * @param rssBytes        as {@link ProcessInfo#rssBytes()}
     * @param subtreeRssBytes as {@link ProcessTree#subtreeRssBytes(long)}
     * @param cgroup          its cgroups, null when not read
     * @param owner           whose process it is, flat
     * @param children        its children's nodes
     */
    record Node(long pid, long ppid, String comm, ProcessState state, long rssBytes, long subtreeRssBytes,
                Optional<Owners.Cgroup> cgroup, @JsonUnwrapped Owners.Fields owner, List<Node> children) {
        static Node of(ProcessTree tree, ProcessInfo p, PodNames names) {
            return new Node(p.pid(), p.ppid(), p.comm(), p.state(), p.rssBytes(), tree.subtreeRssBytes(p.pid()),
                    Owners.Cgroup.of(p), Owners.Fields.of(p.owner(), names),
                    tree.children(p.pid()).stream().map(c -> of(tree, c, names)).toList());
        }
    }

    /**
     * {@code tree PID}'s JSON: the process's node, flat, the job's members re-parented away from it, and what the
     * snapshot left out.
     *
     * @param node    the process's node
     * @param adopted the nodes of the members re-parented away from its subtree
     * @param leftOut what the snapshot left out, flat
     */
    record Top(@JsonUnwrapped Node node, List<Node> adopted, @JsonUnwrapped Json.LeftOut leftOut) {
    }

    /**
     * {@code tree}'s JSON: the roots' nodes and what the snapshot left out.
     *
     * @param roots   the nodes of the processes without a parent in the table
     * @param leftOut what the snapshot left out, flat
     */
    record Roots(List<Node> roots, @JsonUnwrapped Json.LeftOut leftOut) {
    }
}
