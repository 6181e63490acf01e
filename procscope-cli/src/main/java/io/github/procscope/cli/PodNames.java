package io.github.procscope.cli;

import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.NamesSource;
import io.github.procscope.api.kubernetes.PodContainer;

import java.util.Optional;
import java.util.function.Consumer;

/** The Kubernetes names of the containers a listing shows, or none ({@link #NONE}). */
final class PodNames implements AutoCloseable {
    /** No names: not asked. */
    static final PodNames NONE = new PodNames(null, null);

    private final KubernetesNames names;
    /** The line to print when the runtime's answer did not come by the deadline; null once printed. */
    private String late;
    private final Consumer<String> err;

    /**
     * @param names the names, or null for none
     * @param late  the line that says the runtime did not answer by the listing's deadline
     * @param err   where that line goes, once
     */
    PodNames(KubernetesNames names, String late, Consumer<String> err) {
        this.names = names;
        this.late = late;
        this.err = err;
    }

    private PodNames(KubernetesNames names, String late) {
        this(names, late, line -> { });
    }

    /**
     * @param owner a process's owner
     * @return its container's names, when it runs in a pod and the runtime names it
     */
    Optional<PodContainer> of(Optional<Owner> owner) {
        if (names == null || owner.isEmpty() || owner.get().podUid().isEmpty()) {
            return Optional.empty();
        }
        Optional<PodContainer> named = names.container(owner.get());
        if (named.isEmpty() && late != null && unanswered()) {
            err.accept(late);
            late = null;
        }
        return named;
    }

    /**
     * Whether the container runtime's question is still out after a call returned: a call waits for it up to the
     * deadline, and an answer, a refusal or a failure would have changed the state from {@code NOT_ASKED}.
     */
    private boolean unanswered() {
        return names.sources().stream().anyMatch(s -> s.kind() == NamesSource.Kind.CRI
                && s.state() == NamesSource.State.NOT_ASKED);
    }

    @Override
    public void close() {
        if (names != null) {
            names.close();
        }
    }
}
