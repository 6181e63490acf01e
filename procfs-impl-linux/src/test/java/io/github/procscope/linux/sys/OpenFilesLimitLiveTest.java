package io.github.procscope.linux.sys;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The soft limit on open descriptors of a live process, read by every reader (the JDK's, jnr's, FFM's on JDK 22+)
 * against what {@code prlimit} set and reads back, and read afresh after {@code prlimit} changes it.
 */
class OpenFilesLimitLiveTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endWhatWasStarted() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out.strip();
    }

    /** @return what prlimit reads back as the soft limit on open files of {@code pid} */
    private static long prlimitSoft(long pid) throws IOException, InterruptedException {
        return Long.parseLong(run("prlimit", "--pid", Long.toString(pid), "--nofile", "--output=SOFT", "--noheadings"));
    }

    private static List<ProcessTable> tables() {
        List<ProcessTable> tables = new ArrayList<>();
        tables.add(Procscope.system().processes());
        tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build());
        tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.load("jnr")).build());
        if (Runtime.version().feature() >= 22) {
            tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.load("ffm")).build());
        }
        return tables;
    }

    @Test
    void aLimitChangedByPrlimitIsWhatTheNextReadGives() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "120").start();
        started.add(sleep);
        long pid = sleep.pid();
        for (long soft : new long[] {1000, 64, 4096, 7}) {
            run("prlimit", "--pid", Long.toString(pid), "--nofile=" + soft + ":" + 8192);
            assertEquals(soft, prlimitSoft(pid));
            for (ProcessTable t : tables()) {
                assertEquals(OptionalLong.of(soft), t.openFilesLimit(pid), t.toString());
                assertEquals(OptionalLong.of(soft), t.limits(pid).openFiles().orElseThrow().soft(), t.toString());
            }
        }
        sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        for (ProcessTable t : tables()) {
            assertThrows(NoSuchProcessException.class, () -> t.openFilesLimit(pid), t.toString());
        }
    }
}
