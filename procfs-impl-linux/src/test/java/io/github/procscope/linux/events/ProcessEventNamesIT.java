package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The names events carry: every EXIT of a storm of 2,000 processes has the name its process last had, through each
 * source; a process that renames itself is reported as a RENAME, not as an EXEC.
 */
class ProcessEventNamesIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Waits until no event has come for a second (delivery has settled), within the timeout. */
    private static void settle(ProcessEventsIT.Collector c) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int seen = -1;
        while (seen != c.events.size() && System.nanoTime() < deadline) {
            seen = c.events.size();
            Thread.sleep(1000);
        }
    }

    /**
     * Waits, within the timeout, until {@code count} processes descended from {@code ancestor} have exited (a
     * subscription to every process never falls quiet on a busy machine, so delivery cannot be waited out).
     */
    private static void awaitExits(ProcessEventsIT.Collector c, long ancestor, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Map<Long, Long> parentOf = new HashMap<>();
            int exits = 0;
            for (ProcessEvent e : c.events) {
                if (e.type() == EventType.FORK) {
                    parentOf.put(e.pid(), e.ppid().orElse(-1));
                } else if (e.type() == EventType.EXIT && descends(parentOf, e.pid(), ancestor)) {
                    exits++;
                }
            }
            if (exits >= count) {
                return;
            }
            Thread.sleep(200);
        }
    }

    /** @return whether {@code pid} is a descendant of {@code ancestor}, by the FORK events' parents */
    private static boolean descends(Map<Long, Long> parentOf, long pid, long ancestor) {
        long a = pid;
        for (int depth = 0; depth < 30 && a != ancestor && parentOf.containsKey(a); depth++) {
            a = parentOf.get(a);
        }
        return a == ancestor && pid != ancestor;
    }

    private static Process run(Spawned spawned, String... command) throws InterruptedException {
        Process p = spawned.start(command);
        assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the storm ended");
        assertEquals(0, p.exitValue());
        return p;
    }

    /**
     * Checks the exits of the children of {@code parent}: each has a name, the one its process was last reported
     * with (by its FORK, EXEC or RENAME; events come in order for each process).
     *
     * @return how many exits there were under each name
     */
    private static Map<String, Integer> exitNamesOfChildren(ProcessEventsIT.Collector c, long parent) {
        Set<Long> children = new HashSet<>();
        Map<Long, String> last = new HashMap<>();
        Map<String, Integer> names = new HashMap<>();
        for (ProcessEvent e : c.events) {
            if (e.type() == EventType.FORK && e.ppid().orElse(-1) == parent) {
                children.add(e.pid());
            }
            if (!children.contains(e.pid())) {
                continue;
            }
            if (e.type() == EventType.EXIT) {
                assertTrue(e.comm().isPresent(), "the exit of " + e.pid() + " has a name: " + e);
                assertEquals(last.get(e.pid()), e.comm().get(), "the last name of " + e.pid() + ": " + e);
                names.merge(e.comm().get(), 1, Integer::sum);
            } else {
                e.comm().ifPresent(n -> last.put(e.pid(), n));
            }
        }
        return names;
    }

    @Test
    void everyExitOfAStormHasItsNameThroughTheConnector() throws Exception {
        assumeTrue(isRoot(), "the process connector needs CAP_NET_ADMIN");
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (Spawned spawned = new Spawned();
             EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(50),
                     EventSource.NETLINK)) {
            // 2,000 children: every other one execs true, the rest exit as forks of the helper. The helper reaps
            // them only once their EXITs have come: an exec'd name is read from /proc when its EXEC is delivered,
            // and a child reaped before that leaves nothing to read (ProcessEvent.comm says so). The EXEC of each
            // child comes before its EXIT, so by then each name was read while the child was at least a zombie.
            Process storm = spawned.start(new ProcessBuilder(NativeHelpers.executable("fork_storm").toString(),
                    "2000", "0", "2", "hold").redirectError(ProcessBuilder.Redirect.DISCARD));
            awaitExits(c, storm.pid(), 2000);
            storm.getOutputStream().close();
            assertTrue(storm.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the storm ended");
            assertEquals(0, storm.exitValue());
            // 2,047 subshells in a binary tree, each reaped as it ends: forks only, all named sh
            Process tree = run(spawned, "sh", "-c", "f() { if [ $1 -gt 0 ]; then f $(($1 - 1)) & f $(($1 - 1)); wait;"
                    + " fi; }; f 11");
            awaitExits(c, tree.pid(), 2047);
            System.out.printf("netlink storm: %d events, dropped %d, lost %d%n", c.events.size(), sub.dropped(),
                    sub.lost());
            assertEquals(0, sub.dropped(), "no event dropped");
            assertEquals(0, sub.lost(), "no overrun");

            // each child forked as fork_storm; half exec'd true, as EXEC events said
            assertEquals(Map.of("true", 1000, "fork_storm", 1000), exitNamesOfChildren(c, storm.pid()));

            // the tree: every process whose ancestry reaches the tree's shell
            Map<Long, Long> parentOf = new HashMap<>();
            for (ProcessEvent e : c.events) {
                if (e.type() == EventType.FORK) {
                    parentOf.put(e.pid(), e.ppid().orElse(-1));
                }
            }
            int treeExits = 0;
            for (ProcessEvent e : c.events) {
                if (e.type() == EventType.EXIT && descends(parentOf, e.pid(), tree.pid())) {
                    treeExits++;
                    assertEquals(Optional.of("sh"), e.comm(), e.toString());
                }
            }
            assertEquals(2047, treeExits, "every subshell's exit");
        }
    }

    /** A storm whose children live 1.5 s, long enough for pidfds and snapshots to see each. */
    private static final String[] LASTING_STORM = {"2000", "1500", "2"};

    @Test
    void everyExitOfAStormHasItsNameThroughPidfds() throws Exception {
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (Spawned spawned = new Spawned()) {
            List<String> cmd = new java.util.ArrayList<>(List.of(NativeHelpers.executable("fork_storm").toString()));
            cmd.addAll(List.of(LASTING_STORM));
            Process storm = spawned.start(cmd.toArray(String[]::new));
            ProcessKey root = proc.process(storm.pid(), Set.of()).key();
            try (EventSubscription sub = LiveEvents.of(proc).subscribeTree(root, c, Duration.ofMillis(100),
                    EventSource.PIDFD)) {
                assertTrue(storm.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                c.await(e -> e.type() == EventType.EXIT && e.pid() == storm.pid(), "the storm's own exit");
                settle(c);
                int lost = (int) sub.lost();
                // the storm's children, found at the subscription or by following its children since
                Set<Long> members = new HashSet<>();
                Map<String, Integer> names = new HashMap<>();
                Map<Long, String> last = new HashMap<>();
                for (ProcessEvent e : c.events) {
                    assertTrue(e.type() != EventType.RENAME, "an exec is not a rename: " + e);
                    if (e.pid() == storm.pid()) {
                        continue;
                    }
                    if (e.type() == EventType.EXIT) {
                        assertTrue(e.comm().isPresent(), "the exit of " + e.pid() + " has a name: " + e);
                        names.merge(e.comm().get(), 1, Integer::sum);
                        members.add(e.pid());
                        if (last.containsKey(e.pid())) {
                            assertEquals(last.get(e.pid()), e.comm().get(), e.toString());
                        }
                    } else {
                        e.comm().ifPresent(n -> last.put(e.pid(), n));
                    }
                }
                System.out.printf("pidfd storm: exits by name %s; unwatched (lost) %d%n", names, lost);
                assertEquals(2000 - lost, members.size(), "every child's exit, less those no descriptor was left for");
                assertTrue(names.getOrDefault("sleep", 0) >= 1000 - lost, names.toString());
                assertTrue(names.getOrDefault("fork_storm", 0) >= 1000 - lost, names.toString());
                assertEquals(2000 - lost, names.values().stream().mapToInt(Integer::intValue).sum(), names.toString());
            }
        }
    }

    @SuppressWarnings("try") // the resource is held for its scope, not used by name
    @Test
    void everyExitOfAStormHasItsNameThroughSnapshotDiffing() throws Exception {
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (Spawned spawned = new Spawned();
             EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(100),
                     EventSource.SNAPSHOT_DIFF)) {
            List<String> cmd = new java.util.ArrayList<>(List.of(NativeHelpers.executable("fork_storm").toString()));
            cmd.addAll(List.of(LASTING_STORM));
            Process storm = run(spawned, cmd.toArray(String[]::new));
            awaitExits(c, storm.pid(), 2000);
            Map<String, Integer> names = exitNamesOfChildren(c, storm.pid());
            System.out.printf("snapshot storm: exits by name %s%n", names);
            assertEquals(Map.of("sleep", 1000, "fork_storm", 1000), names, "each child lived 15 intervals");
            for (ProcessEvent e : c.events) {
                assertTrue(e.type() != EventType.RENAME || !e.comm().equals(Optional.of("sleep")),
                        "an exec is not a rename: " + e);
            }
        }
    }

    /**
     * A shell that, once released through the FIFO {@code go}, renames itself by writing {@code /proc/self/comm},
     * then, released through {@code end}, exits under its new name ({@code read} is a built-in: nothing forks).
     */
    private static String[] renamer(Path dir) throws Exception {
        for (String fifo : new String[] {"go", "end"}) {
            assertEquals(0, new ProcessBuilder("mkfifo", dir.resolve(fifo).toString()).start().waitFor());
        }
        return new String[] {"sh", "-c", "read x < " + dir.resolve("go") + "; printf stage-two > /proc/self/comm;"
                + " read x < " + dir.resolve("end")};
    }

    /** Releases the shell through a FIFO (the write waits for the shell to open it). */
    private static void release(Path dir, String fifo) throws Exception {
        java.nio.file.Files.writeString(dir.resolve(fifo), "\n");
    }

    private static String comm(long pid) {
        try {
            return java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void aProcessThatRenamesItselfIsARenameThroughEachSource(@TempDir Path tmp) throws Exception {
        for (EventSource source : EventSource.values()) {
            if (source == EventSource.NETLINK && !isRoot()) {
                continue;
            }
            Path dir = java.nio.file.Files.createDirectory(tmp.resolve(source.name()));
            ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
            try (Spawned spawned = new Spawned()) {
                EventSubscription sub = null;
                try {
                    Process p;
                    if (source == EventSource.PIDFD) {
                        p = spawned.start(renamer(dir));
                        Spawned.await(TIMEOUT, "the shell runs", () -> comm(p.pid()).equals("sh"));
                        ProcessKey key = proc.process(p.pid(), Set.of()).key();
                        sub = LiveEvents.of(proc).subscribeTree(key, c, Duration.ofMillis(50), source);
                    } else {
                        sub = LiveEvents.of(proc).subscribe(c, Duration.ofMillis(50), source);
                        p = spawned.start(renamer(dir));
                        c.await(e -> e.pid() == p.pid() && e.comm().equals(Optional.of("sh")), "the shell seen");
                    }
                    release(dir, "go");
                    ProcessEvent rename = c.await(e -> e.type() == EventType.RENAME && e.pid() == p.pid(),
                            source + ": the rename of " + p.pid());
                    assertEquals(Optional.of("stage-two"), rename.comm());
                    assertEquals(source, rename.source());
                    assertEquals(p.pid(), rename.key().orElseThrow().pid());
                    release(dir, "end");
                    assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                    ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.pid() == p.pid(),
                            source + ": the exit of " + p.pid());
                    assertEquals(Optional.of("stage-two"), exit.comm(), "the exit carries the last name");
                    for (ProcessEvent e : c.events) {
                        assertTrue(e.pid() != p.pid() || e.type() != EventType.EXEC
                                || !e.comm().equals(Optional.of("stage-two")), source + ": the rename is no exec: " + e);
                    }
                } finally {
                    if (sub != null) {
                        sub.close();
                    }
                }
            }
        }
    }
    /**
     * Snapshot diffing compares its first snapshot with what the subscription read when it began: a rename made
     * after the subscription began but before that first snapshot (a long interval makes it one) is still a RENAME.
     */
    @Test
    void aRenameBeforeTheFirstSnapshotIsSeenBySnapshotDiffing(@TempDir Path dir) throws Exception {
        ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(renamer(dir));
            Spawned.await(TIMEOUT, "the shell runs", () -> comm(p.pid()).equals("sh"));
            try (EventSubscription sub = LiveEvents.of(proc).subscribe(c, Duration.ofSeconds(3),
                    EventSource.SNAPSHOT_DIFF)) {
                release(dir, "go");
                Spawned.await(TIMEOUT, "the rename", () -> comm(p.pid()).equals("stage-two"));
                ProcessEvent rename = c.await(e -> e.type() == EventType.RENAME && e.pid() == p.pid(),
                        "the rename of " + p.pid());
                assertEquals(Optional.of("stage-two"), rename.comm());
                assertEquals(EventSource.SNAPSHOT_DIFF, rename.source());
                assertEquals(proc.process(p.pid(), Set.of()).key(), rename.key().orElseThrow());
                assertEquals(0, sub.dropped(), "no event dropped");
                release(dir, "end");
                assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            }
        }
    }
}
