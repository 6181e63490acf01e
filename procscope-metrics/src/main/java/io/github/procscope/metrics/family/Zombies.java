package io.github.procscope.metrics.family;

import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code procscope_zombie_processes} and {@code procscope_zombies{parent_pid,parent_comm}}: the zombies of one
 * process snapshot, in all and by the parent that has not reaped them.
 */
public final class Zombies {
    /** {@code procscope_zombie_processes}. */
    public static final MetricFamily ZOMBIE_PROCESSES = MetricFamily.gauge("procscope_zombie_processes",
            "Zombie processes: exited, not yet reaped by their parent.");
    /** {@code procscope_zombies{parent_pid,parent_comm}}. */
    public static final MetricFamily BY_PARENT = MetricFamily.gauge("procscope_zombies",
            "Zombie processes by the parent that has not reaped them.");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(ZOMBIE_PROCESSES, BY_PARENT);

    private Zombies() {
    }

    /**
     * Adds the zombies of one snapshot.
     *
     * @param s         the scrape
     * @param processes the snapshot's processes
     */
    public static void collect(Scrape s, Collection<ProcessInfo> processes) {
        // Zombies by the pid of the parent that has not reaped them, ascending, as ProcessTree.zombiesByParent()
        // has them, without building the tree.
        TreeMap<Long, int[]> byParent = new TreeMap<>();
        int total = 0;
        for (ProcessInfo p : processes) {
            if (p.state() == ProcessState.ZOMBIE) {
                byParent.computeIfAbsent(p.ppid(), k -> new int[1])[0]++;
                total++;
            }
        }
        s.add(ZOMBIE_PROCESSES, Labels.EMPTY, total);
        if (byParent.isEmpty()) {
            return;
        }
        Map<Long, String> parentComm = new HashMap<>();
        for (ProcessInfo p : processes) {
            if (byParent.containsKey(p.pid())) {
                parentComm.put(p.pid(), p.comm());
            }
        }
        for (Map.Entry<Long, int[]> e : byParent.entrySet()) {
            long parent = e.getKey();
            s.add(BY_PARENT, Labels.of("parent_pid", Long.toString(parent),
                    "parent_comm", parentComm.getOrDefault(parent, "")), e.getValue()[0]);
        }
    }
}
