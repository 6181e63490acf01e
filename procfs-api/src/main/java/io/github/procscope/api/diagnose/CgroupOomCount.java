package io.github.procscope.api.diagnose;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A memory cgroup's own count of OOM kills: {@code oom_kill} in {@code memory.events} (cgroup v2) or in
 * {@code memory.oom_control} (cgroup v1, Linux 4.13+). Unlike the kernel log, it cannot scroll away and
 * needs no privilege to read; it does not say which process died.
 *
 * @param version  1 or 2
 * @param cgroup   the cgroup's path within its hierarchy ({@code /kubepods/pod1/c2})
 * @param oomKills processes the OOM killer ended in this cgroup itself (kills in its descendants, which
 *                 cgroup v2 also counts here, are reported at the descendants)
 * @param ooms     times the cgroup hit its limit and the OOM killer ran ({@code oom}, v2 only)
 */
public record CgroupOomCount(int version, String cgroup, long oomKills, OptionalLong ooms) {
    /** Checks the components. */
    public CgroupOomCount {
        if (version != 1 && version != 2) {
            throw new IllegalArgumentException("cgroup version must be 1 or 2: " + version);
        }
        Objects.requireNonNull(cgroup, "cgroup");
        Objects.requireNonNull(ooms, "ooms");
        if (oomKills < 0) {
            throw new IllegalArgumentException("oomKills must not be negative: " + oomKills);
        }
    }
}
