package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.linux.proc.LinuxOpenFiles;
import io.github.procscope.linux.proc.LinuxProcessMemory;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one translation of failed per-process reads: gone, denied, "denied but stat gone", other errors. */
class ReadFailuresTest {
    private static final long PID = 42;

    @TempDir
    Path tmp;
    private int trees;

    /** @return a new {@code ROOT/42} with a stat file of the given state letter and flags, or none when state is 0 */
    private Path pidDir(char state, long flags) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("proc" + trees++).resolve(Long.toString(PID)));
        if (state != 0) {
            Files.writeString(dir.resolve("stat"), PID + " (a) b) " + state + " 1 42 42 0 -1 " + flags + " 0 0 0 0\n");
        }
        return dir;
    }

    @Test
    void errnoValuesMeanNotFoundGoneOrDenied() {
        assertEquals(ProcBuffer.Result.NOT_FOUND, ReadFailures.classify(2), "ENOENT");
        assertEquals(ProcBuffer.Result.NOT_FOUND, ReadFailures.classify(20), "ENOTDIR");
        assertEquals(ProcBuffer.Result.GONE, ReadFailures.classify(3), "ESRCH");
        assertEquals(ProcBuffer.Result.DENIED, ReadFailures.classify(13), "EACCES");
        assertEquals(ProcBuffer.Result.DENIED, ReadFailures.classify(1), "EPERM");
        assertNull(ReadFailures.classify(5), "EIO is none of them");
    }

    @Test
    void jdkExceptionsMeanNotFoundGoneOrDenied() {
        assertEquals(ProcBuffer.Result.NOT_FOUND, ReadFailures.classify(new NoSuchFileException("/proc/42/maps")));
        assertEquals(ProcBuffer.Result.NOT_FOUND, ReadFailures.classify(new NotDirectoryException("/proc/42")));
        assertEquals(ProcBuffer.Result.DENIED, ReadFailures.classify(new AccessDeniedException("/proc/42/environ")));
        assertEquals(ProcBuffer.Result.GONE, ReadFailures.classify(new IOException("No such process")));
        assertEquals(ProcBuffer.Result.DENIED, ReadFailures.classify(new IOException("Operation not permitted")));
        assertNull(ReadFailures.classify(new IOException("Input/output error")));
        assertNull(ReadFailures.classify(new IOException()));
    }

    @Test
    void notFoundIsGoneOnlyWhenStatIsGoneToo() throws IOException {
        Path gone = pidDir((char) 0, 0);
        assertInstanceOf(NoSuchProcessException.class,
                ReadFailures.translate(PID, gone, gone.resolve("smaps_rollup"), ProcBuffer.Result.NOT_FOUND));

        Path running = pidDir('S', 0x400000);
        ProcscopeException e = ReadFailures.translate(PID, running, running.resolve("smaps_rollup"), ProcBuffer.Result.NOT_FOUND);
        assertEquals(ProcfsException.class, e.getClass(), "the process is there: the kernel lacks the file");
        assertTrue(e.getMessage().contains(running.resolve("smaps_rollup") + " is missing although pid 42 exists"), e.getMessage());
    }

    @Test
    void deniedIsDeniedWhileTheProcessRuns() throws IOException {
        Path running = pidDir('S', 0x400000);
        ProcscopeException e = ReadFailures.translate(PID, running, running.resolve("environ"), ProcBuffer.Result.DENIED);
        ProcessAccessDeniedException d = assertInstanceOf(ProcessAccessDeniedException.class, e);
        assertTrue(d.getMessage().contains("environ"), d.getMessage());
    }

    @Test
    void deniedButStatGoneIsGone() throws IOException {
        Path gone = pidDir((char) 0, 0);
        assertInstanceOf(NoSuchProcessException.class,
                ReadFailures.translate(PID, gone, gone.resolve("environ"), ProcBuffer.Result.DENIED));
    }

    @Test
    void deniedByAZombieOrAnExitingProcessIsGone() throws IOException {
        Path zombie = pidDir('Z', 0x400000);
        assertInstanceOf(NoSuchProcessException.class,
                ReadFailures.translate(PID, zombie, zombie.resolve("smaps"), ProcBuffer.Result.DENIED));
        Path exiting = pidDir('R', 0x400004); // PF_EXITING
        assertInstanceOf(NoSuchProcessException.class,
                ReadFailures.translate(PID, exiting, exiting.resolve("smaps"), ProcBuffer.Result.DENIED));
    }

    @Test
    void esrchIsGoneEvenWhileStatRemains() throws IOException {
        Path running = pidDir('S', 0);
        assertInstanceOf(NoSuchProcessException.class,
                ReadFailures.translate(PID, running, running.resolve("maps"), ProcBuffer.Result.GONE));
    }

    @Test
    void anotherIoErrorNamesTheFileUnlessTheProcessIsGone() throws IOException {
        Path running = pidDir('S', 0);
        IOException eio = new IOException("Input/output error");
        ProcscopeException e = ReadFailures.translate(PID, running, running.resolve("maps"), eio);
        assertEquals(ProcfsException.class, e.getClass());
        assertEquals(running.resolve("maps"), ((ProcfsException) e).file());
        assertSame(eio, e.getCause());

        Path gone = pidDir((char) 0, 0);
        assertInstanceOf(NoSuchProcessException.class, ReadFailures.translate(PID, gone, gone.resolve("maps"), eio));
    }

    @Test
    void readTranslatesWhatTheReadThrowsAndReturnsWhatItReads() throws IOException {
        Path running = pidDir('S', 0);
        Path fd = running.resolve("fd");
        assertEquals("ok", ReadFailures.read(PID, running, fd, () -> "ok"));
        assertThrows(ProcessAccessDeniedException.class, () -> ReadFailures.read(PID, running, fd, () -> {
            throw new DirectoryIteratorException(new AccessDeniedException(fd.toString()));
        }));
        ProcfsException missing = assertThrows(ProcfsException.class, () -> ReadFailures.read(PID, running, fd, () -> {
            throw new NoSuchFileException(fd.toString());
        }));
        assertEquals(ProcfsException.class, missing.getClass());
        Path gone = pidDir((char) 0, 0);
        assertThrows(NoSuchProcessException.class, () -> ReadFailures.read(PID, gone, fd, () -> {
            throw new NoSuchFileException(fd.toString());
        }));
    }

    @Test
    void aReapedProcessIsGoneForEveryReader() throws Exception {
        Process p = new ProcessBuilder("sleep", "300").start();
        long pid = p.pid();
        Path dir = Path.of("/proc", Long.toString(pid));
        new ProcBuffer().readProcessFile(pid, dir, dir.resolve("status"));
        p.destroyForcibly();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class,
                () -> new ProcBuffer().readProcessFile(pid, dir, dir.resolve("status")));
        assertEquals(pid, e.pid());
        assertThrows(NoSuchProcessException.class, () -> LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).fds(pid));
        assertThrows(NoSuchProcessException.class, () -> LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc"))).totals(pid));
    }
}
