package io.github.procscope.kubernetes;

import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerDevices;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ContainerResources;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesRequest;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.ListPodResourcesResponse;
import io.github.procscope.kubernetes.podresources.PodResourcesApi.PodResources;
import io.github.procscope.kubernetes.podresources.PodResourcesListerGrpc;
import io.grpc.stub.StreamObserver;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kubelet's pod-resources service, from the same generated classes the client uses: it lists the
 * allocations a test sets, or, once told to hang, takes each call and never answers.
 */
public final class FakeKubelet extends PodResourcesListerGrpc.PodResourcesListerImplBase {
    private volatile ListPodResourcesResponse pods = ListPodResourcesResponse.getDefaultInstance();
    private volatile boolean hang;
    public final AtomicInteger calls = new AtomicInteger();

    /** Allocates devices of one resource to one container of one pod (a new pod entry each time). */
    public FakeKubelet allocate(String namespace, String pod, String container, String resource, String... deviceIds) {
        pods = pods.toBuilder().addPodResources(PodResources.newBuilder().setNamespace(namespace).setName(pod)
                .addContainers(ContainerResources.newBuilder().setName(container)
                        .addDevices(ContainerDevices.newBuilder().setResourceName(resource)
                                .addAllDeviceIds(List.of(deviceIds))))).build();
        return this;
    }

    public void set(ListPodResourcesResponse answer) {
        pods = answer;
    }

    public void hang() {
        hang = true;
    }

    @Override
    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> answer) {
        calls.incrementAndGet();
        if (!hang) {
            answer.onNext(pods);
            answer.onCompleted();
        }
    }
}
