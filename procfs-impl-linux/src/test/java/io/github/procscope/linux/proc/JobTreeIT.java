package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.job.Discovery;
import io.github.procscope.api.job.JobMember;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A job of three levels with a double-forked worker, on the live kernel: the root (a session leader) runs a shell
 * that runs a sleep, a sleep of its own, and a sleep in a subshell that exits at once, so that the sleep is
 * re-parented away from the tree. Each finding is checked with both ways of discovery: through the children files,
 * where the kernel has them (CONFIG_PROC_CHILDREN; skipped where it has not), and through full snapshots, which
 * every kernel allows and which a tree uses where the children files are missing.
 */
class JobTreeIT {
    private static final String SCRIPT = "sh -c 'sleep 301 & wait' & (sleep 302 &); sleep 303 & echo ready; wait";
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final LinuxProcessMemory memory = LinuxProcessMemory.at(proc.root(), () -> proc);
    private Process root;
    private ProcessKey key;

    @BeforeEach
    void startJob() throws Exception {
        root = new ProcessBuilder("setsid", "sh", "-c", SCRIPT).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(root.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", out.readLine());
        // Until the job has settled: the root, its shell and three sleeps, each sleep past its exec (a child forked
        // and not yet exec'd is named after its parent shell), the subshell that forked sleep 302 gone.
        Spawned.await(Duration.ofSeconds(60), "root, its shell, three sleeps",
                () -> commsInSession().equals(java.util.List.of("sh", "sh", "sleep", "sleep", "sleep")));
        key = proc.process(root.pid(), Set.of()).key();
    }

    /** @return the sorted command names of the processes in the root's session */
    private java.util.List<String> commsInSession() {
        return proc.snapshot().processes().stream().filter(p -> p.sid() == root.pid()).map(ProcessInfo::comm)
                .sorted().toList();
    }

    /** @return whether this kernel has {@code /proc/PID/task/TID/children} (CONFIG_PROC_CHILDREN) */
    private static boolean childrenFiles() {
        long me = ProcessHandle.current().pid();
        return Files.exists(Path.of("/proc/" + me + "/task/" + me + "/children"));
    }

    /** A tree of the job and its first sample. */
    private record Opened(JobTree tree, JobSample first) {
    }

    /**
     * @return a tree of the job that discovers its members so, and its first sample: the front door's tree when
     *         the kernel makes it discover so, else one made to
     */
    private Opened open(Discovery discovery, JobTreeOptions options) {
        boolean children = childrenFiles();
        if (discovery == Discovery.CHILDREN_FILES) {
            assumeTrue(children, "this kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN is off)");
        }
        if (discovery == Discovery.CHILDREN_FILES || !children) {
            JobTree tree = proc.jobTree(key, options, memory);
            assertEquals(discovery, tree.discovery());
            if (children) {
                assertEquals(Optional.empty(), tree.fallbackReason());
            } else {
                assertTrue(tree.fallbackReason().orElseThrow().contains("CONFIG_PROC_CHILDREN"),
                        tree.fallbackReason().get());
            }
            return new Opened(tree, tree.refresh());
        }
        LinuxJobTree tree = new LinuxJobTree(key, options, new LinuxJobTree.ProcfsReads(proc, memory), discovery,
                Optional.of("chosen by the test"));
        return new Opened(tree, tree.rescan()); // a tree made so has not looked for adopted members yet
    }

    @AfterEach
    void endJob() throws Exception {
        for (long pid : session()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        root.destroyForcibly();
        root.waitFor();
    }

    /** @return the pids in the root's session, from a full snapshot: every process of the job */
    private Set<Long> session() {
        return proc.snapshot().processes().stream().filter(p -> p.sid() == root.pid()).map(ProcessInfo::pid)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<Long> pids(JobSample s) {
        return s.members().stream().map(JobMember::pid).collect(Collectors.toCollection(TreeSet::new));
    }

    @ParameterizedTest
    @EnumSource(Discovery.class)
    void findsAllThreeLevelsAndTheDoubleForkedWorker(Discovery discovery) {
        JobSample s = open(discovery, JobTreeOptions.basic().withPss().withOpenFds()).first();
        assertEquals(discovery, s.discovery());
        assertEquals(session(), pids(s));
        assertEquals(root.pid(), s.members().get(0).pid(), "the root first");
        assertTrue(s.rootAlive());
        // three levels: root -> sh -> sleep 301
        JobMember shell = s.members().stream().filter(m -> m.process().ppid() == root.pid()
                && m.process().comm().equals("sh")).findFirst().orElseThrow();
        assertTrue(s.members().stream().anyMatch(m -> m.process().ppid() == shell.pid()), "a grandchild");
        // the double-forked sleep is kept, marked adopted; the others are descendants
        JobMember adopted = s.members().stream().filter(JobMember::adopted).findFirst().orElseThrow();
        assertEquals(1, s.members().stream().filter(JobMember::adopted).count());
        assertFalse(ProcessHandle.of(root.pid()).orElseThrow().descendants().anyMatch(h -> h.pid() == adopted.pid()),
                "the adopted worker is no descendant of the root");
        // totals are the sums
        assertEquals(s.members().stream().mapToLong(JobMember::rssBytes).sum(), s.rssBytes());
        assertEquals(s.members().stream().mapToInt(m -> m.process().threads()).sum(), s.threads());
        assertEquals(s.members().stream().mapToLong(m -> m.pssBytes().orElseThrow()).sum(), s.pssBytes().orElseThrow());
        assertEquals(s.members().stream().mapToLong(m -> m.openFds().orElseThrow()).sum(), s.openFds().orElseThrow());
        assertTrue(s.rssBytes() > 0 && s.pssBytes().getAsLong() > 0);
        assertEquals(pids(s), s.joined().stream().map(ProcessKey::pid).collect(Collectors.toSet()), "all join at first");
        assertTrue(s.cpuPercent().isEmpty(), "no CPU figure before a second refresh");
    }

    @Test
    void aRefreshReadsOnlyTheTreesProcesses() {
        assumeTrue(childrenFiles(), "this kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN is off)");
        CountingReads counting = new CountingReads(new LinuxJobTree.ProcfsReads(proc, memory));
        LinuxJobTree tree = new LinuxJobTree(key, JobTreeOptions.basic().withPss().withOpenFds(), counting,
                Discovery.CHILDREN_FILES, Optional.empty());
        tree.rescan();
        counting.reset();
        JobSample s = tree.refresh();
        assertEquals(0, counting.snapshots.get(), "no snapshot");
        assertEquals(pids(s), counting.touched, "only the tree's pids, each of them");
        assertTrue(counting.reads.get() <= 4 * s.members().size(), "a handful of reads per member: " + counting.reads);
    }

    @ParameterizedTest
    @EnumSource(Discovery.class)
    void reportsWhoLeftAndMeasuresCpuBetweenRefreshes(Discovery discovery) throws Exception {
        Opened opened = open(discovery, JobTreeOptions.basic());
        JobTree tree = opened.tree();
        JobSample first = opened.first();
        JobMember sleep303 = first.members().stream().filter(m -> m.process().ppid() == root.pid()
                && m.process().comm().equals("sleep")).findFirst().orElseThrow();
        ProcessHandle.of(sleep303.pid()).orElseThrow().destroyForcibly();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        // /proc/uptime counts in 10 ms steps: two refreshes within one step span no time to share CPU over.
        Thread.sleep(50);
        JobSample second = tree.refresh();
        while (second.member(sleep303.pid()).isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            second = tree.refresh();
        }
        assertEquals(java.util.List.of(sleep303.process().key()), second.left());
        assertTrue(second.joined().isEmpty(), "nobody joined: " + second.joined());
        assertEquals(first.members().size() - 1, second.members().size());
        assertTrue(second.cpuPercent().isPresent(), "CPU between the refreshes");
        assertEquals(second.members().stream().mapToDouble(m -> m.cpuPercent().orElseThrow()).sum(),
                second.cpuPercent().getAsDouble(), 1e-9);
    }

    @Test
    void theSnapshotFallbackFindsTheJobsProcessesAndSaysWhy() {
        LinuxJobTree snapshots = new LinuxJobTree(key, JobTreeOptions.basic(), new LinuxJobTree.ProcfsReads(proc, memory),
                Discovery.FULL_SNAPSHOT, Optional.of("forced"));
        JobSample s = snapshots.rescan();
        assertEquals(session(), pids(s));
        assertEquals(Optional.of("forced"), s.fallbackReason());
    }

    @Test
    void aReusedOrEndedRootIsRefused() {
        assertThrows(NoSuchProcessException.class,
                () -> proc.jobTree(new ProcessKey(root.pid(), key.startTimeTicks() + 1), JobTreeOptions.basic(),
                        memory));
    }

    /** Counts the reads and the distinct pids they touch. */
    static final class CountingReads implements LinuxJobTree.Reads {
        final LinuxJobTree.Reads inner;
        final Set<Long> touched = new TreeSet<>();
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger snapshots = new AtomicInteger();

        CountingReads(LinuxJobTree.Reads inner) {
            this.inner = inner;
        }

        void reset() {
            touched.clear();
            reads.set(0);
            snapshots.set(0);
        }

        private void touch(long pid) {
            touched.add(pid);
            reads.incrementAndGet();
        }

        @Override
        public ProcessInfo process(long pid) {
            touch(pid);
            return inner.process(pid);
        }

        @Override
        public long[] children(long pid) {
            touch(pid);
            return inner.children(pid);
        }

        @Override
        public OptionalLong pss(long pid) {
            touch(pid);
            return inner.pss(pid);
        }

        @Override
        public OptionalInt openFds(long pid) {
            touch(pid);
            return inner.openFds(pid);
        }

        @Override
        public ProcessSnapshot snapshot() {
            snapshots.incrementAndGet();
            return inner.snapshot();
        }

        @Override
        public java.time.Duration uptime() {
            return inner.uptime();
        }
    }
}
