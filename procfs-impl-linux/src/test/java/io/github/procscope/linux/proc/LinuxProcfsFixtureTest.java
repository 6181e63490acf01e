package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.api.process.ThreadInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole reader over the hand-written hostile /proc tree. */
class LinuxProcfsFixtureTest {
    private final LinuxProcfs proc = Fixtures.procfs();

    @Test
    void snapshotListsEveryProcessDirectoryAndNothingElse() {
        ProcessSnapshot s = proc.snapshot();
        List<Long> pids = s.processes().stream().map(ProcessInfo::pid).toList();
        assertEquals(List.of(1L, 2L, 10L, 100L, 200L, 201L, 300L, 400L, 500L, 600L, 700L), pids,
                "12abc, sys and meminfo are not processes");
        assertEquals(Duration.ofMillis(1_000_500), s.uptime());
        assertEquals(Set.of(), s.facets());
    }

    @Test
    void plainSnapshotReadsNoFacets() {
        for (ProcessInfo p : proc.snapshot().processes()) {
            assertEquals(Optional.empty(), p.cmdline(), "pid " + p.pid());
            assertEquals(Optional.empty(), p.status(), "pid " + p.pid());
        }
    }

    @Test
    void timesAreAnchoredAtBootTime() {
        ProcessInfo bash = proc.snapshot().get(100);
        assertEquals(Instant.parse("2025-12-02T10:40:00Z"), proc.bootTime());
        assertEquals(Instant.parse("2025-12-02T10:40:10Z"), bash.startTime(), "1000 ticks at 100 Hz after boot");
        assertEquals(Duration.ofMillis(990_500), bash.elapsed(), "uptime 1000.5 s minus 10 s");
        assertEquals(Duration.ofSeconds(3), bash.cpuTime());
        assertEquals(100.0 * 3 / 990.5, bash.lifetimeCpuPercent(), 1e-9);
        assertEquals(Optional.of("pts/0"), bash.tty());
        assertEquals(1100 * 4096, bash.rssBytes(), "statm's exact resident count wins over stat's estimate");
        assertEquals(1024 * 4096, bash.stat().rssBytes());
        assertEquals(new io.github.procscope.api.process.ProcessStatm(3000 * 4096L, 1100 * 4096L, 700 * 4096L,
                225 * 4096L, 400 * 4096L), bash.statm().orElseThrow());
    }

    @Test
    void ownerComesFromTheProcessDirectory() throws IOException {
        int uid = (Integer) Files.getAttribute(Fixtures.proc().resolve("100"), "unix:uid");
        ProcessInfo bash = proc.process(100);
        assertEquals(uid, bash.uid());
        assertEquals(Optional.of(Files.getOwner(Fixtures.proc().resolve("100")).getName()), bash.user());
    }

    @Test
    void facetsAreReadWhenAskedFor() {
        ProcessSnapshot s = proc.snapshot(EnumSet.allOf(Facet.class));
        ProcessInfo bash = s.get(100);
        assertEquals(Optional.of(List.of("bash", "--login")), bash.cmdline());
        assertEquals(100, bash.status().orElseThrow().pid());
        assertEquals(java.util.OptionalLong.of(128 * 1024), bash.swapBytes());
        assertTrue(bash.signalMasks().orElseThrow().ignoresHangup());
        assertEquals(Optional.of(List.of("/tmp/a) (b c", "600")), s.get(200).cmdline());
        assertEquals(Optional.of(List.of("python train.py --title rewritten without nul")), s.get(500).cmdline());
    }

    @Test
    void withoutStatmRssFallsBackToStat() {
        ProcessInfo p = proc.process(200);
        assertEquals(Optional.empty(), p.statm());
        assertEquals(200 * 4096, p.rssBytes());
        assertEquals(0, proc.process(300).rssBytes(), "the zombie's statm is all zeros");
    }

    @Test
    void zombiesAndKernelThreadsHaveEmptyCommandLines() {
        ProcessSnapshot s = proc.snapshot(Set.of(Facet.CMDLINE));
        assertEquals(Optional.of(List.of()), s.get(300).cmdline());
        assertEquals(Optional.of(List.of()), s.get(2).cmdline());
        assertEquals(ProcessState.ZOMBIE, s.get(300).state());
        assertTrue(s.get(2).isKernelThread());
        assertTrue(s.get(10).isKernelThread());
        assertFalse(s.get(100).isKernelThread());
    }

