package io.github.procscope.kubernetes;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.testing.FixtureTrees;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Kubernetes names through the front door: {@link Procscope#kubernetesNames} finds this module, and a process of a
 * fixture tree whose cgroup path names a container of a pod resolves, through the fake runtime's CRI answer, to
 * that pod's namespace, name and UID and the container's name.
 */
class FrontDoorNamesTest {
    private static final String TRAINER_ID = "4f3a" + "0".repeat(56) + "0001";
    private static final String TRAINER_UID = "0d2b6c4e-8a51-4d0b-9a55-6e4a1f0c7b21";
    private static final String OTHER_UID = "7c9e2f10-3b4d-4c1a-8e6f-2a9b0d4c5e11";

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void aStagedProcessInAContainersCgroupResolvesToItsPod() throws IOException {
        Path cri = dir.resolve("containerd.sock");
        closing.add(UnixServer.start(cri, new FakeRuntime()
                .sandbox("sb-trainer", "ml", "trainer-0", TRAINER_UID, true, 2)
                .container(TRAINER_ID, "sb-trainer", "trainer")));
        Path proc = stage(50, podCgroup(TRAINER_UID, TRAINER_ID));
        Procscope scope = Procscope.at(proc, FixtureTrees.directory("sys-clean", dir));
        KubernetesNames names = scope.kubernetesNames(KubernetesOptions.defaults().withCriSocket(cri)
                .withDeadline(Duration.ofSeconds(10)));
        closing.add(names);
        assertInstanceOf(GrpcKubernetesNames.class, names);

        ProcessInfo p = scope.processes().process(50, Set.of(Facet.CGROUP));
        Owner owner = p.owner().orElseThrow();
        assertEquals(Optional.of(TRAINER_ID), owner.container().map(c -> c.id()));
        assertEquals(Optional.of(new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "trainer")),
                names.container(owner));
        assertEquals(NamesSource.State.ANSWERED, names.sources().get(0).state());

        // a process outside any container has no names; the runtime's listing served both questions
        ProcessInfo init = scope.processes().process(1, Set.of(Facet.CGROUP));
        assertEquals(Optional.empty(), init.owner().flatMap(names::container));
    }

    @Test
    void aRuntimeNamingAnotherPodThanTheCgroupPathIsNotBelieved() throws IOException {
        Path cri = dir.resolve("containerd.sock");
        closing.add(UnixServer.start(cri, new FakeRuntime()
                .sandbox("sb-trainer", "ml", "trainer-0", TRAINER_UID, true, 2)
                .container(TRAINER_ID, "sb-trainer", "trainer")));
        Path proc = stage(50, podCgroup(OTHER_UID, TRAINER_ID));
        Procscope scope = Procscope.at(proc, FixtureTrees.directory("sys-clean", dir));
        KubernetesNames names = scope.kubernetesNames(KubernetesOptions.defaults().withCriSocket(cri)
                .withDeadline(Duration.ofSeconds(10)));
        closing.add(names);
        Owner owner = scope.processes().process(50, Set.of(Facet.CGROUP)).owner().orElseThrow();
        assertEquals(Optional.of(OTHER_UID), owner.podUid());
        assertEquals(Optional.empty(), names.container(owner));
        // the container id alone still resolves: the contradiction is between the runtime and the kernel
        assertEquals("trainer-0", names.container(owner.container().orElseThrow()).orElseThrow().pod());
    }

    @Test
    void withoutSocketsTheFrontDoorGivesEmptyNames() throws IOException {
        Path proc = stage(50, podCgroup(TRAINER_UID, TRAINER_ID));
        Procscope scope = Procscope.at(proc, FixtureTrees.directory("sys-clean", dir));
        KubernetesNames names = scope.kubernetesNames(KubernetesOptions.defaults()
                .withCriSocket(dir.resolve("absent.sock")).withPodResourcesSocket(dir.resolve("kubelet.sock")));
        closing.add(names);
        Owner owner = scope.processes().process(50, Set.of(Facet.CGROUP)).owner().orElseThrow();
        assertEquals(Optional.empty(), names.container(owner));
        assertEquals(List.of(), names.gpu("GPU-5f2a7c1e-0b3d-4e8f-9a6c-1d2e3f4a5b6c"));
        assertEquals(NamesSource.State.ABSENT, names.sources().get(0).state());
    }

    /** The clean fixture tree, copied, with one process's cgroup file replaced. */
    private Path stage(long pid, String cgroupLine) throws IOException {
        Path proc = FixtureTrees.copy(FixtureTrees.directory("proc-clean", dir.resolve("src")), dir.resolve("proc"));
        Files.writeString(proc.resolve(Long.toString(pid)).resolve("cgroup"), cgroupLine + "\n");
        return proc;
    }

    /** A cgroup v2 line as the kubelet's systemd driver with containerd writes it, for a best-effort pod. */
    private static String podCgroup(String podUid, String containerId) {
        String u = podUid.replace('-', '_');
        return "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + u + ".slice/cri-containerd-"
                + containerId + ".scope";
    }
}
