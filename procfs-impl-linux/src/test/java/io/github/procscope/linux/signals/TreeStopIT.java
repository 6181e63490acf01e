package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport.Ending;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stopping whole trees: descendants, a grandchild that ignores TERM, orphans, children forked late. */
class TreeStopIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Spawned spawned = new Spawned();
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

    @AfterEach
    void end() {
        spawned.close();
    }

    private LinuxSignals signals(boolean pidfd) {
        LinuxSignals s = LinuxSignals.using(proc);
        return pidfd ? s : s.withoutPidfd();
    }

    /** Reads "name pid" lines until "ready" and {@code count} names (background shells print late). */
    private Map<String, Long> readPids(Process p, int count) {
        Map<String, Long> pids = new HashMap<>();
        boolean ready = false;
        while (true) {
            if (ready && pids.size() == count) {
                return pids;
            }
            String line = Spawned.readLine(p, TIMEOUT);
            if (line.equals("ready")) {
                ready = true;
                continue;
            }
            String[] f = line.split(" ");
            long pid = Long.parseLong(f[1]);
            pids.put(f[0], pid);
            spawned.adopt(pid);
        }
    }

    private boolean gone(long pid, long startTicks) {
        return proc.find(pid).map(i -> i.startTimeTicks() != startTicks || i.state() == ProcessState.ZOMBIE)
                .orElse(true);
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void everyMemberIsStoppedAndListedIncludingOrphansAndATermIgnoringGrandchild(boolean pidfd) throws Exception {
        // root (session and group leader)
        //  +- childA: sleep
        //  +- childB: sh --- grandB1: sleep
        //  +- childC: sh --- grandC1: sleep that ignores TERM
        //  orphan:  sleep whose parent exited: re-parented away, still in root's process group
        //  orphan2: the same, which also moved to a group of its own: still in root's session
        String script = String.join("\n",
                "sleep 1000 & echo \"childA $!\"",
                "sh -c 'sleep 1000 & echo \"grandB1 $!\"; wait' & echo \"childB $!\"",
                "sh -c '(trap \"\" TERM; exec sleep 1000) & echo \"grandC1 $!\"; wait' & echo \"childC $!\"",
                "sh -c 'sleep 1000 & echo \"orphan $!\"'",
                "sh -c 'perl -e \"setpgrp(0, 0); exec qw(sleep 1000)\" & echo \"orphan2 $!\"'",
                "echo ready",
                "wait");
        Process root = spawned.start("setsid", "sh", "-c", script);
        Map<String, Long> pids = readPids(root, 7);
        pids.put("root", root.pid());
        assertEquals(8, pids.size(), pids.toString());
        Spawned.await(TIMEOUT, "every member to be running sleep or sh", () -> pids.values().stream()
                .allMatch(pid -> proc.find(pid).map(i -> i.comm().equals("sleep") || i.comm().equals("sh"))
                        .orElse(false)));
        Spawned.await(TIMEOUT, "orphan2 to leave the group", () -> proc.process(pids.get("orphan2")).pgid()
                == pids.get("orphan2"));
        // grandC1's subshell sets its TERM disposition and then becomes sleep: wait for the exec, not only for a
        // process named sh.
        Spawned.await(TIMEOUT, "grandC1 to run sleep", () -> proc.find(pids.get("grandC1"))
                .map(i -> i.comm().equals("sleep")).orElse(false));
        // Sibling of the tree in this JVM's own group and session: must be left alone.
        Process bystander = spawned.start("sleep", "1000");

        Set<Long> treePids = new HashSet<>(pids.values());
        ProcessInfo orphan = proc.process(pids.get("orphan"));
        assertFalse(treePids.contains(orphan.ppid()), "the orphan was re-parented out of the tree: " + orphan.ppid());
        assertEquals(root.pid(), orphan.pgid(), "the orphan stays in the root's process group");
        ProcessInfo orphan2 = proc.process(pids.get("orphan2"));
        assertFalse(treePids.contains(orphan2.ppid()));
        assertNotEquals(root.pid(), orphan2.pgid());
        assertEquals(root.pid(), orphan2.sid(), "orphan2 stays in the root's session");
        LinuxSignals signals = signals(pidfd);
        assertTrue(signals.dispositions(pids.get("grandC1")).ignoresTerm(), "grandC1 ignores TERM");
        Map<String, ProcessKey> keys = new HashMap<>();
        pids.forEach((name, pid) -> keys.put(name, proc.key(pid).withoutInode())); // (pid, start time), as listed
        // The exact identities (with the pidfs inode, where the kernel gives one), as Signals.key reads them.
        Map<String, ProcessKey> exact = new HashMap<>();
        pids.forEach((name, pid) -> exact.put(name, signals.key(pid)));
        boolean inodes = pidfd && exact.get("root").pidfsInode().isPresent();

        StopReport r = signals.stopTree(root, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(1)));

        for (Map.Entry<String, ProcessKey> e : keys.entrySet()) {
            StopReport.StoppedProcess p = r.find(e.getValue().pid())
                    .orElseThrow(() -> new AssertionError(e.getKey() + " is not listed:\n" + r));
            assertEquals(e.getValue(), p.key().withoutInode(), "the report carries the identity, with the pidfs inode where it was read");
            if (inodes) {
                // Every member found by scanning is keyed as the rest of the library keys it: (pid, start, inode).
                assertEquals(exact.get(e.getKey()), p.key(), e.getKey() + " is keyed with its pidfs inode\n" + r);
            }
            Ending expected = e.getKey().equals("grandC1") ? Ending.KILL : Ending.TERM;
            assertEquals(expected, p.ending(), e.getKey() + "\n" + r);
            assertTrue(gone(e.getValue().pid(), e.getValue().startTimeTicks()), e.getKey() + " still runs");
        }
        assertEquals(keys.size(), r.processes().size(), "nothing else was stopped:\n" + r);
        assertTrue(r.allGone());
        assertTrue(r.killNeeded());
        assertTrue(r.find(root.pid()).orElseThrow().exitStatus().isPresent(), "the root was our child: " + r);
        assertTrue(r.find(pids.get("childA")).orElseThrow().exitStatus().isEmpty(), "a grandchild's status is not ours");
        assertTrue(bystander.isAlive(), "a process outside the tree is untouched");
        assertTrue(root.waitFor(30, TimeUnit.SECONDS));
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void childrenForkedDuringTheShutdownAreCaughtByTheRescan(boolean pidfd) throws Exception {
        // On TERM the root forks a new sleep, prints its pid and carries on.
        Process root = spawned.start("setsid", "sh", "-c",
                "trap 'sleep 1000 & echo \"spawned $!\"' TERM; echo ready; while :; do sleep 1 & wait $!; done");
        assertEquals("ready", Spawned.readLine(root, TIMEOUT));

        StopReport[] report = new StopReport[1];
        Thread stopper = new Thread(() -> report[0] = signals(pidfd).stopTree(root,
                StopOptions.defaults().withGracePeriod(Duration.ofMillis(1500))));
        stopper.start();
        String line = Spawned.readLine(root, TIMEOUT);
        stopper.join(TIMEOUT.toMillis());
        assertFalse(stopper.isAlive());

        StopReport r = report[0];
        assertTrue(line.startsWith("spawned "), line);
        long late = Long.parseLong(line.substring("spawned ".length()));
        spawned.adopt(late);
        StopReport.StoppedProcess p = r.find(late).orElseThrow(() -> new AssertionError("late child not listed:\n" + r));
        assertTrue(p.gone(), r.toString());
        assertEquals(Ending.KILL, r.find(root.pid()).orElseThrow().ending(), r.toString());
        assertTrue(r.allGone(), r.toString());
        assertTrue(gone(late, p.key().startTimeTicks()));
        // Listed after the members of the first scan, since it was found later.
        assertEquals(root.pid(), r.processes().get(0).pid());
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void theLeftoversOfARootThatHasExitedAreFoundByItsGroup(boolean pidfd) throws Exception {
        // A launcher that started two workers and exited: the workers now belong to PID 1.
        // It waits for its input to close before it exits, so that its key is read while it runs.
        Process root = spawned.start("setsid", "sh", "-c",
                "sleep 1000 & echo \"w1 $!\"; sleep 1000 & echo \"w2 $!\"; echo ready; read x");
        ProcessKey rootKey = proc.key(root.pid());
        Map<String, Long> pids = readPids(root, 2);
        root.getOutputStream().close();
        assertTrue(root.waitFor(30, TimeUnit.SECONDS));
        Spawned.await(TIMEOUT, "the workers to be re-parented", () -> pids.values().stream()
                .allMatch(pid -> proc.process(pid).ppid() != root.pid()));

        StopReport r = signals(pidfd).stopTree(rootKey, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(5)));

        assertEquals(3, r.processes().size(), r.toString());
        StopReport.StoppedProcess first = r.processes().get(0);
        assertEquals(rootKey, first.key(), "the root named is listed first: " + r);
        assertEquals(Ending.GONE, first.ending(), "it had exited before the stop: " + r);
        for (long pid : pids.values()) {
            StopReport.StoppedProcess p = r.find(pid).orElseThrow(() -> new AssertionError(r.toString()));
            assertEquals(Ending.TERM, p.ending());
            assertTrue(gone(pid, p.key().startTimeTicks()));
        }
    }

    @ParameterizedTest(name = "pidfd={0}")
    @ValueSource(booleans = {true, false})
    void aRootThatTermEndsAtOnceDoesNotHideItsChildren(boolean pidfd) throws Exception {
        // A root that leads no group or session of its own (so its children can be found through it only) and runs
        // on a CPU, so that TERM ends it at once: its children are checked before anything is sent, not after its
        // end has re-parented them away. Ten trees, since a root's end takes its own time to come.
        for (int i = 0; i < 10; i++) {
            Process root = spawned.start("sh", "-c",
                    "sleep 1000 & echo \"a $!\"; sleep 1000 & echo \"b $!\"; echo ready; while :; do :; done");
            Map<String, Long> pids = readPids(root, 2);
            Spawned.await(TIMEOUT, "both children to run sleep", () -> pids.values().stream()
                    .allMatch(pid -> proc.find(pid).map(p -> p.comm().equals("sleep")).orElse(false)));

            StopReport r = signals(pidfd).stopTree(root, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(10)));

            assertEquals(3, r.processes().size(), "the root and both children:\n" + r);
            assertEquals(root.pid(), r.processes().get(0).pid(), r.toString());
            for (StopReport.StoppedProcess p : r.processes()) {
                assertEquals(Ending.TERM, p.ending(), r.toString());
                assertTrue(gone(p.pid(), p.key().startTimeTicks()), p + " still runs");
            }
        }
    }
}
