package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.kubernetes.FakeKubelet;
import io.github.procscope.kubernetes.FakeRuntime;
import io.github.procscope.kubernetes.UnixServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.github.procscope.metrics.NvmlDouble.COMPUTE;
import static io.github.procscope.metrics.NvmlDouble.GIB;
import static io.github.procscope.metrics.NvmlDouble.NO_INSTANCE;
import static io.github.procscope.metrics.NvmlDouble.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kubernetes names on GPU series, against the NVML double, a fake container runtime and a fake kubelet on unix
 * sockets (served from the same protos as the client), over a copy of the fixture machine in which two processes
 * run in two pods' containers: 4100 in ml/trainer-0's container {@code trainer}, 4200 in ml/eval-0's {@code eval}.
 */
class KubernetesLabelsTest {
    private static final String GPU0 = "GPU-abc00000-1111-2222-3333-000000444444";
    private static final String GPU1 = "GPU-abc00001-1111-2222-3333-000000444445";
    private static final String TRAINER_UID = "0d2b6c4e-8a51-4d0b-9a55-6e4a1f0c7b21";
    private static final String TRAINER_ID = "4f3a" + "0".repeat(56) + "0001";
    /** The pod and container of pid 4200 in the fixture machine. */
    private static final String EVAL_UID = "0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b";
    private static final String EVAL_ID = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        NvmlDouble.assertClosed();
    }

    @Test
    void aGpuAllocatedToAPodCarriesItsNamesOnEveryDcgmSeries() throws IOException {
        var c = NvmlDouble.reset();
        ok(c.ndAddProcess(0, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        Path kubelet = serve("kubelet.sock", new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0));
        KubernetesNames names = names(serve("containerd.sock", runtime()), kubelet, Duration.ofSeconds(10));
        try (ProcscopeCollector collector = collector(names)) {
            Exposition e = Exposition.of(collector.collect());
            List<String> gpu0 = series(e, GPU0);
            List<String> gpu1 = series(e, GPU1);
            assertTrue(gpu0.size() >= 10, "GPU 0's DCGM series: " + gpu0);
            for (String s : gpu0) {
                assertTrue(s.contains("pod=\"trainer-0\"") && s.contains("namespace=\"ml\"")
                        && s.contains("container=\"trainer\""), s);
            }
            assertFalse(gpu1.isEmpty());
            for (String s : gpu1) {
                assertFalse(s.contains("pod=") || s.contains("namespace=") || s.contains("container="),
                        "a GPU allocated to no pod carries no pod labels: " + s);
            }
            assertEquals(2 * GIB, e.get("procscope_pod_gpu_memory_bytes{UUID=\"" + GPU0
                    + "\",container=\"trainer\",gpu=\"0\",namespace=\"ml\",pod=\"trainer-0\"}"));
        }
    }

    @Test
    void twoPodsSharingOneGpuEachGetTheirOwnMemorySeries() throws IOException {
        var c = NvmlDouble.reset();
        ok(c.ndAddProcess(1, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(1, COMPUTE, 4200, 5 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(1, COMPUTE, 77_777, 1 * GIB, NO_INSTANCE, NO_INSTANCE));
        // time-slicing: the device plugin announces replicas GPU-…::N, one given to each pod
        Path kubelet = serve("kubelet.sock", new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU1 + "::0")
                .allocate("ml", "eval-0", "eval", "nvidia.com/gpu", GPU1 + "::1"));
        KubernetesNames names = names(serve("containerd.sock", runtime()), kubelet, Duration.ofSeconds(10));
        try (ProcscopeCollector collector = collector(names)) {
            Exposition e = Exposition.of(collector.collect());
            assertEquals(2 * GIB, e.get("procscope_pod_gpu_memory_bytes{UUID=\"" + GPU1
                    + "\",container=\"trainer\",gpu=\"1\",namespace=\"ml\",pod=\"trainer-0\"}"));
            assertEquals(5 * GIB, e.get("procscope_pod_gpu_memory_bytes{UUID=\"" + GPU1
                    + "\",container=\"eval\",gpu=\"1\",namespace=\"ml\",pod=\"eval-0\"}"));
            // 77777 is not visible here: in no pod this exporter can name
            assertEquals(2, e.count("procscope_pod_gpu_memory_bytes"));
            // the device's own series name one pod, the last the kubelet lists, as dcgm-exporter does by default
            assertFalse(series(e, GPU1).isEmpty());
            for (String s : series(e, GPU1)) {
                assertTrue(s.contains("pod=\"eval-0\"") && s.contains("container=\"eval\""), s);
            }
        }
    }

    @Test
    void aSharedGpusSeriesNameTheLastContainerTheKubeletLists() throws IOException {
        var c = NvmlDouble.reset();
        ok(c.ndAddProcess(1, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(1, COMPUTE, 4200, 5 * GIB, NO_INSTANCE, NO_INSTANCE));
        // the order of the previous test reversed: the series follow it, the memory per pod does not
        Path kubelet = serve("kubelet.sock", new FakeKubelet()
                .allocate("ml", "eval-0", "eval", "nvidia.com/gpu", GPU1 + "::1")
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU1 + "::0"));
        KubernetesNames names = names(serve("containerd.sock", runtime()), kubelet, Duration.ofSeconds(10));
        try (ProcscopeCollector collector = collector(names)) {
            Exposition e = Exposition.of(collector.collect());
            assertFalse(series(e, GPU1).isEmpty());
            for (String s : series(e, GPU1)) {
                assertTrue(s.contains("pod=\"trainer-0\"") && s.contains("container=\"trainer\""), s);
            }
            assertEquals(2 * GIB, e.get("procscope_pod_gpu_memory_bytes{UUID=\"" + GPU1
                    + "\",container=\"trainer\",gpu=\"1\",namespace=\"ml\",pod=\"trainer-0\"}"));
            assertEquals(5 * GIB, e.get("procscope_pod_gpu_memory_bytes{UUID=\"" + GPU1
                    + "\",container=\"eval\",gpu=\"1\",namespace=\"ml\",pod=\"eval-0\"}"));
        }
    }

    @Test
    void socketsThatNeverAnswerDelayNoScrapePastTheirDeadline() throws IOException {
        var c = NvmlDouble.reset();
        ok(c.ndAddProcess(0, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        FakeRuntime runtime = runtime();
        runtime.hang();
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0);
        kubelet.hang();
        Duration deadline = Duration.ofMillis(500);
        KubernetesNames names = names(serve("containerd.sock", runtime), serve("kubelet.sock", kubelet), deadline);
        try (ProcscopeCollector collector = collector(names)) {
            long start = System.nanoTime();
            Exposition e = Exposition.of(collector.collect());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            System.out.println("scrape with both sockets silent, deadline " + deadline.toMillis() + " ms: "
                    + took.toMillis() + " ms");
            // the names' own background deadline is 10 s: a scrape that waited for it would take that long
            assertTrue(took.compareTo(Duration.ofSeconds(8)) < 0, "took " + took);
            assertTrue(e.count("DCGM_FI_DEV_FB_USED") == 2, e.text());
            assertEquals(0, e.count("procscope_pod_gpu_memory_bytes"));
            assertTrue(kubelet.calls.get() >= 1 && runtime.calls.get() >= 1, "both sockets were asked");
            // the next scrape, within the maximum age, asks again no sooner and waits no longer
            long again = System.nanoTime();
            collector.collect();
            Duration second = Duration.ofNanos(System.nanoTime() - again);
            System.out.println("second scrape: " + second.toMillis() + " ms");
            assertTrue(second.compareTo(Duration.ofSeconds(8)) < 0, "took " + second);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** ml/trainer-0 with container {@code trainer}, ml/eval-0 with container {@code eval}. */
    private static FakeRuntime runtime() {
        return new FakeRuntime()
                .sandbox("sb-trainer", "ml", "trainer-0", TRAINER_UID, true, 2)
                .sandbox("sb-eval", "ml", "eval-0", EVAL_UID, true, 3)
                .container(TRAINER_ID, "sb-trainer", "trainer")
                .container(EVAL_ID, "sb-eval", "eval");
    }

    private ProcscopeCollector collector(KubernetesNames names) throws IOException {
        Path root = stagedMachine();
        Procscope scope = Procscope.at(root.resolve("proc"), root.resolve("sys"));
        return new ProcscopeCollector(MetricsSources.of(scope.processes()).withGpus(scope::openGpus)
                .withKubernetes(names), ExporterOptions.defaults().withHostname("node-7"), line -> { });
    }

    private KubernetesNames names(Path cri, Path kubelet, Duration deadline) {
        KubernetesNames names = Procscope.at(Fixture.root().resolve("proc"), Fixture.root().resolve("sys"))
                .kubernetesNames(KubernetesOptions.defaults().withCriSocket(cri).withPodResourcesSocket(kubelet)
                        .withDeadline(deadline).withMaxAge(Duration.ofMinutes(1)));
        closing.add(names);
        return names;
    }

    private Path serve(String name, io.grpc.BindableService service) {
        Path socket = dir.resolve(name);
        closing.add(UnixServer.start(socket, service));
        return socket;
    }

    /** The fixture machine, copied, with pid 4100 moved into ml/trainer-0's container {@code trainer}. */
    private Path stagedMachine() throws IOException {
        Path src = Fixture.root();
        Path dest = dir.resolve("machine");
        if (!Files.exists(dest)) {
            try (Stream<Path> s = Files.walk(src)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path d = dest.resolve(src.relativize(p).toString());
                    if (Files.isSymbolicLink(p)) {
                        Files.createSymbolicLink(d, Files.readSymbolicLink(p));
                    } else if (Files.isDirectory(p)) {
                        Files.createDirectories(d);
                    } else {
                        Files.copy(p, d);
                    }
                }
            }
            Files.writeString(dest.resolve("proc/4100/cgroup"), "0::/kubepods.slice/kubepods-besteffort.slice/"
                    + "kubepods-besteffort-pod" + TRAINER_UID.replace('-', '_') + ".slice/cri-containerd-"
                    + TRAINER_ID + ".scope\n");
        }
        return dest;
    }

    /** @return the DCGM_* series of one GPU, with their labels */
    private static List<String> series(Exposition e, String uuid) {
        return Arrays.stream(e.text().split("\n"))
                .filter(l -> l.startsWith("DCGM_") && l.contains("UUID=\"" + uuid + "\"")).toList();
    }
}
