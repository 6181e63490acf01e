package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.ProcessEventListener;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ProcessTable.key(pid)} reads the exact identity on the live {@code /proc} (with the pidfs inode, Linux 6.9
 * and later), the same as {@code Signals.key(pid)}, and every reader that takes a root key accepts it as the key of
 * the process its listing shows; under another root it reads (pid, start time).
 */
class ExactKeyReadersIT {
    private final Spawned spawned = new Spawned();
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final LinuxProcessMemory memory = LinuxProcessMemory.at(proc.root(), () -> proc);

    @AfterEach
    void end() {
        spawned.close();
    }

    private ProcessKey exactKeyOfASleep() {
        Process p = spawned.start("sleep", "1000");
        ProcessKey key = proc.key(p.pid());
        assumeTrue(key.pidfsInode().isPresent(), "pidfds on pidfs (Linux 6.9+): " + key);
        return key;
    }

    @Test
    void theTableAndTheFrontDoorReadTheKeySignalsRead() {
        ProcessKey key = exactKeyOfASleep();
        assertEquals(Procscope.system().signals().key(key.pid()), key);
        assertEquals(key, Procscope.system().processes().key(key.pid()));
        ProcessKey listed = proc.process(key.pid(), Set.of()).key();
        assertTrue(listed.pidfsInode().isEmpty(), "a listing's key has no inode: " + listed);
        assertTrue(listed.matches(key) && key.matches(listed), listed + " and " + key);
        assertEquals(listed, proc.plainKey(key.pid()), "plainKey reads the listing's form");
        assertEquals("sleep", proc.status(key).name(), "a read with the exact key passes its check");
        assertEquals(java.util.List.of("sleep", "1000"), proc.cmdline(key));
    }

    /** The front door's memory and open-file views hand out the exact key too: a key from them is safe to act on. */
    @Test
    void theMemoryAndOpenFileViewsReadTheExactKey() {
        ProcessKey key = exactKeyOfASleep();
        Procscope scope = Procscope.system();
        assertEquals(key, scope.memory().key(key.pid()));
        assertEquals(key, scope.openFiles().key(key.pid()));
        assertFalse(scope.openFiles().fds(key).isEmpty(), "a read with the exact key passes its check");
        assertFalse(scope.memory().maps(key).regions().isEmpty());
        ProcessKey other = new ProcessKey(key.pid(), key.startTimeTicks(),
                java.util.OptionalLong.of(key.pidfsInode().getAsLong() + 1));
        assertThrows(io.github.procscope.api.core.NoSuchProcessException.class, () -> scope.openFiles().fds(other),
                "a key whose inode is not the process's (a same-tick newcomer's) is refused");
        assertThrows(io.github.procscope.api.core.NoSuchProcessException.class, () -> scope.memory().maps(other));
    }

    @Test
    void aJobTreeOpenedWithAnExactKeyFindsItsRoot() {
        ProcessKey key = exactKeyOfASleep();
        JobSample s = proc.jobTree(key, JobTreeOptions.basic(), memory).refresh();
        assertTrue(s.rootAlive(), s.toString());
        assertEquals(key.pid(), s.members().get(0).pid());
    }

    @Test
    void aTreeSubscriptionTakesAnExactKeyOnEverySource() {
        ProcessKey key = exactKeyOfASleep();
        ProcessEventListener ignore = e -> { };
        for (EventSource source : EventSource.values()) {
            if (source == EventSource.NETLINK && !"root".equals(System.getProperty("user.name"))) {
                continue;
            }
            try (EventSubscription sub = Procscope.system().events().subscribeTree(key, ignore,
                    Duration.ofMillis(50), source)) {
                assertEquals(source, sub.source());
            }
        }
    }

    @Test
    void underAnotherRootTheKeyIsPidAndStartTime() {
        LinuxProcfs fixture = Fixtures.procfs();
        ProcessKey key = fixture.key(100);
        assertFalse(key.pidfsInode().isPresent(), key.toString());
        assertEquals(fixture.process(100, Set.of()).key(), key);
    }
}
