package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.linux.proc.LinuxProcfs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Snapshot differences as a source: every interval a snapshot, compared with the one before it; a process gone is
 * an EXIT, a new one a FORK, one whose stat changed an EXEC or RENAME ({@link LinuxProcessEvents#change}). The
 * first comparison is with the snapshot the subscription read when it began ({@link #startFrom}), so that a change
 * made between the subscription's start and this thread's first snapshot is seen too.
 */
final class SnapshotDiffSource implements Runnable {
    private final LinuxProcfs procfs;
    private final Duration interval;
    private final EventQueue queue;
    /** The processes when the subscription began: what the first snapshot is compared with. */
    private Map<ProcessKey, ProcessInfo> first = Map.of();

    SnapshotDiffSource(LinuxProcfs procfs, Duration interval, EventQueue queue) {
        this.procfs = procfs;
        this.interval = interval;
        this.queue = queue;
    }

    /** Sets the processes the first snapshot is compared with; called before the thread starts. */
    void startFrom(Map<ProcessKey, ProcessInfo> processes) {
        first = Map.copyOf(processes);
    }

    @Override
    public void run() {
        Map<ProcessKey, ProcessInfo> before = first;
        while (!queue.closed()) {
            try {
                Thread.sleep(interval.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            Map<ProcessKey, ProcessInfo> now = new HashMap<>();
            for (ProcessInfo p : procfs.snapshot(Set.of()).processes()) {
                now.put(p.key(), p);
            }
            Instant t = Instant.now();
            for (Map.Entry<ProcessKey, ProcessInfo> e : before.entrySet()) {
                if (!now.containsKey(e.getKey())) {
                    queue.offer(EventItem.finished(event(EventType.EXIT, e.getValue(), t), Optional.empty()));
                }
            }
            // Oldest first: a parent started before its children, so a listener that follows a tree by its
            // FORK events learns of the parent before the child that appeared in the same snapshot.
            List<ProcessInfo> appeared = new ArrayList<>(now.values());
            appeared.sort(Comparator.comparingLong(ProcessInfo::startTimeTicks).thenComparingLong(ProcessInfo::pid));
            for (ProcessInfo p : appeared) {
                ProcessInfo old = before.get(p.key());
                EventType type = old == null ? EventType.FORK : LinuxProcessEvents.change(old.stat(), p.stat());
                if (type != null) {
                    queue.offer(EventItem.finished(event(type, p, t), Optional.empty()));
                }
            }
            before = now;
        }
    }

    private static ProcessEvent event(EventType type, ProcessInfo p, Instant t) {
        return new ProcessEvent(type, p.pid(), OptionalLong.of(p.ppid()), Optional.of(p.key()), Optional.of(p.comm()),
                t, OptionalInt.empty(), OptionalInt.empty(), false, Optional.empty(), Optional.empty(),
                EventSource.SNAPSHOT_DIFF, false);
    }
}
