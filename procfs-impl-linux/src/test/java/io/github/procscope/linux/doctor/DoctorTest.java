package io.github.procscope.linux.doctor;

import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The process checks of the doctor, on fixture trees and on problems staged for real. */
class DoctorTest {
    private static final DoctorOptions NOW = DoctorOptions.defaults().withSampleWindow(Duration.ZERO)
            .withAges(Duration.ZERO, Duration.ZERO);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    private static LinuxDoctor fixtureDoctor(String tree) {
        LinuxProcfs proc = LinuxProcfs.builder(Fixtures.dir(tree)).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        return LinuxDoctor.builder(proc).kernelLog(LinuxKernelLog.at(Fixtures.dir("kmsg/clean.txt"), proc.bootTime())).build();
    }

    /** A fixture process table that records what the doctor asks of it, and can make one pid's process end. */
    private static final class RecordingTable implements ProcessTable {
        final LinuxProcfs proc;
        final List<Set<Facet>> snapshots = new ArrayList<>();
        final List<String> rereads = new ArrayList<>();
        long ended = -1;

        RecordingTable(String tree) {
            proc = LinuxProcfs.builder(Fixtures.dir(tree)).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        }

        @Override
        public ProcessSnapshot snapshot(Set<Facet> facets) {
            snapshots.add(Set.copyOf(facets));
            return proc.snapshot(facets);
        }

        @Override
        public ProcessInfo process(long pid, Set<Facet> facets) {
            rereads.add(pid + " " + new java.util.TreeSet<>(facets));
            if (pid == ended) {
                throw new NoSuchProcessException(pid, "no such process: pid " + pid);
            }
            return proc.process(pid, facets);
        }

        @Override
        public ProcessStatus status(long pid) {
            return proc.status(pid);
        }

        @Override
        public List<String> cmdline(long pid) {
            return proc.cmdline(pid);
        }

        @Override
        public List<ThreadInfo> threads(long pid, Set<Facet> facets) {
            return proc.threads(pid, facets);
        }

        @Override
        public Instant bootTime() {
            return proc.bootTime();
        }

        @Override
        public Duration uptime() {
            return proc.uptime();
        }

        @Override
        public long clockTicksPerSecond() {
            return proc.clockTicksPerSecond();
        }

        @Override
        public long pageSizeBytes() {
            return proc.pageSizeBytes();
        }

    }

    @Test
    void theSnapshotsReadNoFacetAndOnlyACandidateIsReadAgain() {
        RecordingTable t = new RecordingTable("proc");
        Diagnosis d = LinuxDoctor.builder(t).build().examine(NOW);
        assertEquals(List.of(Set.of(), Set.of()), t.snapshots,
                "with facets, two snapshots of thousands of processes hold every status and command line");
        assertEquals(List.of("200 [STATUS]"), t.rereads, "the one process on a terminal that is not a shell");
        assertEquals(List.of(200L), d.of(FindingKind.HANGUP_VULNERABLE).get(0).pids());
    }

    @Test
    void aCandidateThatEndedBeforeItWasReadAgainIsNotReported() {
        RecordingTable t = new RecordingTable("proc");
        t.ended = 200;
        Diagnosis d = LinuxDoctor.builder(t).build().examine(NOW);
        assertEquals(List.of(), d.of(FindingKind.HANGUP_VULNERABLE), "its pid may belong to another process by now");
        assertEquals(1, d.of(FindingKind.ZOMBIE).size(), "the other checks still ran");
    }

    @Test
    void aCleanTreeHasNothingToReport() {
        Diagnosis d = fixtureDoctor("proc-clean").examine(NOW);
        assertEquals(List.of(), d.findings());
        assertEquals(List.of(), d.skipped());
        assertFalse(d.hasWarnings());
    }

    @Test
    void theHostileTreeShowsItsZombieAndItsUnprotectedTerminalProcess() {
        Diagnosis d = fixtureDoctor("proc").examine(NOW);
        Finding z = d.of(FindingKind.ZOMBIE).get(0);
        assertEquals(List.of(100L, 300L), z.pids());
        Evidence.Zombies ze = (Evidence.Zombies) z.evidence();
        assertEquals(100L, ze.parentPid());
        assertEquals(List.of(300L), ze.zombiePids());
        assertEquals(Severity.WARNING, z.severity());
        Finding h = d.of(FindingKind.HANGUP_VULNERABLE).get(0);
        assertEquals(List.of(200L), h.pids(), "bash is a shell; 201 has no terminal");
        assertEquals("pts/0", ((Evidence.HangupVulnerable) h.evidence()).tty());
        assertEquals(List.of(), d.of(FindingKind.PID1_NOT_INIT), "PID 1 is systemd");
        assertEquals(List.of(), d.of(FindingKind.ORPHAN), "children of PID 1 there are session leaders");
    }

