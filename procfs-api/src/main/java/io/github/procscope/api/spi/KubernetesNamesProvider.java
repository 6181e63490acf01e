package io.github.procscope.api.spi;

import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.KubernetesNamesProvider} (or with
 * {@code provides} in a module descriptor) by the Kubernetes module ({@code procscope-kubernetes}); found with
 * {@link Providers#first(Class, String)}.
 */
public interface KubernetesNamesProvider {
    /**
     * {@return a new resolver; it touches no socket before its first call. Close it.}
     *
     * @param options the sockets to ask and how long to wait
     */
    KubernetesNames open(KubernetesOptions options);
}
