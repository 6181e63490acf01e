package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live process's threads read by every reader (the JDK's, jnr's, FFM's on JDK 22+) with their own files
 * ({@code task/TID/stat}, {@code status}, {@code io}, {@code wchan}): the same threads, and for a sleeping process
 * the same facts.
 */
class ThreadFilesLiveTest {
    private static final Set<Facet> ALL = EnumSet.of(Facet.STATUS, Facet.IO, Facet.WCHAN);

    private static List<ProcessTable> tables() {
        List<ProcessTable> tables = new ArrayList<>();
        tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeReads(false).build());
        tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.load("jnr")).build());
        if (Runtime.version().feature() >= 22) {
            tables.add(LinuxProcfs.builder(Path.of("/proc")).nativeWall(NativeWalls.load("ffm")).build());
        }
        return tables;
    }

    @Test
    void aSleepingProcessHasTheSameThreadFactsThroughEveryReader() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "120").start();
        try {
            long pid = sleep.pid();
            // Asleep in the kernel: its counters stand still while the readers read.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            List<ThreadInfo> first = tables().get(0).threads(pid, ALL);
            while (!first.get(0).wchan().isPresent() || first.get(0).stat().state() != io.github.procscope.api.process.ProcessState.SLEEPING) {
                assertTrue(System.nanoTime() < deadline, "sleep did not go to sleep: " + first);
                Thread.sleep(20);
                first = tables().get(0).threads(pid, ALL);
            }
            for (ProcessTable t : tables()) {
                List<ThreadInfo> threads = t.threads(pid, ALL);
                assertEquals(1, threads.size(), t.toString());
                ThreadInfo th = threads.get(0);
                assertEquals(pid, th.stat().pid(), t.toString());
                assertEquals(first.get(0).stat(), th.stat(), t.toString());
                assertEquals(withoutSigQ(first.get(0).status()), withoutSigQ(th.status()), t.toString());
                assertEquals(first.get(0).io(), th.io(), t.toString());
                assertEquals(first.get(0).wchan(), th.wchan(), t.toString());
                assertTrue(th.status().isPresent() && th.io().isPresent(), t.toString());
            }
            sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            for (ProcessTable t : tables()) {
                assertThrows(NoSuchProcessException.class, () -> t.threads(pid, ALL), t.toString());
            }
        } finally {
            sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * @return every field of the status but {@code signalsQueued} ({@code SigQ}: the signals queued for the real user
     *         across the whole system, which moves between two reads of a sleeping process), by name
     */
    private static java.util.Map<String, Object> withoutSigQ(java.util.Optional<ProcessStatus> status)
            throws ReflectiveOperationException {
        assertTrue(status.isPresent() && status.get().signalsQueued().isPresent(), "SigQ read");
        java.util.Map<String, Object> fields = new java.util.LinkedHashMap<>();
        for (java.lang.reflect.RecordComponent c : ProcessStatus.class.getRecordComponents()) {
            if (!c.getName().equals("signalsQueued")) {
                fields.put(c.getName(), c.getAccessor().invoke(status.get()));
            }
        }
        return fields;
    }

    @Test
    void thisJvmsThreadsAreListedWithTheirOwnIds() throws Exception {
        CountDownLatch end = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        long[] tid = new long[1];
        Thread named = new Thread(() -> {
            tid[0] = Long.parseLong(readlink("/proc/thread-self").replaceAll(".*/", ""));
            started.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tfl-probe");
        named.start();
        try {
            started.await();
            long pid = ProcessHandle.current().pid();
            for (ProcessTable t : tables()) {
                List<ThreadInfo> threads = t.threads(pid, ALL);
                ThreadInfo probe = threads.stream().filter(x -> x.stat().pid() == tid[0]).findFirst().orElseThrow();
                assertEquals("tfl-probe", probe.stat().comm(), t.toString());
                assertEquals(tid[0], probe.status().orElseThrow().pid(), t.toString());
                assertTrue(threads.stream().anyMatch(x -> x.stat().pid() == pid), t + ": the main thread");
            }
        } finally {
            end.countDown();
            named.join();
        }
    }

    private static String readlink(String path) {
        try {
            return java.nio.file.Files.readSymbolicLink(Path.of(path)).toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
