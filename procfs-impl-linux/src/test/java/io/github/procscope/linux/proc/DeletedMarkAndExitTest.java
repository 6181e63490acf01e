package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.memory.MemoryRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileInputStream;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The " (deleted)" mark is believed only when the file is really gone; descriptors that cannot be read are
 * reported as such; a process exiting under a read is gone, not "permission denied".
 */
class DeletedMarkAndExitTest {
    private static final long ME = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    @Test
    void aLiveFileNamedLikeADeletedOneIsNotDeleted() throws Exception {
        Path live = dir.resolve("weights (deleted)");
        Files.write(live, new byte[8192]);
        Path gone = dir.resolve("scratch");
        Files.write(gone, new byte[8192]);
        try (FileInputStream a = new FileInputStream(live.toFile()); FileInputStream b = new FileInputStream(gone.toFile());
             RandomAccessFile m = new RandomAccessFile(live.toFile(), "r"); FileChannel ch = m.getChannel()) {
            MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
            Files.delete(gone);
            assertTrue(a.getFD().valid() && b.getFD().valid(), "both files are held open");

            List<OpenFd> fds = LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).fds(ME);
            OpenFd liveFd = fds.stream().filter(f -> f.target().equals(live.toString())).findFirst().orElseThrow();
            assertFalse(liveFd.deleted(), "open, one link, merely named so");
            assertEquals(Optional.of(live.toString()), liveFd.path());
            assertEquals(1, liveFd.linkCount().getAsLong());
            OpenFd goneFd = fds.stream().filter(f -> f.target().equals(gone + " (deleted)")).findFirst().orElseThrow();
            assertTrue(goneFd.deleted());
            assertEquals(Optional.of(gone.toString()), goneFd.path());

            List<MemoryRegion> regions = LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).maps(ME).regions();
            MemoryRegion region = regions.stream().filter(r -> r.pathname().orElse("").startsWith(dir.toString()))
                    .findFirst().orElseThrow(() -> new AssertionError("the mapping is listed"));
            assertFalse(region.deleted(), region.toString());
            assertEquals(Optional.of(live.toString()), region.pathname());
            assertTrue(mapped.capacity() > 0);
        }
        assertTrue(LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).deletedFiles().files().stream()
                .noneMatch(f -> f.path().equals(live.toString())), "the scan agrees");
    }

    @Test
    void descriptorsRefusedEvenToRootAreListedAsUnreadable() {
        Path fd0 = Path.of("/proc/1/fd/0");
        boolean refused;
        try {
            Files.readAttributes(fd0, "unix:ino");
            refused = false;
        } catch (AccessDeniedException e) {
            refused = true;
        } catch (Exception e) {
            refused = false;
        }
        assumeTrue(refused, "pid 1's descriptors are readable here");
        assertTrue(LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).deletedFiles().unreadablePids().contains(1L),
                "a deleted file held by pid 1 could be missed: pid 1 must be named");
    }

    @Test
    void aProcessExitingWhileItsMemoryIsReadIsGoneNotDenied() throws Exception {
        LinuxProcessMemory memory = LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));
        int gone = 0;
        for (int i = 0; i < 100; i++) {
            Process p = new ProcessBuilder("sh", "-c", "exit 0").start();
            List<Object> outcomes = new ArrayList<>();
            while (p.isAlive() || outcomes.size() < 3) {
                try {
                    outcomes.add(memory.totals(p.pid()));
                } catch (NoSuchProcessException e) {
                    gone++;
                    break;
                } catch (ProcessAccessDeniedException e) {
                    p.waitFor();
                    fail("an exiting process was reported as permission denied: " + e.getMessage());
                }
                if (!p.isAlive()) {
                    p.waitFor();
                }
            }
            p.waitFor();
        }
        assertTrue(gone > 0, "some reads met the exit");
    }
}
