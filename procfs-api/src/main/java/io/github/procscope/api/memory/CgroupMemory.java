package io.github.procscope.api.memory;

import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The memory limit and usage of a process's cgroup: inside a container this, not the machine's RAM, is the
 * real ceiling, and exceeding it brings the OOM killer.
 *
 * @param version             which hierarchy governs the process's memory
 * @param cgroupPath          the cgroup as {@code /proc/PID/cgroup} names it, e.g. {@code /kubepods/pod1/c2}
 *                            or {@code /} inside a cgroup namespace
 * @param directory           the directory its files were read from, e.g. {@code /sys/fs/cgroup/memory/...}
 * @param limitBytes          this cgroup's own limit: {@code memory.max} (v2) or {@code memory.limit_in_bytes}
 *                            (v1); empty when there is none ({@code max}, or v1's "unlimited" value of nearly
 *                            2^63 bytes)
 * @param effectiveLimitBytes the smallest limit among this cgroup and its ancestors that can be seen from
 *                            here: the ceiling that really applies; empty when none of them has a limit
 * @param usageBytes          current usage: {@code memory.current} (v2) or {@code memory.usage_in_bytes} (v1).
 *                            It includes page cache, which the kernel reclaims before it kills anything
 * @param peakBytes           the highest usage recorded: {@code memory.peak} (v2, Linux 5.19+) or
 *                            {@code memory.max_usage_in_bytes} (v1); empty where the kernel lacks the file
 */
public record CgroupMemory(
        CgroupVersion version,
        String cgroupPath,
        Path directory,
        OptionalLong limitBytes,
        OptionalLong effectiveLimitBytes,
        long usageBytes,
        OptionalLong peakBytes) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if usage is negative
     */
    public CgroupMemory {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(cgroupPath, "cgroupPath");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(limitBytes, "limitBytes");
        Objects.requireNonNull(effectiveLimitBytes, "effectiveLimitBytes");
        Objects.requireNonNull(peakBytes, "peakBytes");
        if (usageBytes < 0) {
            throw new IllegalArgumentException("usage must not be negative: " + usageBytes);
        }
    }

    /**
     * {@return how far usage is below the effective limit (negative when above it, which happens briefly
     * while the kernel reclaims); empty when there is no limit}
     */
    public OptionalLong headroomBytes() {
        return effectiveLimitBytes.isPresent()
                ? OptionalLong.of(effectiveLimitBytes.getAsLong() - usageBytes) : OptionalLong.empty();
    }
}