    @Test
    void missingFilesOfALiveProcessLeaveTheFacetEmpty() {
        ProcessInfo partial = proc.snapshot(EnumSet.allOf(Facet.class)).get(400);
        assertEquals("partial", partial.comm());
        assertEquals(Optional.empty(), partial.cmdline());
        assertEquals(Optional.empty(), partial.status());
        ProcfsException e = assertThrows(ProcfsException.class, () -> proc.status(400));
        assertTrue(e.getMessage().contains("missing although pid 400 exists"), e.getMessage());
    }

    @Test
    void hostileNamesSurviveTheWholeReader() {
        ProcessSnapshot s = proc.snapshot(Set.of(Facet.STATUS));
        assertEquals("a) (b c", s.get(200).comm());
        assertEquals("new\nline", s.get(600).comm());
        assertEquals("new\nline", s.get(600).status().orElseThrow().name());
        assertEquals("학습", s.get(700).comm());
        assertEquals("x", s.get(201).comm());
    }

    @Test
    void threadsAreTheSameParsersRootedAtTask() {
        List<ThreadInfo> threads = proc.threads(100, Set.of(Facet.STATUS));
        assertEquals(List.of(100L, 101L), threads.stream().map(ThreadInfo::tid).toList());
        assertEquals(List.of("bash", "worker-1"), threads.stream().map(ThreadInfo::name).toList());
        assertTrue(threads.get(0).isMainThread());
        assertFalse(threads.get(1).isMainThread());
        assertEquals(ProcessState.RUNNING, threads.get(1).state());
        assertEquals(100, threads.get(1).tgid());
        assertFalse(threads.get(0).status().orElseThrow().signals().blocksTerm());
        assertTrue(threads.get(1).status().orElseThrow().signals().blocksTerm());
        assertEquals(Instant.parse("2025-12-02T10:40:10.10Z"), threads.get(1).startTime());
    }

    @Test
    void threadsCarryTheirOwnIoAndWaitChannelOnlyWhenAskedFor() {
        List<ThreadInfo> plain = proc.threads(100, Set.of());
        assertTrue(plain.get(0).io().isEmpty() && plain.get(0).wchan().isEmpty());
        List<ThreadInfo> threads = proc.threads(100, Set.of(Facet.IO, Facet.WCHAN));
        assertEquals(8192, threads.get(0).io().orElseThrow().storageWriteBytes());
        assertEquals(12288, threads.get(1).io().orElseThrow().storageWriteBytes());
        assertEquals(Optional.of("do_wait"), threads.get(0).wchan());
        assertEquals(Optional.empty(), threads.get(1).wchan(), "a running thread's wchan is 0");
        assertTrue(threads.get(0).status().isEmpty());
    }

    @Test
    void limitsAreReadFromTheProcessDirectory() {
        assertEquals(java.util.OptionalLong.of(1024), proc.limits(100).openFiles().orElseThrow().soft());
        assertThrows(NoSuchProcessException.class, () -> proc.limits(4242));
        assertThrows(IllegalArgumentException.class, () -> proc.limits(0));
    }

    @Test
    void aProcessWithoutTaskDirectoryHasItsThreadsAbsentNotInvented() {
        assertThrows(ProcfsException.class, () -> proc.threads(200));
        assertThrows(NoSuchProcessException.class, () -> proc.threads(4242));
    }

