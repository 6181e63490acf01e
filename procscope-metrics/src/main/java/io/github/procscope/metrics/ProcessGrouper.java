package io.github.procscope.metrics;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTree;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Puts processes into named groups: the {@code groupname} label of process-exporter's
 * {@code namedprocess_namegroup_*} metrics. A grouper is a function from a process (with the tree of the snapshot
 * it came from, for groupings that follow parents) to the name of its group, or empty to leave the process out.
 *
 * <p>Groupers here: {@link #byCommand()} (process-exporter's {@code {{.Comm}}}), {@link #matching(List)}
 * (named rules over the command name or the command line), {@link #byJobTree(Set)} (each process under the root
 * of its run), {@link #byContainer()}, {@link #byPod()} and {@link #bySlurmJob()} (the workload its cgroup paths
 * name; a process in no such workload is in no group). Implementations must be thread-safe and must not read the kernel: everything they need is in the
 * snapshot.
 */
@FunctionalInterface
public interface ProcessGrouper {

    /**
     * @param process a process of the snapshot
     * @param tree    the tree of that snapshot
     * @return the name of its group, or empty to leave the process out of every group
     */
    Optional<String> groupOf(ProcessInfo process, ProcessTree tree);

    /**
     * @return the extra facets this grouper reads from each process ({@link Facet#CMDLINE} for command-line
     *         rules); the snapshot is read with them
     */
    default Set<Facet> facets() {
        return Set.of();
    }

    /**
     * @return groups that are reported even before any process joins them (with 0 processes), besides every group
     *         seen in an earlier scrape
     */
    default Set<String> declaredGroups() {
        return Set.of();
    }

    /**
     * Groups by command name ({@code /proc/PID/stat}'s {@code comm}, at most 15 bytes), as process-exporter's
     * {@code name: "{{.Comm}}"} does. Kernel threads are left out.
     *
     * @return the grouper
     */
    static ProcessGrouper byCommand() {
        TreeFreeGrouper byComm = (p, tree) -> p.isKernelThread() ? Optional.empty() : Optional.of(p.comm());
        return byComm;
    }

    /**
     * Groups each process under the root of its run: the outermost ancestor below a shell, a terminal
     * multiplexer, a container shim, PID 1 or a subreaper ({@link GpuUsers#runRoot}), or, before that, the first
     * ancestor that leads a session of its own. The group is named {@code COMM:PID} after that root, so two runs
     * of one program are two groups. Kernel threads are left out.
     *
     * <p>A job, as {@code procscope run} and the job supervisor start one, is the tree under the process they
     * started, in a session of its own: that process is the root, and every process below it is in its group, even
     * when the job is a shell ({@code sh -c 'a & b & wait'}). So a shell (or another boundary command) does not
     * bound a run when it leads its own session and its parent is a subreaper or a program that is no boundary
     * itself (the supervisor); a login shell, whose parent is {@code sshd}, {@code login} or PID 1, still does.
     *
     * @param subreapers pids that adopt orphans besides PID 1 (they end a run too)
     * @return the grouper
     */
    static ProcessGrouper byJobTree(Set<Long> subreapers) {
        Set<Long> reapers = Set.copyOf(subreapers);
        return (p, tree) -> {
            if (p.isKernelThread() || p.pid() == 1) {
                return Optional.empty();
            }
            ProcessInfo root = jobRoot(tree, p, reapers);
            return Optional.of(root.comm() + ":" + root.pid());
        };
    }

    /** The root of a process's run, as {@link #byJobTree(Set)} defines it. */
    private static ProcessInfo jobRoot(ProcessTree tree, ProcessInfo process, Set<Long> subreapers) {
        ProcessInfo current = process;
        Set<Long> seen = new HashSet<>();
        while (seen.add(current.pid()) && current.sid() != current.pid()) {
            Optional<ProcessInfo> parent = tree.parent(current.pid());
            if (parent.isEmpty() || bounds(tree, parent.get(), subreapers)) {
                return current;
            }
            current = parent.get();
        }
        return current;
    }

    /** Whether a parent bounds a run from above: see {@link #byJobTree(Set)}. */
    private static boolean bounds(ProcessTree tree, ProcessInfo p, Set<Long> subreapers) {
        if (p.pid() == 1 || p.isKernelThread() || subreapers.contains(p.pid())) {
            return true;
        }
        if (!GpuUsers.DEFAULT_BOUNDARY_COMMANDS.contains(p.comm())) {
            return false;
        }
        if (p.sid() != p.pid()) {
            return true;
        }
        // a session leader among the boundary commands: a job's shell when a program started it
        Optional<ProcessInfo> starter = tree.parent(p.pid());
        return starter.isEmpty() || starter.get().pid() == 1 || starter.get().isKernelThread()
                || !subreapers.contains(starter.get().pid())
                && GpuUsers.DEFAULT_BOUNDARY_COMMANDS.contains(starter.get().comm());
    }

    /**
     * Groups by container: the group is the container's short id (its first 12 hex digits, as {@code docker ps}
     * shows it), whatever the runtime. A process in no container (as its cgroup paths say) is in no group, and
     * neither is a kernel thread. Reads {@link Facet#CGROUP}.
     *
     * @return the grouper
     */
    static ProcessGrouper byContainer() {
        return byOwner(p -> p.owner().flatMap(Owner::container).map(Container::shortId));
    }

    /**
     * Groups by Kubernetes pod: the group is the pod's UID, with dashes (as {@code kubectl get pod -o
     * jsonpath='{.metadata.uid}'} prints it). A process in no pod is in no group, and neither is a kernel thread.
     * Reads {@link Facet#CGROUP}.
     *
     * @return the grouper
     */
    static ProcessGrouper byPod() {
        return byOwner(p -> p.owner().flatMap(Owner::podUid));
    }

    /**
     * Groups by Slurm job: the group is the job id in decimal (all steps of a job are one group). A process in no
     * Slurm job is in no group, and neither is a kernel thread. Reads {@link Facet#CGROUP}.
     *
     * @return the grouper
     */
    static ProcessGrouper bySlurmJob() {
        return byOwner(p -> p.owner().flatMap(Owner::slurm).map(job -> Long.toString(job.jobId())));
    }

    private static ProcessGrouper byOwner(Function<ProcessInfo, Optional<String>> name) {
        return new TreeFreeGrouper() {
            @Override
            public Optional<String> groupOf(ProcessInfo process, ProcessTree tree) {
                return process.isKernelThread() ? Optional.empty() : name.apply(process);
            }

            @Override
            public Set<Facet> facets() {
                return Set.of(Facet.CGROUP);
            }
        };
    }

    /**
     * Groups by named rules, first match wins; a process that matches no rule is left out. Every rule's group is
     * reported from the start, with 0 processes until one matches.
     *
     * @param rules the rules, in order
     * @return the grouper
     * @throws IllegalArgumentException if there is no rule or two rules share a name
     */
    static ProcessGrouper matching(List<Rule> rules) {
        List<Rule> copy = List.copyOf(rules);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a matching grouper needs at least one rule");
        }
        Set<String> names = new LinkedHashSet<>();
        boolean cmdline = false;
        for (Rule r : copy) {
            if (!names.add(r.name())) {
                throw new IllegalArgumentException("two rules name the group " + r.name());
            }
            cmdline |= r.target() == Rule.Target.CMDLINE;
        }
        Set<String> declared = Set.copyOf(names);
        Set<Facet> facets = cmdline ? Set.of(Facet.CMDLINE) : Set.of();
        return new IdentityBoundGrouper() {
            @Override
            public Optional<String> groupOf(ProcessInfo process, ProcessTree tree) {
                if (process.isKernelThread()) {
                    return Optional.empty();
                }
                for (Rule r : copy) {
                    if (r.matches(process)) {
                        return Optional.of(r.name());
                    }
                }
                return Optional.empty();
            }

            @Override
            public Set<Facet> facets() {
                return facets;
            }

            @Override
            public Set<String> declaredGroups() {
                return declared;
            }
        };
    }

    /**
     * One rule of {@link #matching(List)}: a group name and a regular expression that must match the whole
     * command name, or be found in the command line (its arguments joined by spaces).
     *
     * @param name    the group's name (the {@code groupname} label)
     * @param target  what the pattern is matched against
     * @param pattern the pattern
     */
    record Rule(String name, Target target, Pattern pattern) {
        /** What a rule's pattern is matched against. */
        public enum Target {
            /** The command name, {@code comm}, matched whole. */
            COMM,
            /** The command line, arguments joined by single spaces; the pattern may match any part of it. */
            CMDLINE
        }

        /** @throws IllegalArgumentException if the name is blank */
        public Rule {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(pattern, "pattern");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a group needs a name");
            }
        }

        /**
         * Parses {@code NAME=REGEX} (matched against the command name) or {@code NAME=cmdline:REGEX} (found in the
         * command line).
         *
         * @param spec the rule as text
         * @return the rule
         * @throws IllegalArgumentException naming what is wrong: no {@code =}, an empty name, a bad pattern
         */
        public static Rule parse(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a group rule is NAME=REGEX or NAME=cmdline:REGEX, not '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            String rest = spec.substring(eq + 1);
            Target target = Target.COMM;
            if (rest.startsWith("cmdline:")) {
                target = Target.CMDLINE;
                rest = rest.substring("cmdline:".length());
            }
            try {
                return new Rule(name, target, Pattern.compile(rest));
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new IllegalArgumentException("group " + name + ": bad regular expression '" + rest + "': "
                        + e.getDescription(), e);
            }
        }

        boolean matches(ProcessInfo p) {
            if (target == Target.COMM) {
                return pattern.matcher(p.comm()).matches();
            }
            List<String> args = p.cmdline().orElse(List.of());
            return !args.isEmpty() && pattern.matcher(String.join(" ", new ArrayList<>(args))).find();
        }
    }
}
