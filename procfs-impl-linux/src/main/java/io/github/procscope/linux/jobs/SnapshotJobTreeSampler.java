package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Finds a job's processes in a snapshot of the whole process table. */
final class SnapshotJobTreeSampler implements JobTreeSampler {
    private final ProcessTable table;

    SnapshotJobTreeSampler(ProcessTable table) {
        this.table = Objects.requireNonNull(table, "table");
    }

    @Override
    public List<ProcessInfo> members(long leaderPid, Set<ProcessKey> known) {
        ProcessSnapshot snapshot = table.snapshot();
        ProcessTree tree = snapshot.tree();
        Map<Long, ProcessInfo> found = new LinkedHashMap<>();
        for (ProcessInfo p : snapshot.processes()) {
            if (p.sid() == leaderPid || known.contains(p.key())) {
                found.put(p.pid(), p);
            }
        }
        for (ProcessInfo p : new ArrayList<>(found.values())) {
            for (ProcessInfo d : tree.descendants(p.pid())) {
                found.putIfAbsent(d.pid(), d);
            }
        }
        return List.copyOf(found.values());
    }
}
