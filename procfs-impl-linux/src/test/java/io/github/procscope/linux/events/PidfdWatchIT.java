package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pidfd source finds a watched tree's new members through the children files where the kernel has them
 * (skipped where CONFIG_PROC_CHILDREN is off), and through the parent pids of a snapshot where it has not: the same
 * members, each reported once as a FORK with its parent.
 */
class PidfdWatchIT {
    private final Spawned spawned = new Spawned();
    private Process root;

    @AfterEach
    void end() {
        if (root != null) {
            root.descendants().forEach(ProcessHandle::destroyForcibly);
        }
        spawned.close();
    }

    @ParameterizedTest(name = "children files: {0}")
    @ValueSource(booleans = {true, false})
    void newMembersOfTheTreeAreFoundAndReportedWithTheirParents(boolean childrenFiles) throws Exception {
        long me = ProcessHandle.current().pid();
        if (childrenFiles) {
            assumeTrue(Files.exists(Path.of("/proc/" + me + "/task/" + me + "/children")),
                    "this kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN is off)");
        }
        // Forks nothing until told: then a sleep of its own, and a shell with a sleep (a grandchild).
        root = spawned.start("sh", "-c", "read x; sleep 300 & sh -c 'sleep 301 & wait' & wait");
        LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
        ProcessKey key = proc.process(root.pid(), Set.of()).key();
        List<ProcessEvent> forks = new ArrayList<>();
        try (PidfdWatch watch = PidfdWatch.open(key, proc, new OomCounterWatch(null, null), childrenFiles)) {
            assertEquals(1, watch.size(), "the root alone, before it forks");
            try (OutputStream in = root.getOutputStream()) {
                in.write("go\n".getBytes(StandardCharsets.US_ASCII));
            }
            Spawned.await(Duration.ofSeconds(60), "the root's tree of four", () -> {
                List<PidfdWatch.Found> found = new ArrayList<>();
                watch.scan(found);
                found.stream().map(PidfdWatch.Found::event).filter(e -> e.type() == EventType.FORK).forEach(forks::add);
                return treeOf(root.pid()).size() == 4 && watch.size() == 4;
            });
        }
        Map<Long, Long> parents = treeOf(root.pid());
        parents.remove(root.pid());
        assertEquals(parents, forks.stream().collect(Collectors.toMap(ProcessEvent::pid, e -> e.ppid().orElseThrow(),
                (a, b) -> {
                    throw new AssertionError("one member reported twice: " + forks);
                }, TreeMap::new)), "each new member once, with its parent: " + forks);
    }

    /** @return the pid of the root and of each of its descendants, with its parent's pid */
    private static Map<Long, Long> treeOf(long rootPid) {
        Map<Long, Long> out = new TreeMap<>();
        ProcessHandle.of(rootPid).ifPresent(r -> {
            out.put(rootPid, r.parent().map(ProcessHandle::pid).orElse(0L));
            r.descendants().forEach(d -> out.put(d.pid(), d.parent().map(ProcessHandle::pid).orElse(0L)));
        });
        return out;
    }
}
