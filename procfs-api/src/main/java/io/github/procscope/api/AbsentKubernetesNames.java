package io.github.procscope.api;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource;
import io.github.procscope.api.kubernetes.PodContainer;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The Kubernetes names handed out when {@code procscope-kubernetes} is absent: every answer empty, both sources
 * {@link NamesSource.State#REFUSED} with the reason, and one log line, at the first question, saying so.
 */
final class AbsentKubernetesNames implements KubernetesNames {
    /** The logger: named after the API's Kubernetes package. */
    static final String LOGGER = KubernetesNames.class.getPackageName();

    private final List<NamesSource> sources;
    private final String reason;
    private final Consumer<String> log;
    private final AtomicBoolean logged = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param options the settings the names were asked with (their sockets are named in the sources)
     * @param reason  why there are no names
     */
    AbsentKubernetesNames(KubernetesOptions options, String reason) {
        this(options, reason, line -> System.getLogger(LOGGER).log(System.Logger.Level.INFO, line));
    }

    /**
     * @param options the settings the names were asked with
     * @param reason  why there are no names
     * @param log     where the one line goes
     */
    AbsentKubernetesNames(KubernetesOptions options, String reason, Consumer<String> log) {
        this.reason = reason;
        this.log = log;
        this.sources = List.of(
                new NamesSource(NamesSource.Kind.CRI, options.criSockets().stream().findFirst(),
                        options.criSockets().isEmpty() ? NamesSource.State.DISABLED : NamesSource.State.REFUSED,
                        reason),
                new NamesSource(NamesSource.Kind.POD_RESOURCES, options.podResourcesSocket(),
                        options.podResourcesSocket().isEmpty() ? NamesSource.State.DISABLED
                                : NamesSource.State.REFUSED, reason));
    }

    @Override
    public Optional<PodContainer> container(Container container) {
        java.util.Objects.requireNonNull(container, "container");
        asked();
        return Optional.empty();
    }

    @Override
    public List<PodContainer> gpu(String deviceId) {
        java.util.Objects.requireNonNull(deviceId, "deviceId");
        asked();
        return List.of();
    }

    @Override
    public Map<String, List<PodContainer>> gpus() {
        asked();
        return Map.of();
    }

    @Override
    public List<NamesSource> sources() {
        checkOpen();
        return sources;
    }

    @Override
    public void close() {
        closed.set(true);
    }

    private void asked() {
        checkOpen();
        if (logged.compareAndSet(false, true)) {
            log.accept("containers and GPUs get no Kubernetes names: " + reason);
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("these Kubernetes names are closed");
        }
    }
}
