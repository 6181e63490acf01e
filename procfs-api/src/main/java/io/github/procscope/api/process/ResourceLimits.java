package io.github.procscope.api.process;

import java.util.List;
import java.util.Optional;

/**
 * The resource limits of one process, from {@code /proc/PID/limits}, in the kernel's order.
 *
 * @param limits every line of the file but its heading
 */
public record ResourceLimits(List<ResourceLimit> limits) {
    /** The name of the limit on open file descriptors ({@code RLIMIT_NOFILE}). */
    public static final String OPEN_FILES = "Max open files";

    /** Copies the list. */
    public ResourceLimits {
        limits = List.copyOf(limits);
    }

    /**
     * {@return that limit, if the kernel printed it}
     *
     * @param name a limit's name as the kernel prints it, e.g. {@link #OPEN_FILES}
     */
    public Optional<ResourceLimit> find(String name) {
        java.util.Objects.requireNonNull(name, "name");
        for (ResourceLimit l : limits) {
            if (l.name().equals(name)) {
                return Optional.of(l);
            }
        }
        return Optional.empty();
    }

    /** {@return the limit on open file descriptors ({@code RLIMIT_NOFILE}), if the kernel printed it} */
    public Optional<ResourceLimit> openFiles() {
        return find(OPEN_FILES);
    }
}
