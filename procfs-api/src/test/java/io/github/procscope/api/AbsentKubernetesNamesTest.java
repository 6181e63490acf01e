package io.github.procscope.api;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.QosClass;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without {@code procscope-kubernetes} (this module's tests have no implementation on the class path), the front
 * door's Kubernetes names are empty, never a failure, and say why once in the log and in their sources.
 */
class AbsentKubernetesNamesTest {
    private static final String ID = "4f3a" + "0".repeat(56) + "0001";

    @SuppressWarnings("try") // close() is called again inside the block: it may be
    @Test
    void withoutTheModuleEveryAnswerIsEmptyAndOneLineIsLogged() {
        List<String> logged = new CopyOnWriteArrayList<>();
        try (KubernetesNames names = SystemProcscope.kubernetesNames(KubernetesOptions.defaults(), logged::add)) {
            assertInstanceOf(AbsentKubernetesNames.class, names);
            assertEquals(List.of(), logged, "nothing is said before the first question");
            Container c = new Container(Optional.empty(), ID);
            Owner owner = new Owner(Optional.of(c), Optional.of("0d2b6c4e-8a51-4d0b-9a55-6e4a1f0c7b21"),
                    Optional.of(QosClass.BEST_EFFORT), Optional.empty(), Optional.empty(), Optional.empty());
            for (int i = 0; i < 3; i++) {
                assertEquals(Optional.empty(), names.container(c));
                assertEquals(Optional.empty(), names.container(owner));
                assertEquals(List.of(), names.gpu("GPU-5f2a7c1e-0b3d-4e8f-9a6c-1d2e3f4a5b6c"));
                assertEquals(Map.of(), names.gpus());
            }
            assertEquals(1, logged.size(), "one line, not one per question: " + logged);
            assertTrue(logged.get(0).contains("procscope-kubernetes"), logged.get(0));
            NamesSource cri = names.sources().get(0);
            assertEquals(NamesSource.Kind.CRI, cri.kind());
            assertEquals(NamesSource.State.REFUSED, cri.state());
            assertEquals(Optional.of(Path.of(KubernetesOptions.CONTAINERD_SOCKET)), cri.socket());
            assertTrue(cri.detail().contains("procscope-kubernetes"), cri.detail());
            assertEquals(NamesSource.State.REFUSED, names.sources().get(1).state());
            names.close();
            assertThrows(IllegalStateException.class, () -> names.container(c));
        }
    }

    @Test
    void anUnconfiguredSourceIsDisabledRatherThanRefused() {
        KubernetesOptions none = new KubernetesOptions(List.of(), Optional.empty(),
                KubernetesOptions.defaults().deadline(), KubernetesOptions.defaults().maxAge(), 1 << 20,
                KubernetesOptions.defaults().gpuResources());
        try (KubernetesNames names = SystemProcscope.kubernetesNames(none)) {
            assertEquals(NamesSource.State.DISABLED, names.sources().get(0).state());
            assertEquals(NamesSource.State.DISABLED, names.sources().get(1).state());
        }
    }
}
