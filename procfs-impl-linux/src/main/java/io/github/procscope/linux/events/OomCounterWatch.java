package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.linux.parse.FlatKeyedParser;
import io.github.procscope.linux.proc.LinuxSystemResources;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The OOM killer's evidence in a process's memory cgroup: the {@code oom_kill} counter of {@code memory.events}
 * (cgroup v2) or {@code memory.oom_control} (v1), read when the process is first seen and again at its SIGKILL.
 * Needs no kernel log, so it also serves where {@code dmesg_restrict} hides the log. Each rise of a counter is
 * given to one SIGKILL exit of that cgroup (the kernel counts the kill before the victim's exit is reported), so
 * two kills by {@code kill -9} and one OOM kill in one cgroup name one victim, not three. Thread-safe.
 */
final class OomCounterWatch {
    private final Path v2Root;
    private final Path v1MemoryRoot;
    /** Counter file to the count already accounted for. */
    private final Map<Path, Long> seen = new ConcurrentHashMap<>();
    private final ThreadLocal<ProcBuffer> buffers = ThreadLocal.withInitial(() -> new ProcBuffer(1024));

    OomCounterWatch(Path v2Root, Path v1MemoryRoot) {
        this.v2Root = v2Root;
        this.v1MemoryRoot = v1MemoryRoot;
    }

    /**
     * @param resources the system's resources, whose mount table names the cgroup mounts and whose sysfs root
     *                  they are found under
     * @return the watch over those cgroup mounts (none, where they cannot be read)
     */
    static OomCounterWatch over(Supplier<? extends LinuxSystemResources> resources) {
        Path v2 = null;
        Path v1 = null;
        try {
            LinuxSystemResources r = resources.get();
            for (MountInfo m : r.mounts()) {
                if (v2 == null && "cgroup2".equals(m.fsType())) {
                    v2 = r.underSys(m.mountPoint());
                } else if (v1 == null && "cgroup".equals(m.fsType()) && m.superOptions().contains("memory")) {
                    v1 = r.underSys(m.mountPoint());
                }
            }
        } catch (ProcscopeException e) {
            // no mount table: no counters
        }
        return new OomCounterWatch(v2, v1);
    }

    /**
     * Finds the counter of a running process's memory cgroup and notes its value, if not noted before.
     *
     * @param procDir the process's directory ({@code /proc/PID})
     * @return the counter's file; empty when the process is gone or its cgroup has no memory counter
     */
    Optional<Path> remember(Path procDir) {
        ProcBuffer buf = buffers.get();
        if (buf.read(procDir.resolve("cgroup")) != ProcBuffer.Result.OK) {
            return Optional.empty();
        }
        Path file = null;
        String text = new String(buf.bytes(), 0, buf.length(), java.nio.charset.StandardCharsets.UTF_8);
        for (String line : text.split("\n")) {
            int a = line.indexOf(':');
            int b = a < 0 ? -1 : line.indexOf(':', a + 1);
            if (b < 0 || b + 1 >= line.length() || line.charAt(b + 1) != '/') {
                continue;
            }
            String controllers = line.substring(a + 1, b);
            String rel = line.substring(b + 2);
            if (rel.contains("..")) {
                continue;
            }
            if (line.startsWith("0::") && v2Root != null) {
                Path f = v2Root.resolve(rel).resolve("memory.events");
                if (count(f) >= 0) {
                    file = f;
                }
            } else if (v1MemoryRoot != null && java.util.Arrays.asList(controllers.split(",")).contains("memory")) {
                file = v1MemoryRoot.resolve(rel).resolve("memory.oom_control");
                break; // v1's memory hierarchy is the one that counts
            }
        }
        if (file == null) {
            return Optional.empty();
        }
        Path f = file;
        seen.computeIfAbsent(f, k -> Math.max(0, count(k)));
        return Optional.of(f);
    }

    /**
     * @param file a counter from {@link #remember}
     * @return the evidence when the counter rose since it was last accounted for (the rise is then used up)
     */
    Optional<String> evidence(Path file) {
        long now = count(file);
        if (now < 0) {
            return Optional.empty();
        }
        Long before = seen.get(file);
        if (before == null || now <= before || !seen.replace(file, before, before + 1)) {
            return Optional.empty();
        }
        String cgroup = file.getParent().toString();
        return Optional.of("cgroup " + cgroup + ": " + file.getFileName() + " oom_kill rose from " + before
                + " to " + now);
    }

    /** @return the counter's value, -1 when it cannot be read */
    private long count(Path file) {
        ProcBuffer buf = buffers.get();
        if (buf.read(file) != ProcBuffer.Result.OK) {
            return -1;
        }
        try {
            Long v = FlatKeyedParser.parse(file, buf.bytes(), buf.length()).get("oom_kill");
            return v == null ? -1 : v;
        } catch (ProcscopeException e) {
            return -1;
        }
    }
}
