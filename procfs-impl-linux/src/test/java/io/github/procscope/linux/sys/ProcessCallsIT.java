package io.github.procscope.linux.sys;

import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.signals.SendProbe;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The process calls of this JVM, over the back end {@link NativeWalls} chose (jnr on JDK 17 to 21, FFM on 22+):
 * they bind the native C library, and a binding that cannot load is a typed error, never a fallback.
 */
class ProcessCallsIT {
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void bindsTheNativeCLibraryNotThePureJavaFallback() {
        ProcessCalls nat = ProcessCalls.get();
        assertEquals(ProcessHandle.current().pid(), nat.selfPid());
        assertEquals(LinuxProcfs.at(Path.of("/proc")).process(nat.selfPid()).pgid(), nat.selfProcessGroup());
        assertTrue(nat.pidfdPossible(), "x86-64 and arm64 have pidfd_open at 434");
        int fd = nat.pidfdOpen(nat.selfPid());
        assertTrue(fd >= 0, "pidfd_open failed: " + fd);
        boolean[] ready = new boolean[1];
        assertEquals(0, nat.pollReadable(new int[] {fd}, 1, 0, ready), "a live process's pidfd is not readable");
        nat.close(fd);
    }

    @Test
    void aFailureToLoadTheNativeLibraryIsAClearTypedErrorNotAFallback() throws Exception {
        // The target cannot exist (above pid_max), so even a wrongly working sender would hit nothing.
        Process p = spawned.startJava(List.of("-Djnr.ffi.provider=no.such.Provider", "-Dprocscope.native.backend=jnr"), SendProbe.class,
                Long.toString(io.github.procscope.api.core.Pids.PID_MAX_LIMIT), "0", "WINCH");
        String line = Spawned.readLine(p, Duration.ofSeconds(60));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));

        assertTrue(line.startsWith("unavailable SignalsUnavailableException: "), line);
        assertTrue(line.contains("jnr-posix"), line);
        assertTrue(line.contains("no.such.Provider"), "names the cause: " + line);
        assertTrue(line.contains("java.io.tmpdir"), "says what to check: " + line);
    }
}
