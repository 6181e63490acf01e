package io.github.procscope.api.cgroup;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A process's cgroups, from {@code /proc/PID/cgroup}, and the owner its paths name.
 *
 * @param unifiedPath     the path in the cgroup v2 (unified) hierarchy, the line {@code 0::PATH}; empty on a
 *                        machine without one (pure cgroup v1)
 * @param controllerPaths the path in each cgroup v1 hierarchy, by controller ({@code memory}, {@code cpu},
 *                        {@code pids}; a named hierarchy as {@code name=systemd}), sorted by name; empty on a
 *                        pure cgroup v2 machine
 * @param owner           the workload the paths name (see {@link Owner}); empty when they name none
 */
public record CgroupMembership(Optional<String> unifiedPath, Map<String, String> controllerPaths,
                               Optional<Owner> owner) {
    /**
     * Checks and copies the components.
     *
     * @throws IllegalArgumentException if a path is not absolute
     */
    public CgroupMembership {
        Objects.requireNonNull(unifiedPath, "unifiedPath");
        Objects.requireNonNull(owner, "owner");
        unifiedPath.ifPresent(CgroupMembership::requireAbsolute);
        TreeMap<String, String> copy = new TreeMap<>();
        for (Map.Entry<String, String> e : Objects.requireNonNull(controllerPaths, "controllerPaths").entrySet()) {
            copy.put(Objects.requireNonNull(e.getKey(), "controller"), requireAbsolute(e.getValue()));
        }
        controllerPaths = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * {@return its v1 path; on a pure cgroup v2 machine (no v1 hierarchy at all), the unified path; empty
     * when a machine with v1 hierarchies has none for this controller}
     *
     * @param controller a cgroup v1 controller ({@code memory})
     */
    public Optional<String> path(String controller) {
        Objects.requireNonNull(controller, "controller");
        if (controllerPaths.isEmpty()) {
            return unifiedPath;
        }
        return Optional.ofNullable(controllerPaths.get(controller));
    }

    private static String requireAbsolute(String path) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("a cgroup path is absolute: '" + path + "'");
        }
        return path;
    }
}
