package io.github.procscope.kubernetes;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.kubernetes.cri.CriApi.ListContainersResponse;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxResponse;
import io.github.procscope.kubernetes.cri.CriApi.PodSandbox;
import io.github.procscope.kubernetes.cri.CriApi.PodSandboxState;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One answer of the container runtime: its pod sandboxes and containers, as names by container id and pod UIDs
 * by namespace and pod name.
 *
 * <p>A container's pod is its sandbox's metadata ({@code PodSandboxMetadata}: name, UID, namespace); where the
 * sandbox is missing from the listing (one made between the two calls), the labels the kubelet puts on every
 * container it creates ({@code io.kubernetes.pod.namespace}, {@code io.kubernetes.pod.name},
 * {@code io.kubernetes.pod.uid}, {@code io.kubernetes.container.name}) name it. A container neither names (one
 * the runtime runs for someone other than the kubelet) is left out, as is every entry whose id is not a full
 * container id or whose names are not printable ({@link PodContainer}).
 *
 * @param containers names by container id
 * @param podUids    the UID of each pod by namespace and name: of its ready sandbox, else of its newest
 * @param sandboxes  how many sandboxes the runtime listed
 */
record CriAnswer(Map<String, PodContainer> containers, Map<PodKey, String> podUids, int sandboxes) {
    static final String POD_NAMESPACE_LABEL = "io.kubernetes.pod.namespace";
    static final String POD_NAME_LABEL = "io.kubernetes.pod.name";
    static final String POD_UID_LABEL = "io.kubernetes.pod.uid";
    static final String CONTAINER_NAME_LABEL = "io.kubernetes.container.name";

    /** A pod by namespace and name. */
    record PodKey(String namespace, String name) {
    }

    CriAnswer {
        containers = Map.copyOf(containers);
        podUids = Map.copyOf(podUids);
    }

    /**
     * @param sandboxes  {@code ListPodSandbox}'s answer
     * @param containers {@code ListContainers}'s answer
     * @return the names they give
     */
    static CriAnswer of(ListPodSandboxResponse sandboxes, ListContainersResponse containers) {
        Map<String, PodSandbox> byId = new HashMap<>();
        Map<PodKey, PodSandbox> bestByPod = new HashMap<>();
        for (PodSandbox s : sandboxes.getItemsList()) {
            byId.put(s.getId(), s);
            PodKey key = new PodKey(s.getMetadata().getNamespace(), s.getMetadata().getName());
            if (!s.getMetadata().getUid().isEmpty()) {
                bestByPod.merge(key, s, (a, b) -> better(a, b) ? a : b);
            }
        }
        Map<PodKey, String> uids = new HashMap<>();
        bestByPod.forEach((k, s) -> uids.put(k, s.getMetadata().getUid()));

        Map<String, PodContainer> names = new HashMap<>();
        for (var c : containers.getContainersList()) {
            if (!Container.isId(c.getId())) {
                continue;
            }
            PodSandbox s = byId.get(c.getPodSandboxId());
            Map<String, String> labels = c.getLabelsMap();
            String namespace = s != null ? s.getMetadata().getNamespace() : labels.getOrDefault(POD_NAMESPACE_LABEL, "");
            String pod = s != null ? s.getMetadata().getName() : labels.getOrDefault(POD_NAME_LABEL, "");
            String uid = s != null ? s.getMetadata().getUid() : labels.getOrDefault(POD_UID_LABEL, "");
            String name = c.getMetadata().getName().isEmpty() ? labels.getOrDefault(CONTAINER_NAME_LABEL, "")
                    : c.getMetadata().getName();
            try {
                names.put(c.getId(), new PodContainer(namespace, pod,
                        uid.isEmpty() ? Optional.empty() : Optional.of(uid), name));
            } catch (IllegalArgumentException e) {
                // not named by the kubelet, or not printable: no names rather than wrong ones
            }
        }
        return new CriAnswer(names, uids, sandboxes.getItemsCount());
    }

    /** @return whether sandbox a names its pod better than b: ready over not ready, then the newer */
    private static boolean better(PodSandbox a, PodSandbox b) {
        boolean readyA = a.getState() == PodSandboxState.SANDBOX_READY;
        boolean readyB = b.getState() == PodSandboxState.SANDBOX_READY;
        if (readyA != readyB) {
            return readyA;
        }
        return a.getCreatedAt() >= b.getCreatedAt();
    }

    /**
     * @param id a full container id
     * @return its names, if the runtime listed it
     */
    Optional<PodContainer> container(String id) {
        return Optional.ofNullable(containers.get(id));
    }

    /**
     * @param p a pod's container, perhaps without its pod's UID
     * @return the same with the pod's UID where this answer knows it and it had none
     */
    PodContainer withUid(PodContainer p) {
        if (p.podUid().isPresent()) {
            return p;
        }
        String uid = podUids.get(new PodKey(p.namespace(), p.pod()));
        if (uid == null) {
            return p;
        }
        try {
            return new PodContainer(p.namespace(), p.pod(), Optional.of(uid), p.container());
        } catch (IllegalArgumentException e) {
            return p;
        }
    }

    /** @return the answer in words, for {@code sources()} */
    String describe() {
        return containers.size() + " Kubernetes containers in " + sandboxes + " pod sandboxes";
    }
}
