package io.github.procscope.benchmarks;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The fleet starts its processes, they are in /proc, and closing it ends each of them. */
class FleetTest {

    /** Compiles src/main/c/idle.c with gcc into target/test-native; skips the test without gcc. */
    private static Path idle() throws IOException, InterruptedException {
        Path out = Path.of("target", "test-native", "idle").toAbsolutePath();
        Files.createDirectories(out.getParent());
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out.toString(),
                    Path.of("src", "main", "c", "idle.c").toString()).inheritIO().start();
        } catch (IOException e) {
            assumeTrue(false, "gcc is not available: " + e.getMessage());
            throw e;
        }
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS), "gcc ran over a minute");
        assertEquals(0, gcc.exitValue(), "gcc failed to compile idle.c");
        return out;
    }

    private static boolean inProc(long pid) {
        return Files.isDirectory(Path.of("/proc", Long.toString(pid)));
    }

    @Test
    void fiveIdleProcessesAreUpThenEachIsEndedByItsPid() throws Exception {
        Path idle = idle();
        long[] pids;
        long parent;
        try (Fleet fleet = Fleet.start(idle, 5)) {
            pids = fleet.pids();
            parent = fleet.parentPid();
            assertEquals(5, pids.length);
            assertEquals(5, Arrays.stream(pids).distinct().count());
            for (long pid : pids) {
                assertTrue(inProc(pid), "fleet process " + pid + " is not in /proc");
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                assertTrue(stat.contains("(idle) S " + parent + " "), "not an idle child of the fleet: " + stat);
            }
        }
        for (long pid : pids) {
            assertFalse(inProc(pid), "fleet process " + pid + " outlived the fleet");
        }
        assertFalse(inProc(parent), "the fleet's parent " + parent + " outlived the fleet");
    }
}
