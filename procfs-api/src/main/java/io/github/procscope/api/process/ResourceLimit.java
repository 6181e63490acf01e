package io.github.procscope.api.process;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One resource limit of a process, as a line of {@code /proc/PID/limits} shows it ({@code getrlimit(2)}).
 *
 * @param name the limit's name as the kernel prints it, e.g. {@code Max open files}
 * @param soft the soft limit, which the kernel enforces; empty for {@code unlimited} (and for a value at or above
 *             2^63, which no resource reaches)
 * @param hard the hard limit, the ceiling an unprivileged process may raise the soft limit to; empty as for
 *             {@code soft}
 * @param unit the unit the kernel prints ({@code files}, {@code bytes}, {@code seconds}…); empty for limits that
 *             have none (the nice and real-time priorities)
 */
public record ResourceLimit(String name, OptionalLong soft, OptionalLong hard, Optional<String> unit) {

    /** Checks that no component is null and that a limit is not negative. */
    public ResourceLimit {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(soft, "soft");
        Objects.requireNonNull(hard, "hard");
        Objects.requireNonNull(unit, "unit");
        if (soft.isPresent() && soft.getAsLong() < 0 || hard.isPresent() && hard.getAsLong() < 0) {
            throw new IllegalArgumentException("a resource limit must not be negative: " + name + " " + soft + " "
                    + hard);
        }
    }
}
