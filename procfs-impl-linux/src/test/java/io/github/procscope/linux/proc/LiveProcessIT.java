package io.github.procscope.linux.proc;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The live system, against processes this test starts and ends by pid, cross-checked with ps. */
class LiveProcessIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final Spawned spawned = new Spawned();

    @AfterEach
    void endEverything() {
        spawned.close();
    }

    /**
     * Compares with ps. A process that has just started may still be settling (running, faulting pages
     * in), so a mismatch is retried on fresh reads for a while before it counts.
     */
    private void assertAgreesWithPs(ProcessInfo first) {
        ProcessInfo p = first;
        for (int attempt = 0; ; attempt++) {
            PsLine ps = PsLine.of(p.pid());
            try {
                assertEquals(ps.pid(), p.pid());
                assertEquals(ps.ppid(), p.ppid(), "ppid of " + p.pid());
                assertEquals(ps.stat().charAt(0), p.state().letter(), "state of " + p.pid() + " (ps: " + ps.stat() + ")");
                assertEquals(ps.nlwp(), p.threads(), "threads of " + p.pid());
                assertEquals(ps.rssKib() * 1024, p.rssBytes(), "rss of " + p.pid());
                assertEquals(ps.vszKib() * 1024, p.vszBytes(), "vsz of " + p.pid());
                assertEquals(ps.comm(), p.comm(), "comm of " + p.pid());
                return;
            } catch (AssertionError e) {
                if (attempt >= 20) {
                    throw e;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            p = proc.process(p.pid());
        }
    }

    @Test
    void systemTableIsFoundThroughServiceLoader() {
        ProcessTable t = Procscope.system().processes();
        assertTrue(t instanceof LinuxProcfs);
        assertEquals(Path.of("/proc"), ((LinuxProcfs) t).root());
        assertSame(t, Procscope.system().processes(), "one shared instance");
    }

    @Test
    void ownProcessMatchesTheJdk() {
        long me = ProcessHandle.current().pid();
        ProcessInfo p = proc.process(me, EnumSet.allOf(Facet.class));
        assertEquals(me, p.pid());
        assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), p.ppid());
        // The JDK counts from btime, whole seconds; the table from the boot instant to 10 ms.
        assertEquals(ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli(),
                p.startTime().toEpochMilli(), 1010.0, "start time to within btime's second");
        long sum = p.startTime().plus(p.elapsed()).toEpochMilli();
        assertEquals(System.currentTimeMillis(), sum, 100.0, "startTime + elapsed is now");
        assertEquals(System.getProperty("user.name"), p.user().orElseThrow());
        assertTrue(p.state() == ProcessState.RUNNING || p.state() == ProcessState.SLEEPING, p.state().toString());
        assertTrue(p.statm().isPresent(), "statm is read in every snapshot");
        assertTrue(p.cmdline().orElseThrow().get(0).endsWith("java"), p.cmdline().toString());
        assertTrue(p.status().orElseThrow().threads() > 1);
    }

    @Test
    void fourNamedThreadsAreFiveTasks() {
        Process helper = spawned.start(NativeHelpers.executable("four_threads").toString());
        long pid = Long.parseLong(Spawned.readLine(helper, WAIT).trim());
        assertEquals(helper.pid(), pid);

        ProcessInfo p = proc.process(pid);
        assertEquals(5, p.threads());
        assertAgreesWithPs(p);
        List<ThreadInfo> threads = proc.threads(pid, Set.of(Facet.STATUS));
        assertEquals(5, threads.size());
        assertEquals(List.of("four_threads", "worker-0", "worker-1", "worker-2", "worker-3"),
                threads.stream().map(ThreadInfo::name).sorted().collect(Collectors.toList()));
        assertEquals(pid, threads.get(0).tid(), "the main thread's id is the pid");
        assertTrue(threads.stream().allMatch(t -> t.tgid() == pid));
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            assertEquals(5, tasks.count(), "ls /proc/PID/task | wc -l");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void zombieIsReportedWithItsParent() {
        Process sh = spawned.start("sh", "-c", "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 30");
        long parent = sh.pid();
        Spawned.await(WAIT, "a zombie child of " + parent, () -> proc.snapshot().tree().children(parent).stream()
                .anyMatch(c -> c.state() == ProcessState.ZOMBIE));
        ProcessSnapshot s = proc.snapshot(Set.of(Facet.CMDLINE));
        ProcessInfo zombie = s.tree().children(parent).get(0);
        assertEquals(ProcessState.ZOMBIE, zombie.state());
        assertEquals("sleep", zombie.comm());
        assertEquals(List.of(), zombie.cmdline().orElseThrow(), "a zombie has no command line");
        assertEquals(parent, s.tree().zombies().stream().filter(z -> z.process().pid() == zombie.pid())
                .findFirst().orElseThrow().parent().orElseThrow().pid());
        assertEquals("sleep", s.get(parent).comm(), "the parent exec'd sleep, which never reaps");
        assertAgreesWithPs(zombie);
        assertAgreesWithPs(proc.process(parent));
    }

    @Test
    void orphanIsReparentedWhenItsParentExits() throws IOException {
        Process sh = spawned.start("sh", "-c", "sleep 30 & echo $!; read x");
        long child = Long.parseLong(Spawned.readLine(sh, WAIT).trim());
        spawned.adopt(child);
        assertEquals(sh.pid(), proc.process(child).ppid(), "before: the shell is the parent");
        try (OutputStream in = sh.getOutputStream()) {
            in.write('\n');
        }
        Spawned.await(WAIT, "the shell to exit", () -> !sh.isAlive());
        Spawned.await(WAIT, "re-parenting of " + child, () -> proc.process(child).ppid() != sh.pid());
        ProcessInfo orphan = proc.process(child);
        assertNotEquals(sh.pid(), orphan.ppid());
        assertAgreesWithPs(orphan);
        ProcessSnapshot s = proc.snapshot();
        boolean adoptedByInit = orphan.ppid() == 1;
        var orphans = s.tree().orphans(adoptedByInit ? Set.of() : Set.of(orphan.ppid()));
        assertTrue(orphans.stream().anyMatch(o -> o.process().pid() == child),
                "listed as an orphan of " + orphan.ppid());
    }

    @Test
    void commWithParenthesesAndSpacesIsExact(@TempDir Path tmp) throws IOException {
        Path weird = tmp.resolve("a) (b c");
        Files.copy(Path.of("/bin/sleep"), weird, StandardCopyOption.COPY_ATTRIBUTES);
        Process p = spawned.start(weird.toString(), "30");
        Spawned.await(WAIT, "exec of the copy", () -> proc.process(p.pid()).comm().equals("a) (b c"));
        ProcessInfo info = proc.process(p.pid(), Set.of(Facet.STATUS, Facet.CMDLINE));
        assertEquals("a) (b c", info.comm());
        assertEquals("a) (b c", info.status().orElseThrow().name());
        assertEquals(List.of(weird.toString(), "30"), info.cmdline().orElseThrow());
        assertAgreesWithPs(info);
    }

    @Test
    void snapshotHoldsEveryProcessPsSeesBeforeAndAfter() {
        Set<Long> before = psPids();
        ProcessSnapshot s = proc.snapshot();
        Set<Long> after = psPids();
        before.retainAll(after);
        Set<Long> ours = s.processes().stream().map(ProcessInfo::pid).collect(Collectors.toSet());
        before.removeIf(ours::contains);
        assertEquals(Set.of(), before, "pids ps listed before and after but the snapshot lacks");
    }

    private static Set<Long> psPids() {
        return io.github.procscope.testing.Commands.run("ps", "-e", "-o", "pid=").lines()
                .map(String::trim).filter(l -> !l.isEmpty()).map(Long::parseLong)
                .collect(Collectors.toCollection(java.util.HashSet::new));
    }
}
