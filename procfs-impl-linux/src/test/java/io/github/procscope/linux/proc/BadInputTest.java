package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.Facet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad pids are refused before any file is touched, with a message that names the value. */
class BadInputTest {
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));

    private static void refused(long pid, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains("invalid pid " + pid), e.getMessage());
    }

    @Test
    void zeroNegativeAndHugePidsAreRefusedByName() {
        for (long pid : new long[] {0, -1, -5, Integer.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, 4_194_305}) {
            refused(pid, () -> proc.process(pid));
            refused(pid, () -> proc.process(pid, Set.of(Facet.STATUS)));
            refused(pid, () -> proc.status(pid));
            refused(pid, () -> proc.cmdline(pid));
            refused(pid, () -> proc.threads(pid));
            refused(pid, () -> proc.find(pid));
            refused(pid, () -> new ProcessKey(pid, 0));
        }
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> proc.process(0));
        assertTrue(zero.getMessage().contains("process group"), "says why 0 is dangerous: " + zero.getMessage());
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class, () -> proc.process(Long.MAX_VALUE));
        assertTrue(huge.getMessage().contains("4194304"), huge.getMessage());
    }

    @Test
    void aValidPidThatDoesNotExistIsNoSuchProcess() {
        long pid = Pid.unused();
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> proc.process(pid));
        assertEquals(pid, e.pid());
        assertThrows(NoSuchProcessException.class, () -> proc.status(pid));
        assertThrows(NoSuchProcessException.class, () -> proc.cmdline(pid));
        assertThrows(NoSuchProcessException.class, () -> proc.threads(pid));
        assertEquals(java.util.Optional.empty(), proc.find(pid));
    }

    @Test
    void negativeStartTimesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ProcessKey(5, -1));
    }

    @Test
    void nullsAreRefusedAtTheBoundary() {
        assertThrows(NullPointerException.class, () -> proc.snapshot(null));
        assertThrows(NullPointerException.class, () -> LinuxProcfs.at(null));
    }

    /** A pid that no process has now. */
    static final class Pid {
        static long unused() {
            for (long pid = 4_000_000; pid > 3_000_000; pid -= 7919) {
                if (ProcessHandle.of(pid).isEmpty() && !java.nio.file.Files.exists(java.nio.file.Path.of("/proc/" + pid))) {
                    return pid;
                }
            }
            throw new AssertionError("no unused pid found");
        }
    }
}
