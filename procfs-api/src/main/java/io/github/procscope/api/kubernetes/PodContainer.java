package io.github.procscope.api.kubernetes;

import java.util.Objects;
import java.util.Optional;

/**
 * A container of a Kubernetes pod, by the names the kubelet gave it: the labels {@code namespace}, {@code pod}
 * and {@code container} that dcgm-exporter puts on a GPU's series.
 *
 * <p>Each name is as Kubernetes reports it, checked only so far as to make it safe to print: not empty, at
 * most {@value #MAX_NAME_LENGTH} characters (a DNS subdomain, the longest name Kubernetes allows), no control
 * characters. An answer from a runtime or kubelet that breaks these is left out, never passed on.
 *
 * @param namespace the pod's namespace, such as {@code ml}
 * @param pod       the pod's name, such as {@code trainer-0}
 * @param podUid    the pod's UID (with dashes, as {@code kubectl get pod -o jsonpath='{.metadata.uid}'} prints
 *                  it), the one a process's cgroup path names ({@link io.github.procscope.api.cgroup.Owner#podUid()});
 *                  empty where the source does not give it: the kubelet's pod-resources API names pods without
 *                  their UID, so a GPU's pods carry one only when the container runtime also named the pod
 * @param container the container's name in the pod's spec, such as {@code trainer}
 */
public record PodContainer(String namespace, String pod, Optional<String> podUid, String container) {
    /** The longest name accepted, in characters: a DNS subdomain's limit (pod names; namespaces allow 63). */
    public static final int MAX_NAME_LENGTH = 253;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a name (or the UID) is empty, longer than {@value #MAX_NAME_LENGTH}
     *                                  characters or holds a control character
     */
    public PodContainer {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(podUid, "podUid");
        Objects.requireNonNull(container, "container");
        check("namespace", namespace);
        check("pod", pod);
        podUid.ifPresent(u -> check("pod UID", u));
        check("container", container);
    }

    private static void check(String what, String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a Kubernetes " + what + " name is not empty");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("a Kubernetes " + what + " name has at most " + MAX_NAME_LENGTH
                    + " characters, not " + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("a Kubernetes " + what + " name holds a control character (U+"
                        + String.format("%04X", (int) name.charAt(i)) + ") at " + i);
            }
        }
    }
}
