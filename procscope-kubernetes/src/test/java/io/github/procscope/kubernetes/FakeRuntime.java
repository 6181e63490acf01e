package io.github.procscope.kubernetes;

import io.github.procscope.kubernetes.cri.CriApi.Container;
import io.github.procscope.kubernetes.cri.CriApi.ContainerMetadata;
import io.github.procscope.kubernetes.cri.CriApi.ListContainersRequest;
import io.github.procscope.kubernetes.cri.CriApi.ListContainersResponse;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxRequest;
import io.github.procscope.kubernetes.cri.CriApi.ListPodSandboxResponse;
import io.github.procscope.kubernetes.cri.CriApi.PodSandbox;
import io.github.procscope.kubernetes.cri.CriApi.PodSandboxMetadata;
import io.github.procscope.kubernetes.cri.CriApi.PodSandboxState;
import io.github.procscope.kubernetes.cri.RuntimeServiceGrpc;
import io.grpc.stub.StreamObserver;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A container runtime's CRI service, from the same generated classes the client uses: it lists the sandboxes
 * and containers a test sets, or, once told to hang, takes each call and never answers.
 */
public final class FakeRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    private volatile ListPodSandboxResponse sandboxes = ListPodSandboxResponse.getDefaultInstance();
    private volatile ListContainersResponse containers = ListContainersResponse.getDefaultInstance();
    private volatile boolean hang;
    public final AtomicInteger calls = new AtomicInteger();

    public FakeRuntime sandbox(String id, String namespace, String name, String uid, boolean ready, long createdAt) {
        sandboxes = sandboxes.toBuilder().addItems(PodSandbox.newBuilder().setId(id)
                .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace(namespace).setUid(uid))
                .setState(ready ? PodSandboxState.SANDBOX_READY : PodSandboxState.SANDBOX_NOTREADY)
                .setCreatedAt(createdAt)).build();
        return this;
    }

    public FakeRuntime container(String id, String sandboxId, String name) {
        return container(Container.newBuilder().setId(id).setPodSandboxId(sandboxId)
                .setMetadata(ContainerMetadata.newBuilder().setName(name)).build());
    }

    public FakeRuntime container(Container c) {
        containers = containers.toBuilder().addContainers(c).build();
        return this;
    }

    /** From now on every call is taken and never answered. */
    public void hang() {
        hang = true;
    }

    @Override
    public void listPodSandbox(ListPodSandboxRequest request, StreamObserver<ListPodSandboxResponse> answer) {
        calls.incrementAndGet();
        if (!hang) {
            answer.onNext(sandboxes);
            answer.onCompleted();
        }
    }

    @Override
    public void listContainers(ListContainersRequest request, StreamObserver<ListContainersResponse> answer) {
        calls.incrementAndGet();
        if (!hang) {
            answer.onNext(containers);
            answer.onCompleted();
        }
    }
}
