package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.ContainerRuntime;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.QosClass;
import io.github.procscope.api.cgroup.SlurmJob;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.api.process.ProcessInfo;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How the tool shows whose process it is: a compact OWNER cell for tables and the {@code cgroup},
 * {@code container}, {@code slurm} and {@code systemdUnit} fields of JSON.
 */
final class Owners {
    /** Widest OWNER cell. */
    static final int WIDTH = 12;

    private Owners() {
    }

    /**
     * @return the OWNER cell: {@code pod:0b7e6f5a} (a pod's UID), {@code dkr:3f4e5d6c} (a container outside a
     *         pod: {@code dkr} Docker, {@code pdm} Podman, {@code ctd} containerd, {@code cri} CRI-O), {@code
     *         slurm:4711.0} (a Slurm job and step), else {@code -}; systemd units are in JSON only
     */
    static String label(ProcessInfo p) {
        return label(p.owner());
    }

    static String label(Optional<Owner> owner) {
        if (owner.isEmpty()) {
            return "-";
        }
        Owner o = owner.get();
        if (o.podUid().isPresent()) {
            return "pod:" + o.podUid().get().substring(0, 8);
        }
        if (o.container().isPresent()) {
            Container c = o.container().get();
            return runtimeCode(c.runtime()) + ":" + c.id().substring(0, 8);
        }
        if (o.slurm().isPresent()) {
            SlurmJob j = o.slurm().get();
            String s = "slurm:" + j.jobId() + j.step().map(x -> "." + x).orElse("");
            return s.length() <= WIDTH ? s : s.substring(0, WIDTH - 1) + "+";
        }
        return "-";
    }

    /**
     * @param owner a process's owner
     * @param names the Kubernetes names of the listing
     * @return the OWNER cell: {@code ml/trainer-0} (a pod's namespace and name) when the runtime names the
     *         process's container, else {@link #label(Optional)}
     */
    static String label(Optional<Owner> owner, PodNames names) {
        Optional<PodContainer> n = names.of(owner);
        return n.isPresent() ? Table.printable(n.get().namespace() + "/" + n.get().pod()) : label(owner);
    }

    /** @return whether any of the processes has an owner the OWNER column shows (a table shows it only then) */
    static boolean anyShown(Collection<ProcessInfo> processes) {
        return processes.stream().anyMatch(p -> !label(p).equals("-"));
    }

    private static String runtimeCode(Optional<ContainerRuntime> r) {
        if (r.isEmpty()) {
            return "ctr";
        }
        return switch (r.get()) {
            case DOCKER -> "dkr";
            case PODMAN -> "pdm";
            case CONTAINERD -> "ctd";
            case CRIO -> "cri";
        };
    }

    /** @return the grouping key of {@code ps --by-container}: the container id, or empty outside containers */
    static Optional<String> containerKey(ProcessInfo p) {
        return p.owner().flatMap(Owner::container).map(Container::id);
    }

    /** @return the grouping key of {@code ps --by-pod}: the pod UID, or empty outside pods */
    static Optional<String> podKey(ProcessInfo p) {
        return p.owner().flatMap(Owner::podUid);
    }

    /**
     * A process's cgroups in JSON: {@code {"unifiedPath": PATH|null, "controllerPaths": {NAME: PATH}}}; the owner
     * they imply is written flat in the process ({@link Fields}).
     *
     * @param unifiedPath     as {@link CgroupMembership#unifiedPath()}
     * @param controllerPaths as {@link CgroupMembership#controllerPaths()}
     */
    record Cgroup(Optional<String> unifiedPath, Map<String, String> controllerPaths) {
        /** @return the process's cgroups, empty when they were not read */
        static Optional<Cgroup> of(ProcessInfo p) {
            return p.cgroup().map(m -> new Cgroup(m.unifiedPath(), m.controllerPaths()));
        }
    }

    /**
     * A process's container in JSON: its {@link Owner}'s runtime, container id, pod UID and QoS class (enums by
     * name), and, when the runtime names the container, its Kubernetes {@code namespace}, {@code pod} and
     * {@code name} (the container's name in the pod's spec; the three fields are absent otherwise).
     *
     * @param runtime   as {@link Owner#runtime()}
     * @param id        the container's id ({@link Container#id()})
     * @param podUid    as {@link Owner#podUid()}
     * @param qosClass  as {@link Owner#qosClass()}
     * @param namespace the pod's namespace, or null when the runtime does not name the container
     * @param pod       the pod's name, or null likewise
     * @param name      the container's name, or null likewise
     */
    record ContainerJson(Optional<ContainerRuntime> runtime, Optional<String> id, Optional<String> podUid,
                         Optional<QosClass> qosClass, @JsonInclude(JsonInclude.Include.NON_NULL) String namespace,
                         @JsonInclude(JsonInclude.Include.NON_NULL) String pod,
                         @JsonInclude(JsonInclude.Include.NON_NULL) String name) {
        /** @return the owner's container, named where the runtime names it; empty outside containers and pods */
        static Optional<ContainerJson> of(Optional<Owner> owner, PodNames names) {
            if (owner.isEmpty() || !owner.get().containerized()) {
                return Optional.empty();
            }
            Owner w = owner.get();
            Optional<PodContainer> n = names.of(owner);
            return Optional.of(new ContainerJson(w.runtime(), w.container().map(Container::id), w.podUid(),
                    w.qosClass(), n.map(PodContainer::namespace).orElse(null), n.map(PodContainer::pod).orElse(null),
                    n.map(PodContainer::container).orElse(null)));
        }
    }

    /**
     * Whose process it is, written flat in a process's JSON: {@code container} ({@link ContainerJson}, null
     * outside containers and pods), {@code slurm} ({@code jobId}, {@code step}; null outside Slurm jobs) and
     * {@code systemdUnit}, each named as the accessor of {@code Owner} it comes from.
     *
     * @param container   the container, with its Kubernetes names where they resolve
     * @param slurm       as {@link Owner#slurm()}
     * @param systemdUnit as {@link Owner#systemdUnit()}
     */
    record Fields(Optional<ContainerJson> container, Optional<SlurmJob> slurm, Optional<String> systemdUnit) {
        static Fields of(Optional<Owner> owner) {
            return of(owner, PodNames.NONE);
        }

        static Fields of(Optional<Owner> owner, PodNames names) {
            return new Fields(ContainerJson.of(owner, names), owner.flatMap(Owner::slurm),
                    owner.flatMap(Owner::systemdUnit));
        }
    }

    /** @return the QoS class as Kubernetes spells it ({@code Guaranteed}, {@code Burstable}, {@code BestEffort}) */
    static String qosName(QosClass q) {
        return switch (q) {
            case GUARANTEED -> "Guaranteed";
            case BURSTABLE -> "Burstable";
            case BEST_EFFORT -> "BestEffort";
        };
    }
}
