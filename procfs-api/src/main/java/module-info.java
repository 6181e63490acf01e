/**
 * The procscope API: what a user compiles against. Implementations are found through
 * {@link java.util.ServiceLoader}: one platform ({@code io.github.procscope.linux}) and, optionally, GPUs
 * ({@code io.github.procscope.nvml}) and Kubernetes names ({@code io.github.procscope.kubernetes}).
 */
module io.github.procscope.api {
    exports io.github.procscope.api;
    exports io.github.procscope.api.cgroup;
    exports io.github.procscope.api.core;
    exports io.github.procscope.api.diagnose;
    exports io.github.procscope.api.events;
    exports io.github.procscope.api.disk;
    exports io.github.procscope.api.files;
    exports io.github.procscope.api.gpu;
    exports io.github.procscope.api.job;
    exports io.github.procscope.api.kubernetes;
    exports io.github.procscope.api.memory;
    exports io.github.procscope.api.process;
    exports io.github.procscope.api.signals;
    exports io.github.procscope.api.system;

    uses io.github.procscope.api.PlatformProvider;
    uses io.github.procscope.api.GpusProvider;
    uses io.github.procscope.api.KubernetesNamesProvider;
}
