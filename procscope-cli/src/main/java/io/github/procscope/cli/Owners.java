package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
     * Adds {@code cgroup} ({@code {"unifiedPath": PATH|null, "controllerPaths": {NAME: PATH}}}, null when not
     * read), {@code container} ({@code runtime}, {@code id}, {@code podUid}, {@code qosClass}, enums by name; null
     * outside containers and pods), {@code slurm} ({@code jobId}, {@code step}; null outside Slurm jobs) and
     * {@code systemdUnit}: each named as the accessor of {@code CgroupMembership}, {@code Owner},
     * {@code Container} or {@code SlurmJob} it comes from.
     */
    static void putJson(ObjectNode o, ProcessInfo p) {
        Optional<CgroupMembership> m = p.cgroup();
        if (m.isEmpty()) {
            o.putNull("cgroup");
        } else {
            ObjectNode g = o.putObject("cgroup");
            Json.putText(g, "unifiedPath", m.get().unifiedPath());
            ObjectNode c = g.putObject("controllerPaths");
            m.get().controllerPaths().forEach(c::put);
        }
        putOwnerJson(o, p.owner());
    }

    /**
     * As {@link #putOwnerJson(ObjectNode, Optional)}, and, when the runtime names the container, its
     * {@code namespace}, {@code pod} and {@code name} (the container's name in the pod's spec) in {@code container}.
     */
    static void putOwnerJson(ObjectNode o, Optional<Owner> owner, PodNames names) {
        putOwnerJson(o, owner);
        Optional<PodContainer> n = names.of(owner);
        if (n.isPresent() && o.get("container") instanceof ObjectNode c) {
            putNames(c, n.get());
        }
    }

    /** Adds {@code namespace}, {@code pod} and {@code name}: a container's Kubernetes names. */
    static void putNames(ObjectNode c, PodContainer n) {
        c.put("namespace", n.namespace());
        c.put("pod", n.pod());
        c.put("name", n.container());
    }

    static void putOwnerJson(ObjectNode o, Optional<Owner> owner) {
        if (owner.isPresent() && owner.get().containerized()) {
            Owner w = owner.get();
            ObjectNode c = o.putObject("container");
            Json.putText(c, "runtime", w.runtime().map(Enum::name));
            Json.putText(c, "id", w.container().map(Container::id));
            Json.putText(c, "podUid", w.podUid());
            Json.putText(c, "qosClass", w.qosClass().map(Enum::name));
        } else {
            o.putNull("container");
        }
        if (owner.isPresent() && owner.get().slurm().isPresent()) {
            SlurmJob j = owner.get().slurm().get();
            ObjectNode s = o.putObject("slurm");
            s.put("jobId", j.jobId());
            Json.putText(s, "step", j.step());
        } else {
            o.putNull("slurm");
        }
        Json.putText(o, "systemdUnit", owner.flatMap(Owner::systemdUnit));
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
