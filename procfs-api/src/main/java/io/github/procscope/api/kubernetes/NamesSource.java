package io.github.procscope.api.kubernetes;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@link KubernetesNames} gets names from, and how that went the last time it asked: for
 * {@code procscope doctor}, a health line, or a user wondering why a container has no pod name.
 *
 * @param kind   which API
 * @param socket the socket asked (for the runtime, the first of {@link KubernetesOptions#criSockets()} that
 *               exists); empty when none is configured or none of the configured ones exists
 * @param state  how the last question went
 * @param detail what happened, in words: the runtime's answer size, the reason a socket was refused, the
 *               error an answer failed with
 */
public record NamesSource(Kind kind, Optional<Path> socket, State state, String detail) {
    /** Which API a source speaks. */
    public enum Kind {
        /** The container runtime's CRI {@code runtime.v1.RuntimeService} (containerd, CRI-O): container names. */
        CRI,
        /** The kubelet's {@code v1.PodResourcesLister}: the devices (GPUs) allocated to each pod's containers. */
        POD_RESOURCES
    }

    /** How the last question to a source went. */
    public enum State {
        /** Not asked yet: nothing has needed it. */
        NOT_ASKED,
        /** Not configured (an empty socket setting). */
        DISABLED,
        /** No socket at the configured path (not a Kubernetes node, or the service is down). */
        ABSENT,
        /**
         * The path was not used: not a socket, owned by a user other than root or this process's user, a path
         * too long for a unix socket, or no unix-socket transport on this platform.
         */
        REFUSED,
        /** Asked, and the question failed or found no answer within its deadline; the last answer is kept. */
        FAILING,
        /** The last question was answered. */
        ANSWERED
    }

    /** Checks the components. */
    public NamesSource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(detail, "detail");
    }
}
