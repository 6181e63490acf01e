/**
 * Kubernetes names for containers and GPUs, over the node's own sockets: the implementation of
 * {@link io.github.procscope.api.kubernetes.KubernetesNames} in the optional artifact
 * {@code io.github.procscope:procscope-kubernetes}. A user who does not add it pulls no gRPC.
 *
 * <pre>{@code
 * try (KubernetesNames names = Procscope.system().kubernetesNames(KubernetesOptions.defaults())) {
 *     Optional<PodContainer> pod = names.container(owner.container().orElseThrow());  // ml/trainer-0, "trainer"
 *     List<PodContainer> holders = names.gpu(gpu.uuid());                              // whoever it is allocated to
 * }
 * }</pre>
 *
 * <p><b>Where the names come from.</b>
 * <ul>
 *   <li>A container id: the container runtime's CRI service {@code runtime.v1.RuntimeService}, calls
 *       {@code ListContainers} and {@code ListPodSandbox}, on containerd's {@code /run/containerd/containerd.sock}
 *       or CRI-O's {@code /var/run/crio/crio.sock} (the first that exists). A container's pod is its sandbox's
 *       metadata (name, UID, namespace), its name the container's metadata; the kubelet's labels
 *       ({@code io.kubernetes.pod.name} and friends) name a container whose sandbox the listing missed. One
 *       listing answers every container of the node; a container id it does not hold is looked for again
 *       once the listing is older than {@code maxAge}.</li>
 *   <li>A GPU: the kubelet's pod-resources API {@code v1.PodResourcesLister/List} on
 *       {@code /var/lib/kubelet/pod-resources/kubelet.sock}, read as dcgm-exporter reads it. Devices of the
 *       resource {@code nvidia.com/gpu} (and other names given in {@code gpuResources}, such as a renamed
 *       {@code nvidia.com/gpu.shared}) and of every {@code nvidia.com/mig-…} resource count. Their ids are the
 *       GPUs' UUIDs ({@code GPU-…}), the MIG devices' UUIDs ({@code MIG-…}), or a replica of either for
 *       time-slicing and MPS ({@code GPU-…::N}), which also counts under the id before {@code ::}: so every pod
 *       that shares a GPU comes back for its UUID. GKE's device plugin names devices {@code nvidia0},
 *       {@code nvidia0/vgpu1}; the same rule holds for {@code /vgpu}. Pods come back without a UID from this
 *       API; the runtime's sandboxes add it where the runtime answers. DRA allocations
 *       ({@code dynamic_resources}) are not read.</li>
 * </ul>
 * The {@code .proto} files in {@code src/main/proto} hold the part of Kubernetes' published files these calls
 * use, with their package, message and field names and numbers; the stubs are generated from them at build time
 * by {@code protoc} and {@code protoc-gen-grpc-java}.
 *
 * <p><b>A missing, slow or strange socket.</b> No socket means no names, and one log line through
 * {@link System.Logger} (logger {@code io.github.procscope.kubernetes}, level INFO), never an exception; the
 * state and its reason are in {@link io.github.procscope.api.kubernetes.KubernetesNames#sources()}. A path that
 * is not a socket, whose path is too long for {@code sockaddr_un}, or that is owned by a user other than root or
 * this process's user, is refused with the reason (WARNING): a socket an unprivileged user could have placed is
 * not asked when running as root. Every question runs in the background with a deadline of at least 10 s; a
 * caller waits for it at most {@code deadline} (1 s by default) from its start, then gets the last answer. A
 * question is asked at most once per {@code maxAge} (5 s by default), whatever its outcome, and one at a time,
 * so a dead socket costs the callers one deadline per {@code maxAge}, not one each. Answers larger than
 * {@code maxMessageBytes} (16 MiB by default) are refused and the last answer kept. After a failed question the
 * next one reconnects at once rather than after gRPC's backoff, so a restarted runtime or kubelet is found again.
 *
 * <p><b>Transport and JVM flags.</b> gRPC runs on Netty's epoll transport for unix sockets (shaded in
 * {@code grpc-netty-shaded}; Linux on x86_64 and aarch64), on one daemon thread, with calls completing on it;
 * a second daemon thread checks the sockets and starts the questions, and ends after 30 s without work.
 * Netty loads its native library with {@code System.load}: from JDK 22 on, grant native access as procscope asks
 * anyway ({@code --enable-native-access=ALL-UNNAMED} on the class path, {@code
 * --enable-native-access=io.grpc.netty.shaded} on the module path). protobuf-java (through 4.36) calls
 * {@code sun.misc.Unsafe}, about which JDK 24 and later print a warning once per JVM unless it is started with
 * {@code --sun-misc-unsafe-memory-access=allow}; Netty itself keeps off {@code sun.misc.Unsafe} there. gRPC
 * logs through {@code java.util.logging} under {@code io.grpc}.
 *
 * <p>Where Netty's epoll cannot be loaded (another platform, or a temporary directory mounted {@code noexec}
 * where Netty extracts its library), both sources are refused with Netty's reason.
 */
package io.github.procscope.kubernetes;
