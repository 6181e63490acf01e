package io.github.procscope.api.cgroup;

import java.util.Objects;
import java.util.Optional;

/**
 * A container named by a cgroup path.
 *
 * @param runtime the runtime whose naming the path follows; empty where the naming does not say (the
 *                kubelet's cgroupfs driver names a container by its bare id, whichever runtime made it)
 * @param id      the container id, 64 lowercase hexadecimal digits, as the runtime prints it in full
 */
public record Container(Optional<ContainerRuntime> runtime, String id) {
    /** Length of a full container id. */
    public static final int ID_LENGTH = 64;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if the id is not 64 lowercase hexadecimal digits
     */
    public Container {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(id, "id");
        if (!isId(id)) {
            throw new IllegalArgumentException("a container id is 64 lowercase hexadecimal digits: '" + id + "'");
        }
    }

    /** {@return the first 12 digits of the id, as {@code docker ps} and {@code crictl ps} print it} */
    public String shortId() {
        return id.substring(0, 12);
    }

    /**
     * {@return whether it is a full container id: 64 lowercase hexadecimal digits}
     *
     * @param s text
     */
    public static boolean isId(String s) {
        if (s.length() != ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
