package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.events.ExitCause;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.parse.FlatKeyedParser;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Whether an exit by SIGKILL was the OOM killer's: the kernel log's record of the kill, else the rise of the
 * victim's memory cgroup's {@code oom_kill} counter (which needs no kernel log). One per subscription, used by its
 * delivery thread only: it keeps the last read of the kernel log.
 */
final class OomAttribution {
    private final Supplier<? extends KernelLog> kernelLog;
    private final Supplier<OomCounterWatch> oomCounters;
    private final Path procRoot;
    /** The kernel's count of OOM kills ({@code oom_kill} of {@code /proc/vmstat}) at the last read of its log. */
    private long oomKillsAtLastRead = -1;
    /** The OOM kills that read found. */
    private List<OomKill> oomKillsRead = List.of();

    OomAttribution(Supplier<? extends KernelLog> kernelLog, Supplier<OomCounterWatch> oomCounters, Path procRoot) {
        this.kernelLog = kernelLog;
        this.oomCounters = oomCounters;
        this.procRoot = procRoot;
    }

    /**
     * Adds the cause OOM_KILLED to an exit by SIGKILL where there is evidence: the kernel log's record of the
     * kill, else the rise of the victim's memory cgroup's {@code oom_kill} counter (which needs no kernel log).
     */
    ProcessEvent withOomCause(ProcessEvent e, Optional<Path> counter) {
        Optional<String> byCounter = counter.flatMap(c -> oomCounters.get().evidence(c));
        Optional<String> byLog = oomEvidence(e.pid(), e.time());
        if (byLog.isPresent() && byCounter.isPresent()) {
            return e.withCause(ExitCause.OOM_KILLED, byLog.get() + "; " + byCounter.get());
        }
        Optional<String> any = byLog.or(() -> byCounter);
        return any.isPresent() ? e.withCause(ExitCause.OOM_KILLED, any.get()) : e;
    }

    /**
     * @return the kernel log's OOM kill of this pid, near this time. The kernel counts an OOM kill
     *         ({@code oom_kill} in {@code /proc/vmstat}) before it sends the SIGKILL and logs it just after, so
     *         the log is read only when the count has moved since the last read (an exit by a SIGKILL that no OOM
     *         kill explains then costs one small read, not the whole log), and read again after 200 ms when the
     *         count moved but the record is not there yet
     */
    private Optional<String> oomEvidence(long pid, Instant exitTime) {
        long counted = oomKillCount();
        if (counted >= 0 && counted == oomKillsAtLastRead) {
            return find(oomKillsRead, pid, exitTime); // no OOM kill since the log was read
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                List<OomKill> kills = kernelLog.get().oomKills();
                Optional<String> found = find(kills, pid, exitTime);
                if (found.isPresent() || attempt == 1) {
                    // every kill counted so far has been logged by now: the next exits are answered from this read
                    oomKillsAtLastRead = counted;
                    oomKillsRead = kills;
                    return found;
                }
            } catch (ProcscopeException e) {
                return Optional.empty(); // no kernel log to read (permission, or none here)
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** @return {@code oom_kill} of {@code /proc/vmstat} (Linux 4.13+), or -1 where it cannot be read */
    private long oomKillCount() {
        try {
            Path vmstat = procRoot.resolve("vmstat");
            ProcBuffer buf = new ProcBuffer(8192);
            if (buf.read(vmstat.toString(), ProcBuffer.SMALL_LIMIT) != ProcBuffer.Result.OK) {
                return -1;
            }
            Long v = FlatKeyedParser.parse(vmstat, buf.bytes(), buf.length()).get("oom_kill");
            return v == null ? -1 : v;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static Optional<String> find(List<OomKill> kills, long pid, Instant exitTime) {
        for (int i = kills.size() - 1; i >= 0; i--) {
            OomKill k = kills.get(i);
            if (k.pid() == pid && k.time().map(t -> Duration.between(t, exitTime).abs()
                    .compareTo(Duration.ofMinutes(1)) < 0).orElse(true)) {
                return Optional.of("kernel log: Killed process " + k.pid() + " (" + k.comm() + ")"
                        + k.cgroup().map(c -> " in memory cgroup " + c).orElse("")
                        + k.time().map(t -> " at " + t).orElse(""));
            }
        }
        return Optional.empty();
    }
}
