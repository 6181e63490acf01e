package io.github.procscope.api.memory;

/** The cgroup hierarchy that governs a process's memory. */
public enum CgroupVersion {
    /** cgroup v1: a {@code memory} controller hierarchy ({@code memory.limit_in_bytes}, {@code memory.usage_in_bytes}). */
    V1,
    /** cgroup v2: the unified hierarchy ({@code memory.max}, {@code memory.current}). */
    V2
}