    @Test
    void oomKillsInTheKernelLogAreFindings() {
        LinuxProcfs proc = LinuxProcfs.builder(Fixtures.dir("proc-clean")).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        Diagnosis d = LinuxDoctor.builder(proc).kernelLog(LinuxKernelLog.at(Fixtures.dir("kmsg/oom-5x-global.txt"),
                Instant.parse("2026-12-01T00:00:00Z"))).build().examine(NOW);
        Finding f = d.of(FindingKind.OOM_KILL).get(0);
        assertEquals(List.of(1234L), f.pids());
        OomKill kill = ((Evidence.OomKilled) f.evidence()).kill();
        assertEquals(java.util.OptionalLong.of(30_000_000L * 1024), kill.anonRssBytes());
        assertEquals(Optional.of(Instant.parse("2026-12-02T00:00:00.000200Z")), kill.time());
        assertFalse(kill.memoryCgroup());
    }

    @Test
    void anUnreadableKernelLogIsListedAsSkipped() {
        LinuxProcfs proc = LinuxProcfs.builder(Fixtures.dir("proc-clean")).clockTicksPerSecond(100).pageSizeBytes(4096).build();
        Diagnosis d = LinuxDoctor.builder(proc).kernelLog(LinuxKernelLog.at(java.nio.file.Path.of("/nonexistent/kmsg"),
                proc.bootTime())).build().examine(NOW);
        assertEquals(List.of(), d.findings());
        assertEquals(1, d.skipped().size());
        assertTrue(d.skipped().get(0).startsWith("kernel log: "), d.skipped().toString());
    }

    @Test
    void liveZombieOrphanAndHangupAreFoundWithTheirPids() {
        Process zombieParent = spawned.start("sh", "-c",
                "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 60");
        Process orphanMaker = spawned.start("sh", "-c", "sleep 60 & echo $!");
        long orphan = Long.parseLong(Spawned.readLine(orphanMaker, WAIT).trim());
        spawned.adopt(orphan);
        assumeTrue(Commands.available("script"), "script (util-linux) gives a process a terminal");
        // HUP back to its default for the sleep: under nohup (a build started with it) every child inherits an
        // ignored HUP, and a sleep that ignores it is rightly not reported.
        Process term = spawned.start("script", "-q", "-c", "env --default-signal=HUP sleep 61", "/dev/null");
        Process nohupTerm = spawned.start("script", "-q", "-c", "nohup sleep 62 >/dev/null 2>&1", "/dev/null");
        LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
        Spawned.await(WAIT, "zombie, orphan and terminal sleeps", () -> {
            var s = proc.snapshot();
            return s.tree().zombiesByParent().containsKey(zombieParent.pid())
                    && s.find(orphan).map(p -> p.ppid() != orphanMaker.pid()).orElse(false)
                    && s.processes().stream().filter(p -> p.comm().equals("sleep") && p.ttyNr() != 0).count() >= 2;
        });
        long termSleep = proc.snapshot().tree().descendants(term.pid()).stream()
                .filter(p -> p.comm().equals("sleep")).findFirst().orElseThrow().pid();
        long nohupSleep = proc.snapshot().tree().descendants(nohupTerm.pid()).stream()
                .filter(p -> p.comm().equals("sleep")).findFirst().orElseThrow().pid();

        long adopter = proc.process(orphan).ppid();
        DoctorOptions opts = DoctorOptions.defaults().withSampleWindow(Duration.ofMillis(300))
                .withAges(Duration.ZERO, Duration.ZERO).withSubreapers(adopter == 1 ? Set.of() : Set.of(adopter));
        Diagnosis d = Procscope.system().doctor().examine(opts);

        Finding z = d.of(FindingKind.ZOMBIE).stream().filter(f -> f.pids().contains(zombieParent.pid()))
                .findFirst().orElseThrow(() -> new AssertionError("no zombie finding for " + zombieParent.pid() + ": " + d));
        Evidence.Zombies ze = (Evidence.Zombies) z.evidence();
        assertEquals(zombieParent.pid(), ze.parentPid());
        assertEquals(1, ze.zombiePids().size());

        Finding o = d.of(FindingKind.ORPHAN).stream().filter(f -> f.pids().equals(List.of(orphan)))
                .findFirst().orElseThrow(() -> new AssertionError("no orphan finding for " + orphan + ": " + d));
        assertEquals(Severity.WARNING, o.severity(), "idle over the window and old enough");
        Evidence.Orphan oe = (Evidence.Orphan) o.evidence();
        assertEquals("sleep 60", oe.cmdline());
        assertEquals(0.0, oe.cpuPercent());

        assertTrue(d.of(FindingKind.HANGUP_VULNERABLE).stream().anyMatch(f -> f.pids().contains(termSleep)),
                "sleep on a terminal without HUP protection: " + d.of(FindingKind.HANGUP_VULNERABLE));
        assertTrue(d.of(FindingKind.HANGUP_VULNERABLE).stream().noneMatch(f -> f.pids().contains(nohupSleep)),
                "nohup ignores HUP");
        assertTrue(d.hasWarnings());
    }
}
