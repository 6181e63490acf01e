package io.github.procscope.kubernetes;

import io.github.procscope.api.KubernetesNamesProvider;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Run in a JVM of its own: a fake runtime and kubelet on unix sockets in the directory given, one container and
 * one GPU resolved through the service loader, one line printed. Whatever else the JVM prints is a warning.
 */
public final class NamesMain {
    static final String CONTAINER = "4f3a" + "0".repeat(60);
    static final String GPU = "GPU-5f2a7c1e-0b3d-4e8f-9a6c-1d2e3f4a5b6c";

    private NamesMain() {
    }

    /** @param args the directory for the sockets */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        FakeRuntime runtime = new FakeRuntime().sandbox("sb", "ml", "trainer-0", "uid-0", true, 1)
                .container(CONTAINER, "sb", "trainer");
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU);
        UnixServer r = UnixServer.start(dir.resolve("containerd.sock"), runtime);
        UnixServer k = UnixServer.start(dir.resolve("kubelet.sock"), kubelet);
        try (KubernetesNames names = ServiceLoader.load(KubernetesNamesProvider.class).findFirst().orElseThrow()
                .open(KubernetesOptions.defaults().withCriSocket(dir.resolve("containerd.sock"))
                        .withPodResourcesSocket(dir.resolve("kubelet.sock"))
                        .withDeadline(Duration.ofSeconds(30)))) {
            System.out.println(names.container(new Container(Optional.empty(), CONTAINER)).orElseThrow() + " "
                    + names.gpu(GPU));
        } finally {
            k.close();
            r.close();
        }
    }
}
