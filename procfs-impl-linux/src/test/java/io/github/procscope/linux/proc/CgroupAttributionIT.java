package io.github.procscope.linux.proc;

import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.linux.parse.CgroupOwnerParser;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cgroup facet on this machine: the test's own JVM and a child it starts, against the kernel's file. */
class CgroupAttributionIT {
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

    /** Reads {@code /proc/PID/cgroup} the plain way: split each line at its first two colons. */
    private static CgroupMembership expected(long pid) throws Exception {
        Optional<String> unified = Optional.empty();
        Map<String, String> v1 = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            String[] f = line.split(":", 3);
            if (f[0].equals("0") && f[1].isEmpty()) {
                unified = Optional.of(f[2]);
            } else {
                for (String c : f[1].split(",")) {
                    v1.put(c, f[2]);
                }
            }
        }
        return new CgroupMembership(unified, v1, CgroupOwnerParser.owner(unified, v1));
    }

    @Test
    void ownJvmsMembershipIsTheKernels() throws Exception {
        long me = ProcessHandle.current().pid();
        ProcessInfo p = proc.process(me, EnumSet.of(Facet.CGROUP, Facet.STATUS));
        CgroupMembership m = p.cgroup().orElseThrow();
        assertEquals(expected(me), m);
        assertTrue(m.unifiedPath().isPresent() || !m.controllerPaths().isEmpty(), "at least one hierarchy");
        // the owner is exactly what the paths spell out: here, under a cgroup named /process_api/<hash> on a
        // hybrid machine, that is nothing; elsewhere a session scope or a container
        assertEquals(CgroupOwnerParser.owner(m.unifiedPath(), m.controllerPaths()), p.owner());
        // not in a new pid namespace: the pid it sees is the host's
        assertEquals(me, p.namespacePid().orElseThrow());
    }

    @Test
    void aSnapshotWithTheFacetCarriesMembershipForEveryProcessItCouldRead() throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
            ProcessSnapshot s = proc.snapshot(Set.of(Facet.CGROUP));
            ProcessInfo c = s.get(child.pid());
            assertEquals(expected(child.pid()), c.cgroup().orElseThrow());
            long withCgroup = s.processes().stream().filter(x -> x.cgroup().isPresent()).count();
            assertEquals(s.processes().size(), withCgroup, "as root, every process's cgroup file is readable");
            assertEquals(Optional.empty(), proc.snapshot(Set.of()).get(child.pid()).cgroup(), "not read unless asked");
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }
}
