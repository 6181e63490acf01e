package io.github.procscope.api.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where {@link KubernetesNames} asks, and how long it waits. {@link #defaults()} gives the usual places; the
 * {@code with…} methods change one setting.
 *
 * <pre>{@code
 * KubernetesOptions options = KubernetesOptions.defaults()
 *         .withCriSocket(Path.of("/run/k3s/containerd/containerd.sock"))
 *         .withDeadline(Duration.ofMillis(500));
 * }</pre>
 *
 * @param criSockets         the container runtime's CRI sockets to try, in order; the first that exists is used
 *                           (default: containerd's {@value #CONTAINERD_SOCKET}, then CRI-O's {@value #CRIO_SOCKET});
 *                           empty to ask no runtime
 * @param podResourcesSocket the kubelet's pod-resources socket (default {@value #POD_RESOURCES_SOCKET}); empty to
 *                           ask no kubelet
 * @param deadline           how long one call of {@link KubernetesNames} waits for a socket's answer at most
 *                           (default 1 s); past it the call returns the last answer it had, and the question
 *                           goes on in the background for up to {@link #backgroundDeadline()}
 * @param maxAge             how long an answer serves before the next call asks again (default 5 s): names of
 *                           containers already known are kept whatever their age, GPU allocations are asked
 *                           again, and a container not known yet is looked for again
 * @param maxMessageBytes    the largest answer accepted from a socket, in bytes (default 16 MiB, as {@code crictl}
 *                           and the kubelet's own pod-resources client allow); a larger one is refused and the
 *                           last answer kept
 * @param gpuResources       the device-plugin resources whose device ids are GPUs (default {@code nvidia.com/gpu});
 *                           resources named {@code nvidia.com/mig-…} (MIG devices) always count, as in
 *                           dcgm-exporter
 */
public record KubernetesOptions(List<Path> criSockets, Optional<Path> podResourcesSocket, Duration deadline,
                                Duration maxAge, int maxMessageBytes, Set<String> gpuResources) {
    /** containerd's CRI socket. */
    public static final String CONTAINERD_SOCKET = "/run/containerd/containerd.sock";
    /** CRI-O's socket. */
    public static final String CRIO_SOCKET = "/var/run/crio/crio.sock";
    /** The kubelet's pod-resources socket. */
    public static final String POD_RESOURCES_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";
    /** The device-plugin resource of whole NVIDIA GPUs (and of their time-sliced replicas). */
    public static final String NVIDIA_GPU_RESOURCE = "nvidia.com/gpu";

    private static final Duration MAX_DEADLINE = Duration.ofMinutes(1);
    private static final Duration MIN_BACKGROUND_DEADLINE = Duration.ofSeconds(10);
    private static final int MIN_MESSAGE_BYTES = 4096;
    private static final int MAX_MESSAGE_BYTES = 1 << 30;

    /**
     * Checks the settings and copies the collections.
     *
     * @throws IllegalArgumentException if the deadline is not positive or over a minute, the maximum age is
     *                                  negative, the message limit is under 4 KiB or over 1 GiB, or a resource
     *                                  name is empty
     */
    public KubernetesOptions {
        criSockets = List.copyOf(Objects.requireNonNull(criSockets, "criSockets"));
        Objects.requireNonNull(podResourcesSocket, "podResourcesSocket");
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(maxAge, "maxAge");
        gpuResources = Set.copyOf(Objects.requireNonNull(gpuResources, "gpuResources"));
        if (deadline.isNegative() || deadline.isZero() || deadline.compareTo(MAX_DEADLINE) > 0) {
            throw new IllegalArgumentException("a deadline is over 0 and at most " + MAX_DEADLINE + ": " + deadline);
        }
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("a maximum age is not negative: " + maxAge);
        }
        if (maxMessageBytes < MIN_MESSAGE_BYTES || maxMessageBytes > MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("a message size limit is between " + MIN_MESSAGE_BYTES + " and "
                    + MAX_MESSAGE_BYTES + " bytes: " + maxMessageBytes);
        }
        for (String r : gpuResources) {
            if (r.isEmpty()) {
                throw new IllegalArgumentException("a resource name is not empty");
            }
        }
    }

    /** {@return the usual sockets of containerd, CRI-O and the kubelet; a 1 s deadline, 5 s maximum age, 16 MiB messages} */
    public static KubernetesOptions defaults() {
        return new KubernetesOptions(List.of(Path.of(CONTAINERD_SOCKET), Path.of(CRIO_SOCKET)),
                Optional.of(Path.of(POD_RESOURCES_SOCKET)), Duration.ofSeconds(1), Duration.ofSeconds(5),
                16 << 20, Set.of(NVIDIA_GPU_RESOURCE));
    }

    /**
     * {@return these options asking that socket only}
     *
     * @param socket the container runtime's CRI socket (as {@code --cri-socket PATH} names it)
     */
    public KubernetesOptions withCriSocket(Path socket) {
        return new KubernetesOptions(List.of(socket), podResourcesSocket, deadline, maxAge, maxMessageBytes,
                gpuResources);
    }

    /**
     * {@return these options asking that socket}
     *
     * @param socket the kubelet's pod-resources socket (as {@code --pod-resources-socket PATH} names it)
     */
    public KubernetesOptions withPodResourcesSocket(Path socket) {
        return new KubernetesOptions(criSockets, Optional.of(socket), deadline, maxAge, maxMessageBytes,
                gpuResources);
    }

    /**
     * {@return these options with that deadline}
     *
     * @param deadline how long one call waits for a socket's answer at most
     */
    public KubernetesOptions withDeadline(Duration deadline) {
        return new KubernetesOptions(criSockets, podResourcesSocket, deadline, maxAge, maxMessageBytes,
                gpuResources);
    }

    /**
     * {@return these options with that maximum age}
     *
     * @param maxAge how long an answer serves before the next call asks again
     */
    public KubernetesOptions withMaxAge(Duration maxAge) {
        return new KubernetesOptions(criSockets, podResourcesSocket, deadline, maxAge, maxMessageBytes,
                gpuResources);
    }

    /**
     * {@return how long a question asked in the background may take before it is given up: the {@link
     * #deadline()}, but at least 10 s (dcgm-exporter's timeout for the pod-resources API), so that a slow
     * socket's answer still arrives for the next call}
     */
    public Duration backgroundDeadline() {
        return deadline.compareTo(MIN_BACKGROUND_DEADLINE) > 0 ? deadline : MIN_BACKGROUND_DEADLINE;
    }
}
