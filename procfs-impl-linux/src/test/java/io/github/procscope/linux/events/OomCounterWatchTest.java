package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.linux.proc.LinuxSystemResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OOM counters are found through the system resources the watch is handed (the platform hands it those of
 * its own roots): their mount table and their sysfs root, not this machine's {@code /proc} and {@code /sys}.
 */
class OomCounterWatchTest {
    @TempDir
    Path scratch;

    private Path proc;
    private Path events;

    /** A procfs tree whose mount table has cgroup2 on /sys/fs/cgroup, and pid 77 in train.slice/run-7. */
    private void tree() throws IOException {
        proc = Files.createDirectories(scratch.resolve("proc"));
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("self/mountinfo"), "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime"
                + " shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
        Files.createDirectories(proc.resolve("77"));
        Files.writeString(proc.resolve("77/cgroup"), "0::/train.slice/run-7\n");
        events = Files.createDirectories(scratch.resolve("sys/fs/cgroup/train.slice/run-7")).resolve("memory.events");
        Files.writeString(events, counters(1));
    }

    private static String counters(long oomKills) {
        return "low 0\nhigh 0\nmax 3\noom 1\noom_kill " + oomKills + "\noom_group_kill 0\n";
    }

    @Test
    void theCounterIsReadUnderTheSysfsRootOfTheResourcesItIsHanded() throws IOException {
        tree();
        OomCounterWatch watch = OomCounterWatch.over(() -> LinuxSystemResources.at(proc, scratch.resolve("sys")));
        assertEquals(Optional.of(events), watch.remember(proc.resolve("77")));
        assertEquals(Optional.empty(), watch.evidence(events), "the counter has not risen");
        Files.writeString(events, counters(2));
        String evidence = watch.evidence(events).orElseThrow();
        assertTrue(evidence.contains("oom_kill rose from 1 to 2"), evidence);
        assertTrue(evidence.contains(scratch.resolve("sys").toString()), evidence);
        assertEquals(Optional.empty(), watch.evidence(events), "one rise names one victim");
    }

    @Test
    void resourcesThatCannotBeReadGiveNoCounter() throws IOException {
        tree();
        OomCounterWatch watch = OomCounterWatch.over(() -> {
            throw new ProcfsUnavailableException(proc, "no such root");
        });
        assertEquals(Optional.empty(), watch.remember(proc.resolve("77")));
    }
}
