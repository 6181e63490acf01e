package io.github.procscope.api.cgroup;

import java.util.Objects;
import java.util.Optional;

/**
 * The workload a process belongs to, as its cgroup paths name it: a container, a Kubernetes pod, a Slurm
 * job, a systemd unit. Not to be confused with the user who owns the process
 * ({@link io.github.procscope.api.process.ProcessInfo#user()}). At least one component is present; a process
 * whose paths name nothing has no owner at all.
 *
 * @param container    the container the process runs in; empty outside a container, and for a runtime's
 *                     monitor process beside a container ({@code conmon})
 * @param podUid       the Kubernetes pod's UID (with dashes, as {@code kubectl get pod -o
 *                     jsonpath='{.metadata.uid}'} prints it); empty outside a pod
 * @param qosClass     the pod's QoS class; present exactly when {@code podUid} is
 * @param slurm        the Slurm job and step; empty outside a Slurm job
 * @param systemdUnit  the innermost systemd unit on the path ({@code sshd.service}, {@code session-2.scope},
 *                     {@code docker-ID.scope}); empty when the path holds none
 * @param systemdSlice the innermost systemd slice on the path ({@code system.slice}, {@code user-1000.slice});
 *                     empty when the path holds none
 */
public record Owner(Optional<Container> container, Optional<String> podUid, Optional<QosClass> qosClass,
                    Optional<SlurmJob> slurm, Optional<String> systemdUnit, Optional<String> systemdSlice) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if nothing is present, or a QoS class comes without a pod or a pod
     *                                  without a QoS class
     */
    public Owner {
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(podUid, "podUid");
        Objects.requireNonNull(qosClass, "qosClass");
        Objects.requireNonNull(slurm, "slurm");
        Objects.requireNonNull(systemdUnit, "systemdUnit");
        Objects.requireNonNull(systemdSlice, "systemdSlice");
        if (podUid.isPresent() != qosClass.isPresent()) {
            throw new IllegalArgumentException("a pod UID and its QoS class come together");
        }
        if (container.isEmpty() && podUid.isEmpty() && slurm.isEmpty() && systemdUnit.isEmpty()
                && systemdSlice.isEmpty()) {
            throw new IllegalArgumentException("an owner names at least one of container, pod, Slurm job, unit, slice");
        }
    }

    /** {@return whether the process runs in a container or a Kubernetes pod} */
    public boolean containerized() {
        return container.isPresent() || podUid.isPresent();
    }

    /** {@return the container runtime, when the path names one} */
    public Optional<ContainerRuntime> runtime() {
        return container.flatMap(Container::runtime);
    }
}
