package io.github.procscope.api;

import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.KubernetesNamesProvider} (or with
 * {@code provides} in a module descriptor) by the Kubernetes module ({@code procscope-kubernetes}); found by
 * {@link Procscope#kubernetesNames(io.github.procscope.api.kubernetes.KubernetesOptions)}.
 */
public interface KubernetesNamesProvider {
    /**
     * {@return a new resolver; it touches no socket before its first call. Close it.}
     *
     * @param options the sockets to ask and how long to wait
     */
    KubernetesNames open(KubernetesOptions options);
}
