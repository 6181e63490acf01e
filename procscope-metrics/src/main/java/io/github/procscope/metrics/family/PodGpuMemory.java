package io.github.procscope.metrics.family;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Kubernetes names on GPU series: the {@code pod}, {@code namespace} and {@code container} labels dcgm-exporter puts
 * on every series of a GPU the kubelet allocated to a container, and
 * {@code procscope_pod_gpu_memory_bytes{namespace,pod,container,gpu,UUID}}, a GPU's memory per container, summed
 * over its processes, each found through its cgroup path's container id and the container runtime's names. Where
 * dcgm-exporter gives a shared GPU (time-slicing, MPS) to one pod, this family splits it exactly.
 */
public final class PodGpuMemory {
    /** {@code procscope_pod_gpu_memory_bytes{namespace,pod,container,gpu,UUID}}. */
    public static final MetricFamily POD_MEMORY = MetricFamily.gauge("procscope_pod_gpu_memory_bytes",
            "GPU memory used by the processes of one Kubernetes container, in bytes.", "bytes");

    private PodGpuMemory() {
    }

    /**
     * The labels dcgm-exporter adds to a GPU's series: the container the kubelet allocated the GPU to. A GPU shared
     * by several containers (time-slicing, MPS: each holds a replica {@code GPU-…::N}) carries the last of them in
     * the kubelet's order, as dcgm-exporter does by default: it keeps one container per device, each allocation
     * replacing the one before. {@link #POD_MEMORY} says how much each holds.
     *
     * @param allocations every allocated device and its containers ({@link KubernetesNames#gpus()})
     * @param d           the GPU
     * @return {@code pod}, {@code namespace} and {@code container}; no labels for a GPU allocated to none
     */
    public static Labels allocationLabels(Map<String, List<PodContainer>> allocations, GpuDevice d) {
        List<PodContainer> to = allocations.getOrDefault(d.uuid(), List.of());
        if (to.isEmpty()) {
            return Labels.EMPTY;
        }
        PodContainer c = to.get(to.size() - 1);
        return Labels.of("pod", c.pod(), "namespace", c.namespace(), "container", c.container());
    }

    /**
     * Adds a GPU's memory per Kubernetes container: each process NVML lists on it, joined with the snapshot (read
     * with its cgroups), counts for the container its cgroup path names, when the runtime names that container.
     *
     * @param s          the scrape
     * @param d          the GPU
     * @param snapshot   the processes, read with {@link io.github.procscope.api.process.Facet#CGROUP}
     * @param names      the Kubernetes names
     * @param subreapers the subreapers, for {@link GpuUsers#join}
     */
    public static void collect(Scrape s, GpuDevice d, ProcessSnapshot snapshot, KubernetesNames names,
                               Set<Long> subreapers) {
        List<GpuUser> users = GpuUsers.join(d.processes().processes(), List.of(), snapshot, subreapers);
        // by the labels (namespace, pod, container): two pods of one name (an old one ending, a new one starting)
        // are one series, as their labels are the same
        Map<List<String>, Long> bytes = new LinkedHashMap<>();
        for (GpuUser u : users) {
            Optional<PodContainer> c = u.owner().flatMap(names::container);
            if (c.isPresent()) {
                bytes.merge(List.of(c.get().namespace(), c.get().pod(), c.get().container()),
                        u.usedMemoryBytes().orElse(0), Long::sum);
            }
        }
        String gpu = Integer.toString(d.index());
        bytes.forEach((c, b) -> s.add(POD_MEMORY, Labels.of("namespace", c.get(0), "pod", c.get(1),
                "container", c.get(2), "gpu", gpu, "UUID", d.uuid()), b));
    }
}
