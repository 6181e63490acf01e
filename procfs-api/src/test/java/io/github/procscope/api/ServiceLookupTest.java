package io.github.procscope.api;

import io.github.procscope.api.core.ImplementationNotFoundException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.system.SystemResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The API alone, without procfs-impl-linux on the class path. */
class ServiceLookupTest {
    @Test
    void withoutAnImplementationTheErrorNamesTheMissingArtifact() {
        ImplementationNotFoundException e = assertThrows(ImplementationNotFoundException.class, Procscope::system);
        assertTrue(e.getMessage().contains("io.github.procscope:procfs-impl-linux"), e.getMessage());
        assertTrue(e.getMessage().contains("io.github.procscope.api.PlatformProvider"), e.getMessage());
    }

    @Test
    void aFailureIsNotCachedTheSecondCallFailsTheSameWay() {
        // Every entry point, twice: the same typed exception each time (no ExceptionInInitializerError, then
        // NoClassDefFoundError, as a failed static initializer would give).
        List<Executable> entries = List.of(Procscope::system, () -> Procscope.at(Path.of("/proc"), Path.of("/sys")));
        for (Executable entry : entries) {
            ImplementationNotFoundException first = assertThrows(ImplementationNotFoundException.class, entry);
            ImplementationNotFoundException second = assertThrows(ImplementationNotFoundException.class, entry);
            assertEquals(first.getMessage(), second.getMessage());
        }
    }

    @Test
    void withoutTheGpuBindingOpenGpusSaysSo() {
        Procscope fake = new Procscope() {
            @Override
            public Path procfsRoot() {
                return Path.of("/proc");
            }

            @Override
            public Path sysfsRoot() {
                return Path.of("/sys");
            }

            @Override
            public boolean isLive() {
                throw new UnsupportedOperationException();
            }

            @Override
            public JobTree jobTree(ProcessKey root, JobTreeOptions options) {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.github.procscope.api.signals.PreemptionGuard preemptionGuard(
                    io.github.procscope.api.signals.PreemptionGuardOptions options) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ProcessTable processes() {
                throw new UnsupportedOperationException();
            }

            @Override
            public ProcessMemory memory() {
                throw new UnsupportedOperationException();
            }

            @Override
            public OpenFiles openFiles() {
                throw new UnsupportedOperationException();
            }

            @Override
            public SystemResources resources() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Signals signals() {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.github.procscope.api.events.ProcessEvents events() {
                throw new UnsupportedOperationException();
            }

            @Override
            public KernelLog kernelLog() {
                throw new UnsupportedOperationException();
            }

            @Override
            public KernelLog kernelLog(Path kmsgFile) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Doctor doctor() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Doctor doctor(java.util.Optional<KernelLog> kernelLog, boolean gpus) {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.github.procscope.api.job.JobSupervisor jobs() {
                throw new UnsupportedOperationException();
            }
        };
        for (int i = 0; i < 2; i++) {
            GpuUnavailableException e = assertThrows(GpuUnavailableException.class, fake::openGpus);
            assertSame(GpuUnavailableException.Reason.BINDING_ABSENT, e.reason());
            assertTrue(e.getMessage().contains("nvml-binding"), e.getMessage());
        }
    }

    @Test
    void withoutTheKubernetesModuleItsProviderIsNotFoundAndTheErrorNamesTheArtifact() {
        ImplementationNotFoundException e = assertThrows(ImplementationNotFoundException.class,
                () -> Providers.first(KubernetesNamesProvider.class, "procscope-kubernetes"));
        assertTrue(e.getMessage().contains("io.github.procscope:procscope-kubernetes"), e.getMessage());
    }
}
