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
    // sun.misc.Unsafe, which protobuf-java and gRPC's shaded Netty use for their buffers: automatic modules cannot
    // require it, and the API module no longer does, so without this line a module-path application would not
    // resolve it, and Netty would log that it falls back to heap buffers.
    requires jdk.unsupported;

    exports io.github.procscope.kubernetes;

    provides io.github.procscope.api.KubernetesNamesProvider
            with io.github.procscope.kubernetes.GrpcKubernetesNamesProvider;
}
