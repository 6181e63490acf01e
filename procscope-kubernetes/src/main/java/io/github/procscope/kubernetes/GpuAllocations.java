package io.github.procscope.kubernetes;

import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerDevices;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerResources;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesResponse;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.PodResources;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One answer of the kubelet's pod-resources API, as the containers each GPU is allocated to, the way
 * dcgm-exporter reads it: only devices of the GPU resources ({@code nvidia.com/gpu} by default, and every
 * {@code nvidia.com/mig-…} MIG resource) count; a device id is kept as the device plugin announced it, and a
 * replica of a shared GPU is also counted under the device it replicates: {@code GPU-…::N} and {@code MIG-…::N}
 * (NVIDIA's device plugin with time-slicing or MPS) under the id before {@code ::}, {@code nvidia0/vgpuN} (GKE's)
 * under the id before {@code /vgpu}. So the pods sharing one GPU all come back for that GPU's UUID.
 *
 * @param byDevice the containers of each device id, in the kubelet's order, each once
 * @param devices  how many device ids were allocated
 */
record GpuAllocations(Map<String, List<PodContainer>> byDevice, int devices) {
    /** The prefix of the device-plugin resources of MIG devices (the "mixed" MIG strategy). */
    static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";
    /** The longest device id kept. */
    static final int MAX_DEVICE_ID_LENGTH = 256;

    GpuAllocations {
        byDevice = Map.copyOf(byDevice);
    }

    /**
     * @param answer    {@code List}'s answer
     * @param resources the resources whose devices are GPUs ({@link KubernetesOptions#gpuResources()})
     * @return the containers of each device
     */
    static GpuAllocations of(ListPodResourcesResponse answer, Set<String> resources) {
        Map<String, Set<PodContainer>> byDevice = new LinkedHashMap<>();
        int devices = 0;
        for (PodResources pod : answer.getPodResourcesList()) {
            for (ContainerResources container : pod.getContainersList()) {
                PodContainer names = null;
                for (ContainerDevices d : container.getDevicesList()) {
                    String resource = d.getResourceName();
                    if (!resources.contains(resource) && !resource.startsWith(MIG_RESOURCE_PREFIX)) {
                        continue;
                    }
                    if (names == null) {
                        try {
                            names = new PodContainer(pod.getNamespace(), pod.getName(), Optional.empty(),
                                    container.getName());
                        } catch (IllegalArgumentException e) {
                            break;
                        }
                    }
                    for (String id : d.getDeviceIdsList()) {
                        if (!printable(id)) {
                            continue;
                        }
                        devices++;
                        byDevice.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(names);
                        String base = replicated(id);
                        if (!base.equals(id)) {
                            byDevice.computeIfAbsent(base, k -> new LinkedHashSet<>()).add(names);
                        }
                    }
                }
            }
        }
        Map<String, List<PodContainer>> out = new LinkedHashMap<>();
        byDevice.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return new GpuAllocations(out, devices);
    }

    /**
     * @param id a device id as a device plugin announced it
     * @return the id of the device it replicates, or itself
     */
    static String replicated(String id) {
        int at = id.indexOf("::");
        if (at > 0) {
            return id.substring(0, at);
        }
        at = id.indexOf("/vgpu");
        if (at > 0) {
            return id.substring(0, at);
        }
        return id;
    }

    /**
     * @param withUid adds a pod's UID where known
     * @return every device's containers, with their pods' UIDs
     */
    Map<String, List<PodContainer>> named(UnaryOperator<PodContainer> withUid) {
        Map<String, List<PodContainer>> out = new LinkedHashMap<>();
        byDevice.forEach((k, v) -> {
            List<PodContainer> l = new ArrayList<>(v.size());
            for (PodContainer p : v) {
                l.add(withUid.apply(p));
            }
            out.put(k, List.copyOf(l));
        });
        return Collections.unmodifiableMap(out);
    }

    /** @return the answer in words, for {@code sources()} */
    String describe() {
        return devices + " GPU device ids allocated";
    }

    private static boolean printable(String id) {
        if (id.isEmpty() || id.length() > MAX_DEVICE_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
