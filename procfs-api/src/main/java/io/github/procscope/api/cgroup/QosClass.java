package io.github.procscope.api.cgroup;

/**
 * A Kubernetes pod's quality-of-service class, from the kubelet's cgroup layout: guaranteed pods sit
 * directly under {@code kubepods}, the others under {@code burstable} or {@code besteffort}.
 */
public enum QosClass {
    /** Every container has equal CPU and memory requests and limits. */
    GUARANTEED,
    /** Some requests or limits, not all equal. */
    BURSTABLE,
    /** No requests or limits at all: first to be evicted. */
    BEST_EFFORT
}
