package io.github.procscope.linux.proc;

import io.github.procscope.api.diagnose.CgroupOomCount;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.parse.FlatKeyedParser;
import io.github.procscope.linux.sys.ProcBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Every memory cgroup with OOM kills of its own, found by walking the cgroup v2 hierarchy and cgroup v1's
 * memory hierarchy where they are mounted. cgroup v2 counts a descendant's kills in every ancestor too
 * (unless mounted with {@code memory_localevents}); those are subtracted, so that each kill is reported
 * once, at the cgroup where it happened. Cgroups that vanish while walked are skipped.
 */
public final class CgroupOomCounters {
    /** Deep enough for Kubernetes (kubepods/burstable/podX/containerY) with room to spare. */
    private static final int MAX_DEPTH = 12;

    private CgroupOomCounters() {
    }

    /**
     * @param resources the mounts (from {@code /proc/self/mountinfo})
     * @param sysfsRoot the root that mount points under {@code /sys} map to
     * @return the counters that are above zero, by hierarchy then path
     */
    public static List<CgroupOomCount> read(SystemResources resources, Path sysfsRoot) {
        List<CgroupOomCount> out = new ArrayList<>();
        for (MountInfo m : resources.mounts()) {
            if ("cgroup2".equals(m.fsType())) {
                List<CgroupOomCount> v2 = new ArrayList<>();
                walk(v2, LinuxSystemResources.underSys(sysfsRoot, m.mountPoint()), 2, "memory.events");
                out.addAll(m.superOptions().contains("memory_localevents") ? v2 : ownKills(v2));
            } else if ("cgroup".equals(m.fsType()) && m.superOptions().contains("memory")) {
                walk(out, LinuxSystemResources.underSys(sysfsRoot, m.mountPoint()), 1, "memory.oom_control");
            }
        }
        return out;
    }

    /** Subtracts from each hierarchical count what its direct children counted. */
    static List<CgroupOomCount> ownKills(List<CgroupOomCount> hierarchical) {
        List<CgroupOomCount> out = new ArrayList<>();
        for (CgroupOomCount c : hierarchical) {
            String prefix = c.cgroup().equals("/") ? "/" : c.cgroup() + "/";
            long children = hierarchical.stream().filter(x -> x.cgroup().startsWith(prefix) && x != c
                    && x.cgroup().indexOf('/', prefix.length()) < 0).mapToLong(CgroupOomCount::oomKills).sum();
            long own = c.oomKills() - children;
            if (own > 0) {
                out.add(new CgroupOomCount(c.version(), c.cgroup(), own, c.ooms()));
            }
        }
        return out;
    }

    private static void walk(List<CgroupOomCount> out, Path hierarchy, int version, String file) {
        if (!Files.isDirectory(hierarchy)) {
            return;
        }
        ProcBuffer buf = new ProcBuffer(1024);
        try (Stream<Path> dirs = Files.walk(hierarchy, MAX_DEPTH)) {
            dirs.filter(Files::isDirectory).forEach(dir -> {
                Path f = dir.resolve(file);
                if (buf.read(f) != ProcBuffer.Result.OK) {
                    return; // not a memory cgroup, gone, or hidden
                }
                Map<String, Long> kv = FlatKeyedParser.parse(f, buf.bytes(), buf.length());
                long kills = kv.getOrDefault("oom_kill", 0L);
                if (kills > 0) {
                    String rel = "/" + hierarchy.relativize(dir).toString();
                    out.add(new CgroupOomCount(version, rel.equals("/") ? "/" : rel, kills,
                            version == 2 && kv.containsKey("oom") ? OptionalLong.of(kv.get("oom")) : OptionalLong.empty()));
                }
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            // a cgroup removed during the walk ends it early; what was read stands
        }
    }
}
