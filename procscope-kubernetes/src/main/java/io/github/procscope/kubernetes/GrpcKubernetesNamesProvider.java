package io.github.procscope.kubernetes;

import io.github.procscope.api.KubernetesNamesProvider;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;

import java.nio.file.Path;

/**
 * The Kubernetes names of this module, registered with {@link java.util.ServiceLoader} as a
 * {@link KubernetesNamesProvider}: what {@code Procscope.kubernetesNames(options)} opens when this module is
 * on the class path or module path.
 */
public final class GrpcKubernetesNamesProvider implements KubernetesNamesProvider {
    /** For {@link java.util.ServiceLoader}. */
    public GrpcKubernetesNamesProvider() {
    }

    @Override
    public KubernetesNames open(KubernetesOptions options) {
        return new GrpcKubernetesNames(options, Path.of("/proc/self"));
    }
}
