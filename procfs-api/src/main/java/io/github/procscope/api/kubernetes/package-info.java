/**
 * Kubernetes names for containers and GPUs: a process's container (by the id its cgroup path names) becomes
 * the namespace, pod and container name the kubelet gave it, and a GPU becomes the containers it is allocated
 * to, as dcgm-exporter labels GPU series with {@code namespace}, {@code pod} and {@code container}.
 *
 * <p>The values ({@link io.github.procscope.api.kubernetes.PodContainer},
 * {@link io.github.procscope.api.kubernetes.NamesSource}) and the settings
 * ({@link io.github.procscope.api.kubernetes.KubernetesOptions}) are here; the resolver
 * ({@link io.github.procscope.api.kubernetes.KubernetesNames}) is implemented by the optional module
 * {@code procscope-kubernetes}, which brings gRPC, and is found through
 * {@link io.github.procscope.api.KubernetesNamesProvider}. Without that module nothing here loads gRPC.
 */
package io.github.procscope.api.kubernetes;
