package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcscopeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A job's cgroup files read with bounds, in fixture trees: a FIFO or a huge file where {@code cgroup.controllers},
 * {@code /proc/self/cgroup} or {@code memory.events} should be is refused with an error naming it (or, for the OOM
 * count, read as no evidence), never waited on or read whole. The deadline only guards against a hang.
 */
class JobCgroupFilesTest {
    private static final Duration HANG = Duration.ofSeconds(60);

    @TempDir
    Path sys;
    @TempDir
    Path proc;

    private Path cgroupRoot() throws IOException {
        return Files.createDirectories(sys.resolve("fs/cgroup"));
    }

    private static void fifo(Path at) throws Exception {
        Process p = new ProcessBuilder("mkfifo", at.toString()).inheritIO().start();
        assertEquals(0, p.waitFor(), "mkfifo " + at);
    }

    private static void huge(Path at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(at.toFile(), "rw")) {
            f.setLength(1L << 30); // sparse: 1 GiB that reads as zeros
        }
    }

    @Test
    void aFifoAsCgroupControllersIsRefusedNamingIt() throws Exception {
        Path controllers = cgroupRoot().resolve("cgroup.controllers");
        fifo(controllers);
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("self/cgroup"), "0::/\n");
        ProcscopeException e = assertTimeoutPreemptively(HANG, () -> assertThrows(ProcscopeException.class,
                () -> JobCgroup.create(sys, proc, 1L << 30)));
        assertTrue(e.getMessage().contains(controllers.toString()) && e.getMessage().contains("FIFO"), e.getMessage());
        assertTrue(e.getMessage().startsWith("cannot make a memory cgroup for the job"), e.getMessage());
    }

    @Test
    void aHugeCgroupControllersIsRefusedNotReadWhole() throws Exception {
        Path controllers = cgroupRoot().resolve("cgroup.controllers");
        huge(controllers);
        ProcscopeException e = assertTimeoutPreemptively(HANG, () -> assertThrows(ProcscopeException.class,
                () -> JobCgroup.create(sys, proc, 1L << 30)));
        assertTrue(e.getMessage().contains(controllers.toString()), e.getMessage());
    }

    @Test
    void aFifoAsProcSelfCgroupIsRefusedNamingIt() throws Exception {
        Files.writeString(cgroupRoot().resolve("cgroup.controllers"), "cpu io memory pids\n");
        Files.createDirectories(proc.resolve("self"));
        Path own = proc.resolve("self/cgroup");
        fifo(own);
        ProcscopeException e = assertTimeoutPreemptively(HANG, () -> assertThrows(ProcscopeException.class,
                () -> JobCgroup.create(sys, proc, 1L << 30)));
        assertTrue(e.getMessage().contains(own.toString()), e.getMessage());
    }

    @Test
    void aFifoAsMemoryEventsIsNoEvidenceAndAPlainOneIsRead() throws Exception {
        Path root = cgroupRoot();
        Files.writeString(root.resolve("cgroup.controllers"), "memory\n");
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("self/cgroup"), "0::/user.slice\n");
        JobCgroup cg = JobCgroup.create(sys, proc, 1L << 30);
        assertEquals(String.valueOf(1L << 30), Files.readString(cg.dir().resolve("memory.max")));
        Files.writeString(cg.dir().resolve("memory.events"), "low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\n");
        assertEquals(OptionalLong.of(2), cg.oomKills());
        Files.delete(cg.dir().resolve("memory.events"));
        fifo(cg.dir().resolve("memory.events"));
        assertEquals(OptionalLong.empty(), assertTimeoutPreemptively(HANG, cg::oomKills));
        Files.delete(cg.dir().resolve("memory.events"));
        huge(cg.dir().resolve("memory.events"));
        assertEquals(OptionalLong.empty(), assertTimeoutPreemptively(HANG, cg::oomKills));
    }
}
