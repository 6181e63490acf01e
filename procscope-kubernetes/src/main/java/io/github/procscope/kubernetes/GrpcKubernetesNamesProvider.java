package io.github.procscope.kubernetes;

import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.spi.KubernetesNamesProvider;

import java.nio.file.Path;

/**
 * The Kubernetes names of this module, registered with {@link java.util.ServiceLoader} as a
 * {@link KubernetesNamesProvider}: found through {@code Providers.first(KubernetesNamesProvider.class,
 * "procscope-kubernetes")}.
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
