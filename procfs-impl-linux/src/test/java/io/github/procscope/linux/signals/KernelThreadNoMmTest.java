package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kernel thread known only by having no address space (no {@code PF_KTHREAD} in its flags, parent 0, not a
 * child of kthreadd: a {@code vsize} of 0, a {@code statm} of zeros and an empty {@code cmdline}) is refused
 * like any kernel thread. The fixture's pids are above any pid this machine hands out (checked), so a send that
 * passed the refusal would reach no process.
 */
class KernelThreadNoMmTest {
    private static final long NO_MM = 4_000_001;
    private static final long ZOMBIE = 4_000_002;
    private static final long USER = 4_000_003;
    private static final long EXITING = 4_000_004;

    @TempDir
    Path root;

    private LinuxProcfs table;

    /** {@code /proc/PID/stat} of a task: state, parent, flags and vsize as given, started at tick 5. */
    private static String stat(long pid, String comm, char state, long ppid, long flags, long vsize) {
        return pid + " (" + comm + ") " + state + " " + ppid + " 0 0 0 -1 " + flags
                + " 0 0 0 0 0 0 0 0 20 0 1 0 5 " + vsize + " 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17"
                + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    }

    private void task(long pid, String stat, String statm, String cmdline) throws IOException {
        Path dir = Files.createDirectories(root.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), stat);
        Files.writeString(dir.resolve("statm"), statm);
        Files.writeString(dir.resolve("cmdline"), cmdline);
    }

    @BeforeEach
    void fixture() throws IOException {
        for (long pid : new long[] {NO_MM, ZOMBIE, USER, EXITING}) {
            Assumptions.assumeFalse(Files.exists(Path.of("/proc/" + pid)), "pid " + pid + " is live here");
        }
        Files.writeString(root.resolve("uptime"), "1000.50 900.00\n");
        Files.writeString(root.resolve("stat"), "cpu  1 0 1 100 0 0 0 0 0 0\nbtime 1764672000\n");
        // flags 0x40 (PF_FORKNOEXEC) without PF_KTHREAD (0x200000); parent 0, as a kernel thread shows in a
        // pid namespace or on kernels that do not mark it
        task(NO_MM, stat(NO_MM, "kworker/u8:3", 'I', 0, 0x40, 0), "0 0 0 0 0 0 0\n", "");
        task(ZOMBIE, stat(ZOMBIE, "defunct", 'Z', 1, 0x40, 0), "0 0 0 0 0 0 0\n", "");
        // a process in do_exit (PF_EXITING, 0x4) that has given back its address space, not yet a zombie
        task(EXITING, stat(EXITING, "sleep", 'R', 1, 0x40 | 0x4, 0), "0 0 0 0 0 0 0\n", "");
        task(USER, stat(USER, "sleep", 'S', 1, 0x40, 8_634_368), "2108 132 120 4 0 88 0\n", "sleep\0300\0");
        table = LinuxProcfs.builder(root).clockTicksPerSecond(100).pageSizeBytes(4096).build();
    }

    @Test
    void aTaskWithNoAddressSpaceIsRefusedAsAKernelThread() {
        LinuxSignals signals = LinuxSignals.using(table);
        ProcessKey key = table.key(NO_MM);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> signals.send(key, Signal.TERM));
        assertTrue(e.getMessage().contains("kernel thread") && e.getMessage().contains("nothing was sent"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> signals.stop(key, StopOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> signals.stopTree(key, StopOptions.defaults()));
    }

    @Test
    void aZombieAnExitingProcessAndAProcessWithMemoryAreNotKernelThreads() {
        LinuxSignals signals = LinuxSignals.using(table);
        for (long pid : new long[] {ZOMBIE, EXITING, USER}) {
            SendResult r = signals.send(table.key(pid), Signal.TERM); // not refused: the pid is free here
            assertFalse(r.delivered(), r.toString());
            assertFalse(r.explanation().contains("kernel thread"), r.toString());
        }
    }
}
