package io.github.procscope.api.kubernetes;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Kubernetes names for what the kernel and NVML only number: a container id (from a process's cgroup path,
 * {@link io.github.procscope.api.cgroup.Owner#container()}) becomes its pod's namespace and name and the
 * container's name, through the container runtime's CRI socket; a GPU (by UUID) becomes the pods' containers
 * it is allocated to, through the kubelet's pod-resources socket, as dcgm-exporter finds them.
 *
 * <p>Implemented by {@code procscope-kubernetes} (gRPC over unix sockets), found through
 * {@link io.github.procscope.api.KubernetesNamesProvider}.
 *
 * <p><b>Never a failure, never a stall.</b> A missing socket gives no names, and one log line
 * ({@link System.Logger}, named after the implementation's package) when its state changes; a socket that is
 * not one, or that someone other than root or this process's user owns, is refused with the reason in
 * {@link #sources()}. No call waits longer than {@link KubernetesOptions#deadline()} for a socket: past it, a call
 * returns the last answer it had (and no names if there was none), and the question goes on in the background
 * for the next call. Answers are kept for {@link KubernetesOptions#maxAge()}; each kind of answer is one
 * listing, so what is kept is bounded by {@link KubernetesOptions#maxMessageBytes()}.
 *
 * <p>Thread-safe. Nothing is asked before the first call. After {@link #close()} every method but
 * {@code close()} throws {@link IllegalStateException}.
 */
public interface KubernetesNames extends AutoCloseable {

    /**
     * {@return its pod and name, from the container runtime's {@code ListContainers} and {@code
     * ListPodSandbox}; empty if the runtime does not know it (not a Kubernetes container, or one made after
     * the last listing less than {@link KubernetesOptions#maxAge()} ago) or cannot be asked}
     *
     * @param container a container, by the id its cgroup path names
     */
    Optional<PodContainer> container(Container container);

    /**
     * The names of a process's container, as {@link io.github.procscope.api.process.ProcessInfo#owner()} or
     * {@link io.github.procscope.api.gpu.GpuUser#owner()} gives its owner.
     *
     * @param owner the workload a process's cgroup paths name
     * @return its container's pod and name ({@link #container(Container)}); empty when the paths name no
     *         container, the runtime does not know it, or the runtime names a pod other than the one whose UID
     *         the paths name (an answer that contradicts the kernel is not passed on)
     */
    default Optional<PodContainer> container(Owner owner) {
        Objects.requireNonNull(owner, "owner");
        Optional<Container> c = owner.container();
        if (c.isEmpty()) {
            return Optional.empty();
        }
        return container(c.get()).filter(p -> p.podUid().isEmpty() || owner.podUid().isEmpty()
                || p.podUid().get().equals(owner.podUid().get()));
    }

    /**
     * {@return the containers the kubelet allocated that device to, in the kubelet's order, each once: one
     * for a whole GPU; several for a GPU shared by time-slicing or MPS (the device plugin announces replicas
     * {@code GPU-…::N} of it, and each counts for the GPU); empty if none or the kubelet cannot be asked}
     *
     * @param deviceId a GPU's UUID ({@code GPU-…}), a MIG device's UUID ({@code MIG-…}), or the id a device plugin
     *                 announced in another form (such as GKE's {@code nvidia0})
     */
    List<PodContainer> gpu(String deviceId);

    /**
     * {@return every allocated device, by the ids {@link #gpu(String)} accepts (a replica {@code GPU-…::N}
     * under its GPU's id and under its own), with its containers; empty if the kubelet cannot be asked}
     */
    Map<String, List<PodContainer>> gpus();

    /** {@return the container runtime's source, then the kubelet's, as they were when last asked} */
    List<NamesSource> sources();

    /** Closes the sockets' connections and stops the background work; may be called again. */
    @Override
    void close();
}
