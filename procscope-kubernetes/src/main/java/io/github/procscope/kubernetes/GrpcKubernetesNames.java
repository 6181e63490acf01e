package io.github.procscope.kubernetes;

import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource;
import io.github.procscope.api.kubernetes.PodContainer;
import io.github.procscope.kubernetes.cri.CriApi.ListContainersRequest;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxRequest;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxResponse;
import io.github.procscope.kubernetes.cri.RuntimeServiceGrpc;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesRequest;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesResponse;
import io.github.procscope.kubernetes.podresources.PodResourcesListerGrpc;
import io.grpc.ManagedChannel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link KubernetesNames} over gRPC: the container runtime's {@code runtime.v1.RuntimeService}
 * ({@code ListPodSandbox} and {@code ListContainers}, both asked together) and the kubelet's
 * {@code v1.PodResourcesLister/List}, each on its unix socket. GPU allocations get their pods' UIDs from the
 * runtime's sandboxes where the runtime answers.
 */
final class GrpcKubernetesNames implements KubernetesNames {
    /** The logger: named after this package. */
    static final String LOGGER = GrpcKubernetesNames.class.getPackageName();

    private final UnixTransport transport = new UnixTransport();
    private final ThreadPoolExecutor background;
    private final Source<CriAnswer> cri;
    private final Source<GpuAllocations> podResources;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Joined joined;

    /** The last GPU answer joined with the last runtime answer it was joined with. */
    private record Joined(GpuAllocations gpus, Optional<CriAnswer> cri, Map<String, List<PodContainer>> named) {
    }

    /**
     * @param options  the sockets and limits
     * @param procSelf {@code /proc/self}, whose owner is this process's effective user
     */
    GrpcKubernetesNames(KubernetesOptions options, Path procSelf) {
        Objects.requireNonNull(options, "options");
        background = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "procscope-kubernetes");
            t.setDaemon(true);
            return t;
        });
        background.allowCoreThreadTimeOut(true);
        Source.Settings settings = new Source.Settings(options, transport, background, procSelf,
                System.getLogger(LOGGER));
        // The requests are made in the questions, not here: without a socket no question is asked, and protobuf's
        // classes are never loaded (serve's resident memory).
        cri = new Source<>(NamesSource.Kind.CRI, "container runtime socket", "containers get no Kubernetes names",
                options.criSockets(), (channel, deadline) -> {
                    RuntimeServiceGrpc.RuntimeServiceStub stub = RuntimeServiceGrpc.newStub(channel)
                            .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
                    return Calls.<ListPodSandboxResponse>unary(
                                    o -> stub.listPodSandbox(ListPodSandboxRequest.getDefaultInstance(), o))
                            .thenCombine(Calls.unary(
                                    o -> stub.listContainers(ListContainersRequest.getDefaultInstance(), o)),
                                    CriAnswer::of);
                }, CriAnswer::describe, settings);
        podResources = new Source<>(NamesSource.Kind.POD_RESOURCES, "kubelet pod-resources socket",
                "GPUs get no pod names", options.podResourcesSocket().stream().toList(),
                (ManagedChannel channel, Duration deadline) -> Calls.<ListPodResourcesResponse>unary(
                                o -> PodResourcesListerGrpc.newStub(channel)
                                        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS)
                                        .list(ListPodResourcesRequest.getDefaultInstance(), o))
                        .thenApply(r -> GpuAllocations.of(r, options.gpuResources())),
                GpuAllocations::describe, settings);
    }

    @Override
    public Optional<PodContainer> container(Container container) {
        Objects.requireNonNull(container, "container");
        checkOpen();
        Optional<PodContainer> known = cri.last().flatMap(a -> a.container(container.id()));
        if (known.isPresent()) {
            return known;
        }
        return cri.get().flatMap(a -> a.container(container.id()));
    }

    @Override
    public List<PodContainer> gpu(String deviceId) {
        Objects.requireNonNull(deviceId, "deviceId");
        return gpus().getOrDefault(deviceId, List.of());
    }

    @Override
    public Map<String, List<PodContainer>> gpus() {
        checkOpen();
        if (!podResources.enabled()) {
            return Map.of();
        }
        Refreshing.Pending<GpuAllocations> gpuQuestion = podResources.kick();
        Refreshing.Pending<CriAnswer> criQuestion = cri.kick();
        Optional<GpuAllocations> gpus = podResources.await(gpuQuestion);
        Optional<CriAnswer> names = cri.await(criQuestion);
        if (gpus.isEmpty()) {
            return Map.of();
        }
        Joined j = joined;
        if (j == null || j.gpus() != gpus.get() || !sameAnswer(j.cri(), names)) {
            Map<String, List<PodContainer>> named = names.isPresent() ? gpus.get().named(names.get()::withUid)
                    : gpus.get().byDevice();
            j = new Joined(gpus.get(), names, named);
            joined = j;
        }
        return j.named();
    }

    @Override
    public List<NamesSource> sources() {
        checkOpen();
        return List.of(cri.status(), podResources.status());
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            cri.close();
            podResources.close();
            transport.close();
            background.shutdownNow();
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("these Kubernetes names are closed");
        }
    }

    private static boolean sameAnswer(Optional<CriAnswer> a, Optional<CriAnswer> b) {
        return a.isPresent() == b.isPresent() && (a.isEmpty() || a.get() == b.get());
    }
}
