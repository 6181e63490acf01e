package io.github.procscope.cli;

import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.PodContainer;

import java.util.Optional;

/** The Kubernetes names of the containers a listing shows, or none ({@link #NONE}). */
final class PodNames implements AutoCloseable {
    /** No names: not asked. */
    static final PodNames NONE = new PodNames(null);

    private final KubernetesNames names;

    PodNames(KubernetesNames names) {
        this.names = names;
    }

    /**
     * @param owner a process's owner
     * @return its container's names, when it runs in a pod and the runtime names it
     */
    Optional<PodContainer> of(Optional<Owner> owner) {
        if (names == null || owner.isEmpty() || owner.get().podUid().isEmpty()) {
            return Optional.empty();
        }
        return names.container(owner.get());
    }

    @Override
    public void close() {
        if (names != null) {
            names.close();
        }
    }
}
