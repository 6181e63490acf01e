package io.github.procscope.metrics;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTable;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The group of each process, decided at first sight of its identity (pid and start time), as process-exporter
 * decides it, and again when its command name changes (an exec, or a process renaming itself): so a scrape reads a
 * command line only for a process it has not seen before. Entries of processes a scrape did not see are forgotten
 * when the next one begins, so the table holds at most the processes of two scrapes. Not thread-safe: scrapes are serialized.
 */
final class GroupAssignments {
    private Map<Long, Entry> last = new HashMap<>();
    private Map<Long, Entry> next = new HashMap<>();
    private long commandLinesRead;

    /** One process's decision, and what it was decided on. */
    private record Entry(long startTicks, String comm, Optional<String> group) {
    }

    /**
     * @param p       a process of the snapshot (read without its command line)
     * @param grouper the grouper
     * @param table   where a new process's command line is read, when the grouper reads command lines
     * @return its group; empty for a process in no group, or one gone before its command line could be read
     */
    Optional<String> groupOf(ProcessInfo p, IdentityBoundGrouper grouper, ProcessTable table) {
        Entry e = next.get(p.pid());
        if (e == null) {
            e = last.get(p.pid());
        }
        if (e == null || e.startTicks != p.stat().startTimeTicks() || !e.comm.equals(p.comm())) {
            ProcessInfo full = p;
            if (p.cmdline().isEmpty() && !p.isKernelThread() && grouper.facets().contains(Facet.CMDLINE)) {
                Optional<List<String>> cmdline;
                try {
                    commandLinesRead++;
                    cmdline = Optional.of(table.cmdline(p.key()));
                } catch (NoSuchProcessException e2) {
                    return Optional.empty();
                } catch (ProcessAccessDeniedException | ProcfsException e2) {
                    cmdline = Optional.empty();
                }
                full = new ProcessInfo(p.stat(), p.statm(), p.uid(), p.user(), p.tty(), p.startTime(), p.elapsed(),
                        cmdline, p.status(), p.cgroup(), p.io(), p.openFds());
            }
            e = new Entry(p.stat().startTimeTicks(), p.comm(), grouper.groupOf(full, TreeFreeGrouper.NO_TREE));
        }
        next.put(p.pid(), e);
        return e.group;
    }

    /** Starts a scrape: the processes the last scrape did not see are forgotten. */
    void begin() {
        Map<Long, Entry> t = last;
        last = next;
        next = t;
        next.clear();
    }

    /** @return how many command lines were read so far */
    long commandLinesRead() {
        return commandLinesRead;
    }
}
