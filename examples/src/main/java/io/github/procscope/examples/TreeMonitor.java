package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A custom monitor: watches one job's process tree and raises an alert when a process's resident memory
 * grows past a share of what it first had (a leak, a dataset loaded whole into RAM: what ends in an OOM
 * kill), or when a process of the tree becomes a zombie (its parent does not reap it). Each alert is
 * raised once.
 *
 * <p>Run: {@code java -cp ... io.github.procscope.examples.TreeMonitor PID [GROWTH_PERCENT]}; it checks
 * every second until the root process ends.
 */
public final class TreeMonitor {
    /**
     * One alert.
     *
     * @param kind    what was seen
     * @param pid     the process it is about
     * @param message one line for a person
     */
    public record Alert(Kind kind, long pid, String message) {
        /** What an alert is about. */
        public enum Kind {
            /** Resident memory grew past the threshold. */
            RSS_GROWTH,
            /** An exited process that its parent does not reap. */
            ZOMBIE
        }

        /** Checks the components. */
        public Alert {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
        }
    }

    private final ProcessTable table;
    private final ProcessKey root;
    private final double growthPercent;
    private final long minGrowthBytes;
    private final Map<ProcessKey, Long> firstRss = new HashMap<>();
    private final Set<ProcessKey> alerted = new HashSet<>();

    /**
     * @param table          where to read processes
     * @param root           the job's root process
     * @param growthPercent  how much a process's RSS may grow over its first reading before an alert
     * @param minGrowthBytes the least growth that counts (small processes double easily)
     */
    public TreeMonitor(ProcessTable table, ProcessKey root, double growthPercent, long minGrowthBytes) {
        this.table = Objects.requireNonNull(table, "table");
        this.root = Objects.requireNonNull(root, "root");
        if (!(growthPercent > 0) || minGrowthBytes < 0) {
            throw new IllegalArgumentException("growth must be positive and the minimum not negative: "
                    + growthPercent + "%, " + minGrowthBytes + " bytes");
        }
        this.growthPercent = growthPercent;
        this.minGrowthBytes = minGrowthBytes;
    }

    /** @return whether the root process still runs (it may have been replaced by another with its pid) */
    public boolean rootAlive() {
        return table.snapshot().find(root).filter(p -> p.state() != ProcessState.ZOMBIE).isPresent();
    }

    /** @return the alerts raised by this look at the tree (none twice for one process) */
    public List<Alert> check() {
        ProcessSnapshot snapshot = table.snapshot();
        List<Alert> out = new ArrayList<>();
        if (snapshot.find(root).isEmpty()) {
            return out;
        }
        ProcessTree tree = snapshot.tree();
        List<ProcessInfo> members = new ArrayList<>(tree.descendants(root.pid()));
        members.add(0, snapshot.find(root).get());
        for (ProcessInfo p : members) {
            if (alerted.contains(p.key())) {
                continue;
            }
            if (p.state() == ProcessState.ZOMBIE) {
                alerted.add(p.key());
                out.add(new Alert(Alert.Kind.ZOMBIE, p.pid(), "pid " + p.pid() + " (" + p.comm()
                        + ") exited but its parent, pid " + p.ppid() + ", does not reap it"));
                continue;
            }
            long first = firstRss.computeIfAbsent(p.key(), k -> p.rssBytes());
            long grown = p.rssBytes() - first;
            if (grown >= minGrowthBytes && grown > first * growthPercent / 100.0) {
                alerted.add(p.key());
                out.add(new Alert(Alert.Kind.RSS_GROWTH, p.pid(), String.format("pid %d (%s) grew from %,d to %,d"
                        + " bytes resident", p.pid(), p.comm(), first, p.rssBytes())));
            }
        }
        return out;
    }

    /**
     * @param args the pid of the job's root, and optionally the growth in percent (default 50)
     * @throws InterruptedException if interrupted between two looks
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: TreeMonitor PID [GROWTH_PERCENT]");
            System.exit(2);
        }
        ProcessTable table = Procscope.system().processes();
        TreeMonitor monitor = new TreeMonitor(table, table.key(Long.parseLong(args[0])),
                args.length > 1 ? Double.parseDouble(args[1]) : 50, 16L << 20);
        while (monitor.rootAlive()) {
            monitor.check().forEach(a -> System.out.println(a.kind() + ": " + a.message()));
            Thread.sleep(Duration.ofSeconds(1).toMillis());
        }
    }
}
