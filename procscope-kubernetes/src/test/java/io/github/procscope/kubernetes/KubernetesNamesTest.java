package io.github.procscope.kubernetes;

import io.github.procscope.api.KubernetesNamesProvider;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.ContainerRuntime;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource;
import io.github.procscope.api.kubernetes.PodContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The resolver against a fake container runtime and a fake kubelet, both served with gRPC on unix sockets from
 * the same .proto files the client is generated from.
 */
class KubernetesNamesTest {
    private static final String TRAINER_ID = "4f3a" + "0".repeat(56) + "0001";
    private static final String READER_ID = "4f3a" + "0".repeat(56) + "0002";
    private static final String OTHER_ID = "9b1c" + "0".repeat(56) + "0003";
    private static final String TRAINER_UID = "0d2b6c4e-8a51-4d0b-9a55-6e4a1f0c7b21";
    private static final String SERVER_UID = "7c9e2f10-3b4d-4c1a-8e6f-2a9b0d4c5e11";
    private static final String GPU0 = "GPU-5f2a7c1e-0b3d-4e8f-9a6c-1d2e3f4a5b6c";
    private static final String GPU1 = "GPU-8e1d4b2a-7c6f-4a3e-b5d9-0f1e2d3c4b5a";
    private static final Duration GENEROUS = Duration.ofSeconds(10);
    /** A deadline small against the background deadline (10 s) that a call must not wait for. */
    private static final Duration SHORT = Duration.ofMillis(200);
    /** Well under the background deadline: a call that waited for a dead socket's own deadline would pass it. */
    private static final Duration RETURNS_WITHIN = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final Logger julLogger = Logger.getLogger(GrpcKubernetesNames.LOGGER);
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        julLogger.addHandler(capture);
        julLogger.setUseParentHandlers(false);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        julLogger.removeHandler(capture);
        julLogger.setUseParentHandlers(true);
    }

    @Test
    void theProviderIsFoundThroughTheServiceLoader() {
        KubernetesNamesProvider p = ServiceLoader.load(KubernetesNamesProvider.class).findFirst().orElseThrow();
        assertInstanceOf(GrpcKubernetesNamesProvider.class, p);
        try (KubernetesNames names = p.open(KubernetesOptions.defaults())) {
            // nothing asked yet: opening touches no socket
            assertEquals(NamesSource.State.NOT_ASKED, names.sources().get(0).state());
            assertEquals(NamesSource.State.NOT_ASKED, names.sources().get(1).state());
        }
    }

    @Test
    void aContainerIdResolvesToItsPodNamespaceUidAndContainerName() {
        FakeRuntime runtime = trainerRuntime();
        Path cri = serve("containerd.sock", runtime);
        KubernetesNames names = open(options(cri, null, GENEROUS, Duration.ofMinutes(1)));

        assertEquals(Optional.of(new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "trainer")),
                names.container(new Container(Optional.of(ContainerRuntime.CONTAINERD), TRAINER_ID)));
        assertEquals(Optional.of(new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "reader")),
                names.container(new Container(Optional.empty(), READER_ID)));
        assertEquals(Optional.of(new PodContainer("web", "server-7d9f", Optional.of(SERVER_UID), "nginx")),
                names.container(new Container(Optional.empty(), OTHER_ID)));
        assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), "e".repeat(64))));

        NamesSource s = names.sources().get(0);
        assertEquals(NamesSource.Kind.CRI, s.kind());
        assertEquals(NamesSource.State.ANSWERED, s.state());
        assertEquals(Optional.of(cri), s.socket());
        // one listing (two calls) served every lookup, the unknown id included (its listing is not a minute old)
        assertEquals(2, runtime.calls.get());
    }

    @Test
    void theSecondConfiguredRuntimeSocketIsUsedWhenTheFirstIsAbsent() {
        Path crio = serve("crio.sock", trainerRuntime());
        KubernetesOptions o = new KubernetesOptions(List.of(dir.resolve("containerd.sock"), crio), Optional.empty(),
                GENEROUS, Duration.ofMinutes(1), 16 << 20, Set.of(KubernetesOptions.NVIDIA_GPU_RESOURCE));
        KubernetesNames names = open(o);
        assertEquals("trainer-0", names.container(new Container(Optional.empty(), TRAINER_ID)).orElseThrow().pod());
        assertEquals(Optional.of(crio), names.sources().get(0).socket());
    }

    @Test
    void aGpuAllocatedToThePodResolvesToItsContainerWithThePodUidFromTheRuntime() {
        Path cri = serve("containerd.sock", trainerRuntime());
        FakeKubelet kubelet = new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0)
                .allocate("ml", "trainer-0", "trainer", "example.com/fpga", "fpga-0")
                .allocate("web", "server-7d9f", "nginx", "nvidia.com/gpu", GPU1);
        Path kubeletSocket = serve("kubelet.sock", kubelet);
        KubernetesNames names = open(options(cri, kubeletSocket, GENEROUS, Duration.ofMinutes(1)));

        assertEquals(List.of(new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "trainer")),
                names.gpu(GPU0));
        assertEquals(List.of(new PodContainer("web", "server-7d9f", Optional.of(SERVER_UID), "nginx")),
                names.gpu(GPU1));
        assertEquals(List.of(), names.gpu("fpga-0"), "only GPU resources count");
        assertEquals(List.of(), names.gpu("GPU-00000000-0000-0000-0000-000000000000"));
        assertEquals(Set.of(GPU0, GPU1), names.gpus().keySet());
        assertEquals(NamesSource.State.ANSWERED, names.sources().get(1).state());
        assertEquals(1, kubelet.calls.get());
    }

    @Test
    void withoutARuntimeAGpusPodsComeWithoutTheirUid() {
        Path kubeletSocket = serve("kubelet.sock",
                new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0));
        KubernetesNames names = open(options(null, kubeletSocket, GENEROUS, Duration.ofMinutes(1)));
        assertEquals(List.of(new PodContainer("ml", "trainer-0", Optional.empty(), "trainer")), names.gpu(GPU0));
    }

    @Test
    void twoPodsSharingOneGpuByTimeSlicingBothComeBack() {
        Path cri = serve("containerd.sock", trainerRuntime());
        Path kubeletSocket = serve("kubelet.sock", new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0 + "::0")
                .allocate("web", "server-7d9f", "nginx", "nvidia.com/gpu", GPU0 + "::3")
                // one container given two replicas of the same GPU counts once for it
                .allocate("ml", "trainer-0", "reader", "nvidia.com/gpu", GPU0 + "::1", GPU0 + "::2"));
        KubernetesNames names = open(options(cri, kubeletSocket, GENEROUS, Duration.ofMinutes(1)));

        PodContainer trainer = new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "trainer");
        PodContainer reader = new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "reader");
        PodContainer nginx = new PodContainer("web", "server-7d9f", Optional.of(SERVER_UID), "nginx");
        assertEquals(List.of(trainer, nginx, reader), names.gpu(GPU0));
        assertEquals(List.of(nginx), names.gpu(GPU0 + "::3"), "a replica's own id names its own pod");
    }

    @Test
    void migDevicesAndAnotherGpuResourceCount() {
        String mig = "MIG-3c1f2e4d-5a6b-5c7d-8e9f-0a1b2c3d4e5f";
        Path kubeletSocket = serve("kubelet.sock", new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/mig-1g.10gb", mig + "::7")
                .allocate("ml", "eval-0", "eval", "nvidia.com/gpu.shared", GPU1 + "::0"));
        KubernetesOptions o = new KubernetesOptions(List.of(), Optional.of(kubeletSocket), GENEROUS,
                Duration.ofMinutes(1), 16 << 20, Set.of("nvidia.com/gpu", "nvidia.com/gpu.shared"));
        KubernetesNames names = open(o);
        assertEquals(List.of(new PodContainer("ml", "trainer-0", Optional.empty(), "trainer")), names.gpu(mig));
        assertEquals(List.of(new PodContainer("ml", "eval-0", Optional.empty(), "eval")), names.gpu(GPU1));
    }

    @Test
    void aSocketThatNeverAnswersReturnsWithinTheDeadlineWithNoNames() throws IOException {
        Path cri = silentSocket("containerd.sock");
        Path kubeletSocket = silentSocket("kubelet.sock");
        KubernetesNames names = open(options(cri, kubeletSocket, SHORT, Duration.ZERO));
        Container trainer = new Container(Optional.empty(), TRAINER_ID);
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            assertEquals(Optional.empty(), names.container(trainer));
            assertEquals(List.of(), names.gpu(GPU0));
            assertEquals(Map.of(), names.gpus());
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertTrue(took.compareTo(RETURNS_WITHIN) < 0, "call " + i + " took " + took);
        }
    }

    @Test
    void aSlowRuntimeAndKubeletServeTheirLastAnswerWithinTheDeadline() {
        FakeRuntime runtime = trainerRuntime();
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0);
        Path cri = serve("containerd.sock", runtime);
        Path kubeletSocket = serve("kubelet.sock", kubelet);
        KubernetesNames names = open(options(cri, kubeletSocket, SHORT, Duration.ZERO));
        Container trainer = new Container(Optional.empty(), TRAINER_ID);
        PodContainer expected = new PodContainer("ml", "trainer-0", Optional.of(TRAINER_UID), "trainer");
        // The first answers may take longer than 200 ms on a loaded machine (classes to load): wait for them.
        eventually(() -> names.gpu(GPU0), l -> l.equals(List.of(expected)));
        eventually(() -> names.container(trainer), Optional::isPresent);

        runtime.hang();
        kubelet.hang();
        int runtimeCalls = runtime.calls.get();
        int kubeletCalls = kubelet.calls.get();
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            assertEquals(List.of(expected), names.gpu(GPU0));
            assertEquals(Optional.of(expected), names.container(trainer));
            assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), "e".repeat(64))));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertTrue(took.compareTo(RETURNS_WITHIN) < 0, "call " + i + " took " + took);
        }
        assertTrue(kubelet.calls.get() > kubeletCalls, "the kubelet was asked again");
        assertTrue(runtime.calls.get() > runtimeCalls, "the runtime was asked for the unknown container");
        // one question at a time: a hung question is not asked again on top of itself
        assertEquals(kubeletCalls + 1, kubelet.calls.get());
    }

    @Test
    void aKubeletReplacedByASilentSocketLeavesTheLastAnswer() throws Exception {
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0);
        Path socket = dir.resolve("kubelet.sock");
        UnixServer server = UnixServer.start(socket, kubelet);
        closing.add(server);
        KubernetesNames names = open(options(null, socket, SHORT, Duration.ZERO));
        PodContainer expected = new PodContainer("ml", "trainer-0", Optional.empty(), "trainer");
        eventually(() -> names.gpu(GPU0), l -> l.equals(List.of(expected)));

        server.close();
        Files.deleteIfExists(socket);
        silentSocket("kubelet.sock");
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            assertEquals(List.of(expected), names.gpu(GPU0));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertTrue(took.compareTo(RETURNS_WITHIN) < 0, "call " + i + " took " + took);
        }
    }

    @Test
    void aRestartedKubeletIsFoundAgain() throws Exception {
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0);
        Path socket = dir.resolve("kubelet.sock");
        UnixServer server = UnixServer.start(socket, kubelet);
        closing.add(server);
        KubernetesNames names = open(options(null, socket, SHORT, Duration.ZERO));
        eventually(() -> names.gpu(GPU0), l -> l.size() == 1);
        server.close();
        Files.deleteIfExists(socket);
        eventually(() -> {
            names.gpu(GPU0);
            return names.sources().get(1).state();
        }, s -> s != NamesSource.State.ANSWERED);

        FakeKubelet restarted = new FakeKubelet().allocate("ml", "trainer-1", "trainer", "nvidia.com/gpu", GPU0);
        serve("kubelet.sock", restarted);
        eventually(() -> names.gpu(GPU0), l -> l.equals(
                List.of(new PodContainer("ml", "trainer-1", Optional.empty(), "trainer"))));
    }

    @Test
    void aMissingSocketGivesNoNamesAndOneLogLine() {
        Path containerd = dir.resolve("containerd.sock");
        Path crio = dir.resolve("crio.sock");
        KubernetesNames names = open(new KubernetesOptions(List.of(containerd, crio), Optional.empty(), GENEROUS,
                Duration.ZERO, 16 << 20, Set.of(KubernetesOptions.NVIDIA_GPU_RESOURCE)));
        for (int i = 0; i < 10; i++) {
            assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), TRAINER_ID)));
            assertEquals(Map.of(), names.gpus());
        }
        assertEquals(1, logged.size(), logged.stream().map(LogRecord::getMessage).toList().toString());
        LogRecord line = logged.get(0);
        assertEquals(Level.INFO, line.getLevel());
        assertTrue(line.getMessage().contains(containerd.toString()) && line.getMessage().contains(crio.toString())
                && line.getMessage().contains("containers get no Kubernetes names"), line.getMessage());
        NamesSource s = names.sources().get(0);
        assertEquals(NamesSource.State.ABSENT, s.state());
        assertEquals(NamesSource.State.DISABLED, names.sources().get(1).state());
    }

    @Test
    void bothSocketsMissingGiveOneLineEach() {
        KubernetesNames names = open(options(dir.resolve("containerd.sock"), dir.resolve("kubelet.sock"), GENEROUS,
                Duration.ZERO));
        for (int i = 0; i < 10; i++) {
            assertEquals(List.of(), names.gpu(GPU0));
        }
        assertEquals(2, logged.size(), logged.stream().map(LogRecord::getMessage).toList().toString());
    }

    @Test
    void aPathThatIsNotASocketIsRefusedWithTheReason() throws IOException {
        Path file = Files.writeString(dir.resolve("containerd.sock"), "not a socket");
        Path directory = Files.createDirectory(dir.resolve("kubelet.sock"));
        KubernetesNames names = open(options(file, directory, GENEROUS, Duration.ZERO));
        assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), TRAINER_ID)));
        assertEquals(List.of(), names.gpu(GPU0));
        NamesSource cri = names.sources().get(0);
        NamesSource kubelet = names.sources().get(1);
        assertEquals(NamesSource.State.REFUSED, cri.state());
        assertTrue(cri.detail().contains("not a socket but a regular file"), cri.detail());
        assertEquals(NamesSource.State.REFUSED, kubelet.state());
        assertTrue(kubelet.detail().contains("not a socket but a directory"), kubelet.detail());
        assertEquals(2, logged.size());
        assertTrue(logged.stream().allMatch(r -> r.getLevel() == Level.WARNING));
    }

    @Test
    void aSocketOwnedByAnUnprivilegedUserIsRefusedWhenRunningAsRoot() throws IOException {
        assumeTrue(SocketCheck.ownUid(Path.of("/proc/self")) == 0, "runs as root only (it gives a socket away)");
        FakeRuntime runtime = trainerRuntime();
        Path cri = serve("containerd.sock", runtime);
        Files.setAttribute(cri, "unix:uid", 65534);
        KubernetesNames names = open(options(cri, null, GENEROUS, Duration.ZERO));
        assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), TRAINER_ID)));
        NamesSource s = names.sources().get(0);
        assertEquals(NamesSource.State.REFUSED, s.state());
        assertTrue(s.detail().contains("owned by uid 65534, not by root"), s.detail());
        assertEquals(0, runtime.calls.get(), "a refused socket is not connected to");
    }

    @Test
    void runningAsAnotherUserASocketOfRootOrOfThatUserIsUsedAndAThirdUsersRefused() throws IOException {
        assumeTrue(SocketCheck.ownUid(Path.of("/proc/self")) == 0, "needs root to give files away");
        Path self = Files.createDirectory(dir.resolve("self"));
        Files.setAttribute(self, "unix:uid", 1000);
        Path rootOwned = serve("root.sock", trainerRuntime());
        Path ownedBy1000 = serve("user.sock", trainerRuntime());
        Files.setAttribute(ownedBy1000, "unix:uid", 1000);
        Path ownedBy1001 = serve("other.sock", trainerRuntime());
        Files.setAttribute(ownedBy1001, "unix:uid", 1001);
        Container trainer = new Container(Optional.empty(), TRAINER_ID);
        for (Path ok : List.of(rootOwned, ownedBy1000)) {
            try (KubernetesNames names = new GrpcKubernetesNames(options(ok, null, GENEROUS, Duration.ZERO), self)) {
                assertTrue(names.container(trainer).isPresent(), ok.toString());
            }
        }
        try (KubernetesNames names = new GrpcKubernetesNames(options(ownedBy1001, null, GENEROUS, Duration.ZERO),
                self)) {
            assertEquals(Optional.empty(), names.container(trainer));
            String detail = names.sources().get(0).detail();
            assertTrue(detail.contains("owned by uid 1001, not by root or by this process's uid 1000"), detail);
        }
    }

    @Test
    void aSocketPathLongerThanSunPathIsRefused() throws IOException {
        Path deep = Files.createDirectories(dir.resolve("d".repeat(60)).resolve("e".repeat(60)));
        KubernetesNames names = open(options(deep.resolve("containerd.sock"), null, GENEROUS, Duration.ZERO));
        assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), TRAINER_ID)));
        assertTrue(names.sources().get(0).detail().contains("a unix socket's path holds at most 107"),
                names.sources().get(0).detail());
    }

    @Test
    void anAnswerOverTheMessageLimitIsRefusedAndTheLastAnswerKept() {
        FakeKubelet kubelet = new FakeKubelet().allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", GPU0);
        Path socket = serve("kubelet.sock", kubelet);
        KubernetesNames names = open(new KubernetesOptions(List.of(), Optional.of(socket), GENEROUS, Duration.ZERO,
                4096, Set.of(KubernetesOptions.NVIDIA_GPU_RESOURCE)));
        PodContainer trainer = new PodContainer("ml", "trainer-0", Optional.empty(), "trainer");
        assertEquals(List.of(trainer), names.gpu(GPU0));
        for (int i = 0; i < 100; i++) {
            kubelet.allocate("ml", "worker-" + i, "worker-container-with-a-long-name", "nvidia.com/gpu",
                    "GPU-" + String.format("%08d", i) + "-0000-0000-0000-000000000000");
        }
        assertEquals(List.of(trainer), names.gpu(GPU0));
        NamesSource s = names.sources().get(1);
        assertEquals(NamesSource.State.FAILING, s.state());
        assertTrue(s.detail().contains("RESOURCE_EXHAUSTED"), s.detail());
    }

    @Test
    void namesThatCannotBePrintedAreLeftOut() {
        String bad = "5a5a" + "0".repeat(60);
        FakeRuntime runtime = trainerRuntime()
                .sandbox("sb-evil", "ml", "evil\n-pod", "uid-evil", true, 5)
                .container(bad, "sb-evil", "x")
                .container("not-a-container-id", "sb-trainer", "trainer");
        Path cri = serve("containerd.sock", runtime);
        KubernetesNames names = open(options(cri, null, GENEROUS, Duration.ofMinutes(1)));
        assertEquals(Optional.empty(), names.container(new Container(Optional.empty(), bad)));
        assertTrue(names.container(new Container(Optional.empty(), TRAINER_ID)).isPresent());
    }

    @Test
    void afterCloseEveryCallButCloseIsRefused() {
        KubernetesNames names = open(KubernetesOptions.defaults());
        names.close();
        names.close();
        assertThrows(IllegalStateException.class, () -> names.container(new Container(Optional.empty(), TRAINER_ID)));
        assertThrows(IllegalStateException.class, () -> names.gpu(GPU0));
        assertThrows(IllegalStateException.class, names::sources);
    }

    @Test
    void nothingIsLoggedOnASocketThatAnswers() {
        Path cri = serve("containerd.sock", trainerRuntime());
        KubernetesNames names = open(options(cri, null, GENEROUS, Duration.ZERO));
        for (int i = 0; i < 3; i++) {
            assertTrue(names.container(new Container(Optional.empty(), TRAINER_ID)).isPresent());
        }
        assertFalse(names.sources().isEmpty());
        assertEquals(List.of(), logged.stream().map(LogRecord::getMessage).toList());
    }

    // ---------------------------------------------------------------------------------------------------------

    /** ml/trainer-0 (two containers, an older sandbox not ready) and web/server-7d9f. */
    private static FakeRuntime trainerRuntime() {
        return new FakeRuntime()
                .sandbox("sb-trainer-old", "ml", "trainer-0", "00000000-dead-4000-8000-000000000000", false, 1)
                .sandbox("sb-trainer", "ml", "trainer-0", TRAINER_UID, true, 2)
                .sandbox("sb-server", "web", "server-7d9f", SERVER_UID, true, 3)
                .container(TRAINER_ID, "sb-trainer", "trainer")
                .container(READER_ID, "sb-trainer", "reader")
                .container(OTHER_ID, "sb-server", "nginx");
    }

    private Path serve(String name, io.grpc.BindableService service) {
        Path socket = dir.resolve(name);
        closing.add(UnixServer.start(socket, service));
        return socket;
    }

    /** A unix socket that accepts connections and never reads nor writes. */
    private Path silentSocket(String name) throws IOException {
        Path socket = dir.resolve(name);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        List<SocketChannel> held = new CopyOnWriteArrayList<>();
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    held.add(server.accept());
                }
            } catch (IOException e) {
                // closed by the test
            }
        }, "silent-socket");
        acceptor.setDaemon(true);
        acceptor.start();
        closing.add(() -> {
            server.close();
            acceptor.join(30_000);
            for (SocketChannel c : held) {
                c.close();
            }
        });
        return socket;
    }

    private KubernetesNames open(KubernetesOptions options) {
        KubernetesNames names = new GrpcKubernetesNamesProvider().open(options);
        closing.add(names);
        return names;
    }

    private static KubernetesOptions options(Path cri, Path podResources, Duration deadline, Duration maxAge) {
        return new KubernetesOptions(cri == null ? List.of() : List.of(cri), Optional.ofNullable(podResources),
                deadline, maxAge, 16 << 20, Set.of(KubernetesOptions.NVIDIA_GPU_RESOURCE));
    }

    /** Calls until the answer passes, for up to a minute (a loaded machine), then fails with the last answer. */
    private static <T> T eventually(Supplier<T> call, Predicate<T> ok) {
        long end = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        T v = call.get();
        while (!ok.test(v)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("still " + v + " after a minute");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            v = call.get();
        }
        return v;
    }
}