    @Test
    void absentPidsAreNoSuchProcess() {
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> proc.process(4242));
        assertEquals(4242, e.pid());
        assertTrue(e.getMessage().contains("4242"));
        assertEquals(Optional.empty(), proc.find(4242));
        assertThrows(NoSuchProcessException.class, () -> proc.status(4242));
        assertThrows(NoSuchProcessException.class, () -> proc.cmdline(4242));
        assertThrows(NoSuchProcessException.class, () -> proc.snapshot().get(4242));
    }

    @Test
    void processKeyGuardsAgainstRecycledPids() {
        ProcessInfo bash = proc.process(100);
        assertEquals(bash.pid(), proc.process(bash.key(), Set.of()).pid());
        var recycled = new io.github.procscope.api.core.ProcessKey(100, bash.startTimeTicks() + 1);
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> proc.process(recycled, Set.of()));
        assertTrue(e.getMessage().contains("reused"), e.getMessage());
        assertTrue(proc.snapshot().find(bash.key()).isPresent());
        assertTrue(proc.snapshot().find(recycled).isEmpty());
    }

    @Test
    void treeOfTheFixture() {
        ProcessTree t = proc.snapshot().tree();
        assertEquals(List.of(1L, 2L), t.roots().stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(200L, 201L, 300L), t.children(100).stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(100L, 400L, 500L, 600L, 700L, 200L, 201L, 300L),
                t.descendants(1).stream().map(ProcessInfo::pid).toList());
        assertEquals(List.of(100L, 1L), t.ancestors(200).stream().map(ProcessInfo::pid).toList());
        assertEquals(1100 * 4096 + 200 * 4096 + 2 * 4096, t.subtreeRssBytes(100),
                "200 and 201 have no statm in the fixture: their stat counts stand in");
        assertEquals(1, t.zombies().size());
        assertEquals(300, t.zombies().get(0).process().pid());
        assertEquals(100, t.zombies().get(0).parent().orElseThrow().pid());
        assertEquals(List.of(100L), List.copyOf(t.zombiesByParent().keySet()));
        assertEquals(List.of(100L, 400L, 500L, 600L, 700L),
                t.orphans().stream().map(o -> o.process().pid()).toList(), "kernel threads are never orphans");
        assertEquals(List.of(100L, 200L, 201L, 300L, 400L, 500L, 600L, 700L),
                t.orphans(Set.of(100L)).stream().map(o -> o.process().pid()).toList(), "with 100 as a subreaper");
        assertEquals(Duration.ofMillis(990_500), t.orphans().get(0).age());
    }

    @Test
    void rootsThatAreNotAProcfsAreRefusedClearly(@TempDir Path tmp) throws IOException {
        ProcfsUnavailableException missing = assertThrows(ProcfsUnavailableException.class,
                () -> LinuxProcfs.at(tmp.resolve("nope")));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        assertThrows(ProcfsUnavailableException.class, () -> LinuxProcfs.at(tmp));
        Files.writeString(tmp.resolve("stat"), "cpu 1 2 3\n");
        ProcfsUnavailableException noBtime = assertThrows(ProcfsUnavailableException.class, () -> LinuxProcfs.at(tmp));
        assertTrue(noBtime.getMessage().contains("btime"), noBtime.getMessage());
        Path file = Files.writeString(tmp.resolve("afile"), "x");
        assertTrue(assertThrows(ProcfsUnavailableException.class, () -> LinuxProcfs.at(file))
                .getMessage().contains("not a directory"));
        assertThrows(ProcfsUnavailableException.class, () -> LinuxProcfs.at(Path.of("/etc")));
    }

    @Test
    void builderRejectsImpossibleConstants() {
        assertThrows(IllegalArgumentException.class, () -> LinuxProcfs.builder(Fixtures.proc()).clockTicksPerSecond(0));
        assertThrows(IllegalArgumentException.class, () -> LinuxProcfs.builder(Fixtures.proc()).pageSizeBytes(3000));
    }

    @Test
    void readsByKeyCheckTheProcessIsStillTheOneNamed() {
        ProcessKey key = proc.key(100);
        assertEquals(proc.status(100), proc.status(key));
        assertEquals(proc.cmdline(100), proc.cmdline(key));
        assertEquals(proc.threads(100, Set.of()), proc.threads(key, Set.of()));
        assertEquals(proc.process(100), proc.process(key));
        ProcessKey stale = new ProcessKey(100, key.startTimeTicks() + 1);
        assertThrows(NoSuchProcessException.class, () -> proc.status(stale));
        assertThrows(NoSuchProcessException.class, () -> proc.cmdline(stale));
        assertThrows(NoSuchProcessException.class, () -> proc.threads(stale, Set.of()));
        assertThrows(NoSuchProcessException.class, () -> proc.process(stale));
    }
}
