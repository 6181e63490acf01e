package io.github.procscope.linux.proc;

import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots taken while 1,000 short-lived processes come and go: processes vanish between listing and
 * reading, and in the middle of a read. Nothing may throw and no record may mix two processes.
 */
class ChurnIT {
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void snapshotsDuringChurnNeverThrowAndNeverMixProcesses(@TempDir Path dir) throws IOException {
        List<Process> markers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            markers.add(spawned.start("sleep", "300" + i));
        }
        for (Process m : markers) {
            Spawned.await(Duration.ofSeconds(30), "exec of marker " + m.pid(),
                    () -> proc.process(m.pid()).comm().equals("sleep"));
        }
        // Two shells, each forking at least 500 processes that exit at once, 1,000 in all, and going on until this
        // test has taken its snapshots during the churn (on a loaded machine a snapshot may outlast 500 forks).
        Path stop = dir.resolve("stop");
        String churn = "i=0; while [ $i -lt 500 ] || [ ! -e '" + stop + "' ]; do /bin/true; i=$((i+1)); done";
        List<Process> churners = List.of(spawned.start("sh", "-c", churn), spawned.start("sh", "-c", churn));

        int snapshots = 0;
        int sawChurn = 0;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (snapshots < 5 || churners.stream().anyMatch(Process::isAlive)) {
            if (sawChurn >= 5 && snapshots >= 5 && !Files.exists(stop)) {
                Files.createFile(stop);
            }
            ProcessSnapshot s = proc.snapshot(EnumSet.allOf(Facet.class));
            snapshots++;
            for (ProcessInfo p : s.processes()) {
                p.status().ifPresent(st -> {
                    assertEquals(p.pid(), st.pid(), "status belongs to the same task");
                    assertEquals(p.pid(), st.tgid(), "a listed pid is a process, not a thread");
                });
                assertTrue(!p.elapsed().isNegative());
                assertTrue(p.startTime().isAfter(proc.bootTime()) || p.startTime().equals(proc.bootTime()));
            }
            for (int i = 0; i < markers.size(); i++) {
                ProcessInfo m = s.get(markers.get(i).pid());
                assertEquals("sleep", m.comm());
                assertEquals(List.of("sleep", "300" + i), m.cmdline().orElseThrow(), "buffers never leak between processes");
                assertEquals(ProcessHandle.current().pid(), m.ppid());
            }
            if (churners.stream().allMatch(c -> s.find(c.pid()).isPresent())) {
                sawChurn++; // this snapshot ran while the churn was under way
            }
            if (System.nanoTime() > deadline && !Files.exists(stop)) {
                Files.createFile(stop); // and the assertions below say how few snapshots saw the churn
            }
        }
        for (Process c : churners) {
            Spawned.await(Duration.ofMinutes(2), "churner " + c.pid() + " to finish", () -> !c.isAlive());
            assertEquals(0, c.exitValue());
        }
        assertTrue(snapshots >= 5, "snapshots taken: " + snapshots);
        assertTrue(sawChurn >= 5, "snapshots taken during the churn: " + sawChurn);
    }

    @Test
    void threadListingsDuringThreadChurnNeverThrow() throws Exception {
        long me = ProcessHandle.current().pid();
        Thread churn = new Thread(() -> {
            for (int i = 0; i < 300; i++) {
                Thread t = new Thread(() -> { }, "short-" + i);
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        churn.start();
        int listings = 0;
        while (churn.isAlive() || listings < 5) {
            var threads = proc.threads(me, Set.of(Facet.STATUS));
            assertTrue(threads.stream().allMatch(t -> t.tgid() == me));
            assertTrue(threads.stream().anyMatch(t -> t.tid() == me));
            listings++;
        }
        churn.join();
    }
}
