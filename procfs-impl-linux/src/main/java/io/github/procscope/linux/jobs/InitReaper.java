package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.sys.ProcessCalls;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What an init does, for a JVM that is PID 1 of its PID namespace (a container's entrypoint) while it supervises
 * jobs: every orphan of the namespace is re-parented to it, and this reaps those that have ended, so that no
 * zombie piles up.
 *
 * <p>It must not steal the exit status of a child the JDK started ({@link ProcessBuilder}), which the JDK's
 * reaper waits for by pid. Those children are in this JVM's own process group (the JDK never moves them), so a
 * zombie child is reaped at once only when its process group is another one (a job's processes, a daemon that
 * called {@code setsid}, anything adopted from another session), or when it was seen earlier with another
 * parent (an orphan adopted from this JVM's own process group). A zombie child in this JVM's process group
 * that no scan saw with another parent is reaped once it has stayed a zombie for {@value #LINGER_MS} ms: the
 * JDK's reaper is blocked in {@code waitpid} on each of its own children and collects one within milliseconds
 * of its end, so a zombie that lingers is one nobody waits for. The jobs' first processes are left to their
 * supervisors, which read their exit statuses.
 */
final class InitReaper {
    private static final long SCAN_MS = 50;
    private static final long LINGER_MS = 2_000;

    private final ProcessCalls nat;
    private final ProcessTable table;
    private final long selfPid;
    private final long selfGroup;
    /** Processes seen at the last scan with a parent other than this JVM: adopted if they are its children later. */
    private Set<ProcessKey> seenElsewhere = new HashSet<>();
    /** Children of this JVM known to have been adopted, alive at the last scan. */
    private Set<ProcessKey> adoptedKnown = new HashSet<>();
    /** Zombie children of this JVM's process group not known as adopted, with when a scan first saw each. */
    private Map<ProcessKey, Long> lingering = new HashMap<>();

    InitReaper(ProcessCalls nat, ProcessTable table) {
        this.nat = Objects.requireNonNull(nat, "nat");
        this.table = Objects.requireNonNull(table, "table");
        this.selfPid = nat.selfPid();
        this.selfGroup = nat.selfProcessGroup();
    }

    /** Starts scanning on a daemon thread, until this JVM ends. */
    void start() {
        Thread t = new Thread(this::loop, "procscope-init-reaper");
        t.setDaemon(true);
        t.start();
    }

    private void loop() {
        while (true) {
            try {
                scan();
                Thread.sleep(SCAN_MS);
            } catch (InterruptedException e) {
                return;
            } catch (ProcscopeException e) {
                // The process table could not be read this time: try again at the next scan.
            }
        }
    }

    /** @return how many zombies this scan reaped */
    int scan() {
        int reaped = 0;
        Set<ProcessKey> elsewhereNow = new HashSet<>();
        Set<ProcessKey> adoptedNow = new HashSet<>();
        Map<ProcessKey, Long> lingeringNow = new HashMap<>();
        long now = System.nanoTime();
        for (ProcessInfo p : table.snapshot().processes()) {
            if (p.ppid() != selfPid) {
                elsewhereNow.add(p.key());
                continue;
            }
            boolean adopted = p.pgid() != selfGroup || seenElsewhere.contains(p.key()) || adoptedKnown.contains(p.key());
            if (!adopted) {
                if (p.state() == ProcessState.ZOMBIE) {
                    long since = lingering.getOrDefault(p.key(), now);
                    if (now - since < LINGER_MS * 1_000_000L) {
                        lingeringNow.put(p.key(), since);
                    } else if (LinuxJobSupervisor.reapUnlessLeader(nat, p.pid()).isPresent()) {
                        reaped++;
                    }
                }
                continue;
            }
            if (p.state() != ProcessState.ZOMBIE) {
                adoptedNow.add(p.key());
            } else if (LinuxJobSupervisor.reapUnlessLeader(nat, p.pid()).isPresent()) {
                reaped++;
            }
        }
        seenElsewhere = elsewhereNow;
        adoptedKnown = adoptedNow;
        lingering = lingeringNow;
        return reaped;
    }
}
