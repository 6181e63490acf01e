/**
 * Service-provider interfaces: how implementation modules register themselves with
 * {@link java.util.ServiceLoader}. One platform service ({@link io.github.procscope.api.spi.PlatformProvider},
 * {@code procfs-impl-linux}), one GPU service ({@link io.github.procscope.api.spi.GpusProvider},
 * {@code nvml-binding}) and one for Kubernetes names ({@link io.github.procscope.api.spi.KubernetesNamesProvider},
 * {@code procscope-kubernetes}). Users do not call these; they call {@link io.github.procscope.api.Procscope}.
 */
package io.github.procscope.api.spi;
