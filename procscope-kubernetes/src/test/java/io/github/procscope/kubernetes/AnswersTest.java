package io.github.procscope.kubernetes;

import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.kubernetes.cri.CriApi.Container;
import io.github.procscope.kubernetes.cri.CriApi.ContainerMetadata;
import io.github.procscope.kubernetes.cri.CriApi.ListContainersResponse;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxResponse;
import io.github.procscope.kubernetes.cri.CriApi.PodSandbox;
import io.github.procscope.kubernetes.cri.CriApi.PodSandboxMetadata;
import io.github.procscope.kubernetes.cri.CriApi.PodSandboxState;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerDevices;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerResources;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesResponse;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.PodResources;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

/** The two answers' readings: which sandbox names a pod, the kubelet's labels, replicas of shared GPUs. */
class AnswersTest {
    private static final String ID = "ab".repeat(32);

    @Test
    void aPodsUidIsItsReadySandboxsThenItsNewest() {
        ListPodSandboxResponse sandboxes = ListPodSandboxResponse.newBuilder()
                .addItems(sandbox("a", "ml", "trainer-0", "uid-new-not-ready", false, 30))
                .addItems(sandbox("b", "ml", "trainer-0", "uid-ready", true, 20))
                .addItems(sandbox("c", "ml", "trainer-0", "uid-old-not-ready", false, 10))
                .addItems(sandbox("d", "ml", "eval-0", "uid-eval-old", false, 1))
                .addItems(sandbox("e", "ml", "eval-0", "uid-eval-new", false, 2))
                .build();
        CriAnswer a = CriAnswer.of(sandboxes, ListContainersResponse.getDefaultInstance());
        assertEquals(Map.of(new CriAnswer.PodKey("ml", "trainer-0"), "uid-ready",
                new CriAnswer.PodKey("ml", "eval-0"), "uid-eval-new"), a.podUids());
        assertEquals(new PodContainer("ml", "eval-0", Optional.of("uid-eval-new"), "eval"),
                a.withUid(new PodContainer("ml", "eval-0", Optional.empty(), "eval")));
    }

    @Test
    void aContainerWhoseSandboxIsNotListedIsNamedByTheKubeletsLabels() {
        Container c = Container.newBuilder().setId(ID).setPodSandboxId("gone")
                .putLabels(CriAnswer.POD_NAMESPACE_LABEL, "ml").putLabels(CriAnswer.POD_NAME_LABEL, "trainer-0")
                .putLabels(CriAnswer.POD_UID_LABEL, "uid-1").putLabels(CriAnswer.CONTAINER_NAME_LABEL, "trainer")
                .build();
        Container unlabelled = Container.newBuilder().setId("cd".repeat(32)).setPodSandboxId("gone")
                .setMetadata(ContainerMetadata.newBuilder().setName("buildkit")).build();
        CriAnswer a = CriAnswer.of(ListPodSandboxResponse.getDefaultInstance(),
                ListContainersResponse.newBuilder().addContainers(c).addContainers(unlabelled).build());
        assertEquals(Optional.of(new PodContainer("ml", "trainer-0", Optional.of("uid-1"), "trainer")),
                a.container(ID));
        assertEquals(Optional.empty(), a.container("cd".repeat(32)), "not the kubelet's: no pod names");
    }

    @Test
    void replicasOfASharedDeviceCountForTheDevice() {
        assertEquals("GPU-1", GpuAllocations.replicated("GPU-1::0"));
        assertEquals("MIG-2", GpuAllocations.replicated("MIG-2::13"));
        assertEquals("nvidia0", GpuAllocations.replicated("nvidia0/vgpu3"));
        assertEquals("nvidia1/gi2", GpuAllocations.replicated("nvidia1/gi2/vgpu0"));
        assertEquals("GPU-1", GpuAllocations.replicated("GPU-1"));
        assertEquals("::0", GpuAllocations.replicated("::0"), "no id before the separator: kept whole");
    }

    @Test
    void aContainerWithoutAGpuResourceIsNotAllocatedAGpu() {
        ListPodResourcesResponse r = ListPodResourcesResponse.newBuilder().addPodResources(PodResources.newBuilder()
                .setNamespace("ml").setName("p").addContainers(ContainerResources.newBuilder().setName("c")
                        .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu.shared")
                                .addDeviceIds("GPU-1::0")))).build();
        assertEquals(Map.of(), GpuAllocations.of(r, Set.of("nvidia.com/gpu")).byDevice());
        assertEquals(Set.of("GPU-1", "GPU-1::0"),
                GpuAllocations.of(r, Set.of("nvidia.com/gpu.shared")).byDevice().keySet());
    }

    @Test
    void anyNamesAndDeviceIdsGiveOnlyPrintableNamesAndNeverAnException() {
        qt().withExamples(300).forAll(lists().of(strings().allPossible().ofLengthBetween(0, 12)).ofSizeBetween(4, 4))
                .checkAssert(s -> {
                    ListPodResourcesResponse r = ListPodResourcesResponse.newBuilder().addPodResources(
                            PodResources.newBuilder().setNamespace(s.get(0)).setName(s.get(1))
                                    .addContainers(ContainerResources.newBuilder().setName(s.get(2))
                                            .addDevices(ContainerDevices.newBuilder()
                                                    .setResourceName("nvidia.com/gpu").addDeviceIds(s.get(3)))))
                            .build();
                    GpuAllocations a = GpuAllocations.of(r, Set.of("nvidia.com/gpu"));
                    boolean valid = List.of(s.get(0), s.get(1), s.get(2), s.get(3)).stream()
                            .allMatch(x -> !x.isEmpty() && x.chars().noneMatch(Character::isISOControl));
                    assertEquals(valid, a.byDevice().containsKey(s.get(3)), s.toString());
                    a.byDevice().forEach((id, pods) -> {
                        assertTrue(id.chars().noneMatch(Character::isISOControl));
                        assertEquals(List.of(new PodContainer(s.get(0), s.get(1), Optional.empty(), s.get(2))),
                                pods);
                    });
                });
    }

    private static PodSandbox sandbox(String id, String ns, String name, String uid, boolean ready, long created) {
        return PodSandbox.newBuilder().setId(id)
                .setMetadata(PodSandboxMetadata.newBuilder().setNamespace(ns).setName(name).setUid(uid))
                .setState(ready ? PodSandboxState.SANDBOX_READY : PodSandboxState.SANDBOX_NOTREADY)
                .setCreatedAt(created).build();
    }
}
