package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Files.readString(Path.of("/proc/" + worker + "/stat")).contains(") S " + root.pid() + " ")
                    && System.nanoTime() < deadline) {
                Thread.sleep(20); // until the subshell has exited and the worker was re-parented
            }
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
}
