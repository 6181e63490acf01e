/**
 * Kubernetes names for containers and GPUs: the implementation of
 * {@link io.github.procscope.api.kubernetes.KubernetesNames}, over gRPC on unix sockets.
 *
 * <p>Only {@code io.github.procscope.kubernetes} is exported (its provider); the classes generated from the
 * Kubernetes {@code .proto} files ({@code io.github.procscope.kubernetes.cri},
 * {@code io.github.procscope.kubernetes.podresources}) are not. gRPC, protobuf-java and Guava are automatic
 * modules. The API module is required transitively: the provider's types are its types.
 */
module io.github.procscope.kubernetes {
    requires transitive io.github.procscope.api;
    requires com.google.protobuf;
    requires com.google.common;
    requires io.grpc;
    requires io.grpc.stub;
    requires io.grpc.protobuf;
    requires io.grpc.netty.shaded;
    // Netty (shaded into grpc-netty-shaded, an automatic module that cannot say so) uses sun.misc.Unsafe for
    // direct buffers: requiring the module puts it in the graph, where Netty finds it.
    requires jdk.unsupported;

    exports io.github.procscope.kubernetes;

    provides io.github.procscope.api.spi.KubernetesNamesProvider
            with io.github.procscope.kubernetes.GrpcKubernetesNamesProvider;
}
