package io.github.procscope.cli;

import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code tree PID} on a live job whose worker was double-forked away from it. */
class TreeAdoptedIT {
    @Test
    void aDoubleForkedWorkerIsListedAfterTheSubtree() throws Exception {
        // the subshell prints the worker's pid and exits at once: the worker is re-parented, still in the session
        Process root = new ProcessBuilder("setsid", "sh", "-c", "(sleep 302 & echo $!); sleep 303 & echo ready; wait")
                .redirectErrorStream(true).start();
        long worker = -1;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(root.getInputStream(), StandardCharsets.UTF_8));
            worker = Long.parseLong(out.readLine().strip());
            assertEquals("ready", out.readLine());
            // Until the shell waits, the worker has become a sleeping sleep and was re-parented: the subshell that
            // forked it has exited, so its parent is no child of the root any more.
            long rootPid = root.pid();
            long w = worker;
            Spawned.await(Duration.ofSeconds(60), "the shell waiting and its worker " + w + " asleep, re-parented",
                    () -> stat(rootPid).startsWith(rootPid + " (sh) S ") && stat(w).startsWith(w + " (sleep) S ")
                            && parentOf(parentOf(w)) != rootPid);
            CliRun r = CliRun.of("tree", Long.toString(root.pid()));
            assertEquals(0, r.status(), r.err());
            String[] lines = r.out().split("\n");
            assertTrue(lines[0].startsWith(root.pid() + " sh [S]"), r.out());
            int header = java.util.Arrays.asList(lines).indexOf(
                    "re-parented away from the tree, still in its group or session:");
            assertTrue(header > 0, r.out());
            assertTrue(lines[header + 1].startsWith(worker + " sleep [S]"), r.out());
        } finally {
            if (worker > 0) {
                ProcessHandle.of(worker).ifPresent(ProcessHandle::destroyForcibly);
            }
            root.descendants().forEach(ProcessHandle::destroyForcibly);
            root.destroyForcibly();
            root.waitFor();
        }
    }

    /** @return the process's {@code /proc/PID/stat} line; empty once it is gone */
    private static String stat(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/stat"));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** @return the parent's pid, from field 4 of {@code /proc/PID/stat}; 0 once the process is gone */
    private static long parentOf(long pid) {
        String s = stat(pid);
        if (s.isEmpty()) {
            return 0;
        }
        String[] after = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(after[1]);
    }
}
