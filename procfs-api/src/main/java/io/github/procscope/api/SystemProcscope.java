package io.github.procscope.api;

import io.github.procscope.api.core.ImplementationNotFoundException;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;

import java.nio.file.Path;
import java.util.Objects;

/** Finds the platform and GPU implementations; keeps {@link Procscope#system()} once it has been made. */
final class SystemProcscope {
    private static final Path PROC = Path.of("/proc");
    private static final Path SYS = Path.of("/sys");
    private static final Object LOCK = new Object();
    private static volatile Procscope system;

    private SystemProcscope() {
    }

    static Procscope get() {
        Procscope s = system;
        if (s != null) {
            return s;
        }
        synchronized (LOCK) {
            if (system == null) {
                system = open(PROC, SYS); // only a success is kept
            }
            return system;
        }
    }

    static Procscope open(Path procfsRoot, Path sysfsRoot) {
        Objects.requireNonNull(procfsRoot, "procfsRoot");
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        return Providers.first(PlatformProvider.class, "procfs-impl-linux").open(procfsRoot, sysfsRoot);
    }

    static Gpus openGpus(Procscope procscope) {
        GpusProvider provider;
        try {
            provider = Providers.first(GpusProvider.class, "nvml-binding");
        } catch (ImplementationNotFoundException e) {
            throw new GpuUnavailableException(GpuUnavailableException.Reason.BINDING_ABSENT,
                    "no GPU implementation on the class path or module path: add io.github.procscope:nvml-binding"
                            + " to use NVIDIA GPUs (" + e.getMessage() + ")", e);
        }
        return provider.openGpus(procscope);
    }

    static KubernetesNames kubernetesNames(KubernetesOptions options) {
        return kubernetesNames(options, null);
    }

    /**
     * @param options the settings
     * @param log     where the line saying that there are no names goes, or null for the {@link System.Logger}
     * @return the names of {@code procscope-kubernetes}, or empty names when it is absent
     */
    static KubernetesNames kubernetesNames(KubernetesOptions options, java.util.function.Consumer<String> log) {
        Objects.requireNonNull(options, "options");
        KubernetesNamesProvider provider;
        try {
            provider = Providers.first(KubernetesNamesProvider.class, "procscope-kubernetes");
        } catch (ImplementationNotFoundException e) {
            String reason = "no Kubernetes implementation on the class path or module path"
                    + " (add io.github.procscope:procscope-kubernetes)";
            return log == null ? new AbsentKubernetesNames(options, reason)
                    : new AbsentKubernetesNames(options, reason, log);
        }
        return provider.open(options);
    }
}
