package io.github.procscope.linux.proc;

import io.github.procscope.api.memory.CgroupMemory;
import io.github.procscope.api.memory.CgroupVersion;
import io.github.procscope.linux.parse.FlatKeyedParser;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.file.Path;
import java.util.Map;

/** The reader of a cgroup's {@code memory.stat} (a flat-keyed file), for the facts the doctor weighs. */
public final class CgroupMemoryStat {
    private CgroupMemoryStat() {
    }

    /**
     * @param c a cgroup's memory, from {@link LinuxSystemResources#cgroupMemory()}
     * @return {@code inactive_file} (v2) or {@code total_inactive_file} (v1) of its {@code memory.stat}: page
     *         cache the kernel reclaims before it kills; 0 when the file cannot be read
     * @throws io.github.procscope.api.core.ProcfsParseException if the file is malformed
     */
    public static long inactiveFileBytes(CgroupMemory c) {
        Path stat = c.directory().resolve("memory.stat");
        ProcBuffer buf = new ProcBuffer();
        if (buf.read(stat) != ProcBuffer.Result.OK) {
            return 0;
        }
        Map<String, Long> kv = FlatKeyedParser.parse(stat, buf.bytes(), buf.length());
        return kv.getOrDefault(c.version() == CgroupVersion.V2 ? "inactive_file" : "total_inactive_file",
                kv.getOrDefault("inactive_file", 0L));
    }
}
