package io.github.procscope.frontdoor;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsUnavailableException;
import io.github.procscope.api.diagnose.Diagnosis;
import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.KernelLogUnavailableException;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.testing.FixtureTrees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Procscope#at} over a fixture tree reaches every reader through API types only: this package
 * imports nothing from {@code io.github.procscope.linux}.
 */
class ProcscopeAtFixtureTest {
    @TempDir
    Path scratch;

    /** proc-clean, plus the memory fixture's pid 1234, and two descriptors and a thread of pid 90. */
    private Path procTree() throws Exception {
        Path proc = FixtureTrees.copy(FixtureTrees.directory("proc-clean", scratch), scratch.resolve("proc"));
        FixtureTrees.copy(FixtureTrees.directory("proc-memory", scratch).resolve("1234"), proc.resolve("1234"));
        Path fd = Files.createDirectories(proc.resolve("90/fd"));
        Path info = Files.createDirectories(proc.resolve("90/fdinfo"));
        Files.createSymbolicLink(fd.resolve("0"), Path.of("pipe:[77]"));
        Files.writeString(info.resolve("0"), "pos:\t0\nflags:\t00\nmnt_id:\t15\nino:\t77\n");
        Files.createSymbolicLink(fd.resolve("3"), Path.of("/data/old.log (deleted)"));
        Files.writeString(info.resolve("3"), "pos:\t100\nflags:\t0100001\nmnt_id:\t27\nino:\t9\n");
        Path task = Files.createDirectories(proc.resolve("90/task/90"));
        Files.copy(proc.resolve("90/stat"), task.resolve("stat"));
        Files.copy(proc.resolve("90/status"), task.resolve("status"));
        return proc;
    }

    @Test
    void everyReaderOfAFixtureRoot() throws Exception {
        Path proc = procTree();
        Path sys = FixtureTrees.directory("sys-clean", scratch);
        Procscope scope = Procscope.at(proc, sys);
        assertEquals(proc, scope.procfsRoot());
        assertEquals(sys, scope.sysfsRoot());

        ProcessInfo python = scope.processes().process(90);
        assertEquals("python", python.comm());
        assertTrue(scope.processes().snapshot().processes().stream().anyMatch(p -> p.pid() == 90));
        assertSame(scope.processes(), scope.processes(), "a reader made once is kept");

        MemoryMaps maps = scope.memory().smaps(1234);
        assertFalse(maps.regions().isEmpty());
        assertTrue(scope.memory().totals(1234).rssBytes() > 0);

        List<OpenFd> fds = scope.openFiles().fds(90);
        assertEquals(List.of(0, 3), fds.stream().map(OpenFd::fd).toList());

        assertTrue(scope.resources().memory().totalBytes() > 0);

        Dispositions d = scope.signals().dispositions(90);
        assertEquals(90, d.pid());
        ProcessKey key = python.key();
        assertTrue(scope.signals().isAlive(key));
        SignalsUnavailableException refused = assertThrows(SignalsUnavailableException.class,
                () -> scope.signals().send(key, Signal.TERM));
        assertTrue(refused.getMessage().contains(proc.toString()), refused.getMessage());
        assertThrows(SignalsUnavailableException.class, () -> scope.signals().stopTree(key, StopOptions.defaults()));

        KernelLogUnavailableException noLog = assertThrows(KernelLogUnavailableException.class,
                () -> scope.kernelLog().oomKills());
        assertTrue(noLog.getMessage().contains(proc.toString()), noLog.getMessage());
        Path kmsg = FixtureTrees.directory("kmsg", scratch).resolve("oom-run-9.txt");
        assertFalse(scope.kernelLog(kmsg).oomKills().isEmpty());

        GpuUnavailableException noGpu = assertThrows(GpuUnavailableException.class, scope::openGpus);
        assertSame(GpuUnavailableException.Reason.BINDING_ABSENT, noGpu.reason());

        DoctorOptions now = DoctorOptions.defaults().withSampleWindow(Duration.ZERO).withDiskThresholds(99, 99);
        Diagnosis all = scope.doctor().examine(now);
        assertTrue(all.skipped().stream().anyMatch(s -> s.startsWith("GPUs: BINDING_ABSENT")), all.skipped().toString());
        Diagnosis withLog = scope.doctor(Optional.of(scope.kernelLog(kmsg)), false).examine(now);
        assertFalse(withLog.skipped().stream().anyMatch(s -> s.startsWith("GPUs")), withLog.skipped().toString());
        assertFalse(withLog.findings().isEmpty(), "the OOM kills of the log given are found");
    }

    @Test
    void aMissingProcRaisesTheSameTypedExceptionEveryTime() {
        Path missing = scratch.resolve("no-proc-here");
        Procscope scope = Procscope.at(missing, scratch);
        ProcfsUnavailableException first = assertThrows(ProcfsUnavailableException.class, scope::processes);
        ProcfsUnavailableException second = assertThrows(ProcfsUnavailableException.class, scope::processes);
        assertEquals(missing, first.root());
        assertEquals(first.getMessage(), second.getMessage());
        assertThrows(ProcfsUnavailableException.class, scope::resources);
        assertThrows(ProcfsUnavailableException.class, scope::openFiles);
        assertThrows(ProcfsUnavailableException.class, scope::memory);
        assertThrows(ProcfsUnavailableException.class, scope::doctor);
        assertThrows(ProcfsUnavailableException.class, scope::signals);
    }

    @Test
    void theLiveSystemIsOneInstanceAndSignalsThere() {
        assertSame(Procscope.system(), Procscope.system());
        assertNotSame(Procscope.at(Path.of("/proc"), Path.of("/sys")), Procscope.at(Path.of("/proc"), Path.of("/sys")));
        long self = ProcessHandle.current().pid();
        ProcessKey me = Procscope.system().processes().key(self);
        assertTrue(Procscope.system().signals().isAlive(me));
        // The live root sends: signal 0 would be refused only for this JVM itself, which is the guard's target.
        assertThrows(IllegalArgumentException.class, () -> Procscope.system().signals().send(me, Signal.TERM));
    }

    @Test
    void onlyTheLiveProcIsLiveAndOnlyItGuardsThisJvm(@TempDir Path links) throws Exception {
        Path proc = procTree();
        assertTrue(Procscope.system().isLive());
        assertTrue(Procscope.at(Files.createSymbolicLink(links.resolve("proc"), Path.of("/proc")), Path.of("/sys"))
                .isLive(), "a link to /proc is /proc");
        Procscope fixture = Procscope.at(proc, Path.of("/sys"));
        assertFalse(fixture.isLive());
        assertFalse(Procscope.at(scratch.resolve("absent"), Path.of("/sys")).isLive());
        // This JVM's status cannot be read under a fixture root: the guard refuses there, naming the root.
        SignalsUnavailableException e = assertThrows(SignalsUnavailableException.class,
                () -> fixture.preemptionGuard(PreemptionGuardOptions.defaults()));
        assertTrue(e.getMessage().contains(proc.toString()), e.getMessage());
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults()
                .withSignals(Signal.WINCH).withExitOnSecondSignal(false))) {
            assertEquals(List.of(Signal.WINCH), guard.installed().signals(), guard.refused().toString());
        }
    }
}
