package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which processes of a snapshot belong to a tree, the rule a tree stop and a job's tree share: the root and its
 * descendants, the descendants of members found before (an orphan keeps its own children), and processes in a
 * process group or session that a member leads, started no earlier than the root (orphans re-parented away
 * from the tree). PID 1 and kernel threads are never members.
 *
 * <p>A group or session id is the pid of the process that created it, and the kernel does not hand that pid
 * out again while the group or session has a member. So a group whose leader has exited is still recognised
 * by its id, as long as no other process has taken that pid; once one has, the id is dropped. The ids led by
 * members are remembered from one scan to the next, so one instance follows one tree. Not thread-safe.
 */
public final class TreeMembers {
    private final ProcessKey root;
    /** Group and session ids led by a member, with the identity of that leader. */
    private final Map<Long, ProcessKey> groups = new HashMap<>();
    private final Map<Long, ProcessKey> sessions = new HashMap<>();

    /** @param root the tree's root */
    public TreeMembers(ProcessKey root) {
        this.root = Objects.requireNonNull(root, "root");
    }

    /**
     * Counts a group and a session whose id is the root's pid as the root's: for a root that has exited, when
     * its pid is free of other processes (any group or session with that id is then still the one it led).
     */
    public void rootLedItsPid() {
        groups.put(root.pid(), root);
        sessions.put(root.pid(), root);
    }

    /**
     * @param snap  the processes now
     * @param known members found before, followed even if they left the root's descendants
     * @return the members in {@code snap}, in the order found
     */
    public List<ProcessInfo> members(ProcessSnapshot snap, Collection<ProcessKey> known) {
        dropReused(groups, snap);
        dropReused(sessions, snap);
        Map<Long, List<ProcessInfo>> children = new HashMap<>();
        for (ProcessInfo p : snap.processes()) {
            children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p);
        }
        Map<Long, ProcessInfo> members = new LinkedHashMap<>();
        ArrayDeque<ProcessInfo> queue = new ArrayDeque<>();
        snap.find(root).ifPresent(p -> add(p, members, queue));
        for (ProcessKey k : known) {
            snap.find(k).ifPresent(p -> add(p, members, queue));
        }
        boolean grew = true;
        while (grew) {
            while (!queue.isEmpty()) {
                ProcessInfo p = queue.poll();
                for (ProcessInfo c : children.getOrDefault(p.pid(), List.of())) {
                    add(c, members, queue);
                }
            }
            grew = false;
            for (ProcessInfo p : snap.processes()) {
                if (!members.containsKey(p.pid()) && p.startTimeTicks() >= root.startTimeTicks()
                        && (groups.containsKey(p.pgid()) || sessions.containsKey(p.sid()))) {
                    add(p, members, queue);
                    grew = true;
                }
            }
        }
        return new ArrayList<>(members.values());
    }

    /** Forgets ids whose pid now names a process other than the member that led them. */
    private static void dropReused(Map<Long, ProcessKey> leaders, ProcessSnapshot snap) {
        leaders.entrySet().removeIf(e -> snap.find(e.getKey())
                .map(p -> p.startTimeTicks() != e.getValue().startTimeTicks()).orElse(false));
    }

    private void add(ProcessInfo p, Map<Long, ProcessInfo> members, ArrayDeque<ProcessInfo> queue) {
        if (p.isKernelThread() || p.pid() == 1 || members.containsKey(p.pid())) {
            return;
        }
        members.put(p.pid(), p);
        queue.add(p);
        if (p.pid() == p.pgid()) {
            groups.putIfAbsent(p.pgid(), p.key());
        }
        if (p.pid() == p.sid()) {
            sessions.putIfAbsent(p.sid(), p.key());
        }
    }
}
