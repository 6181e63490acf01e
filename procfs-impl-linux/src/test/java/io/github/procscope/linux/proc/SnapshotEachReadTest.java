package io.github.procscope.linux.proc;

import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code snapshot(facets, eachRead)} hands each process on within the one pass over {@code /proc}: as soon as it
 * is read and before the next one is, the very object the snapshot then holds, once each, by pid.
 */
class SnapshotEachReadTest {

    @Test
    void eachProcessIsHandedOnOnceInOrderAsTheSnapshotHoldsIt() {
        LinuxProcfs table = Fixtures.procfs();
        List<ProcessInfo> seen = new ArrayList<>();
        ProcessSnapshot s = table.snapshot(Set.of(Facet.IO), seen::add);
        assertEquals(s.processes().size(), seen.size());
        for (int i = 0; i < seen.size(); i++) {
            assertSame(s.processes().get(i), seen.get(i), "the snapshot's own object, in its order");
        }
        assertEquals(table.snapshot(Set.of(Facet.IO)).processes().stream().map(ProcessInfo::pid).toList(),
                seen.stream().map(ProcessInfo::pid).toList(), "the same processes as without a consumer");
    }

    @Test
    void eachProcessIsHandedOnBeforeTheNextIsRead(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        TaskSymlinkTest.copy(Fixtures.dir("proc-clean"), proc);
        LinuxProcfs table = LinuxProcfs.builder(proc).clockTicksPerSecond(Fixtures.TICKS)
                .pageSizeBytes(Fixtures.PAGE).build();
        List<Long> pids = table.snapshot().processes().stream().map(ProcessInfo::pid).toList();
        assertTrue(pids.size() >= 3, "the fixture has processes to remove: " + pids);
        long last = pids.get(pids.size() - 1);
        List<Long> seen = new ArrayList<>();
        // Handed the first process, remove the last one's directory: a pass that had read it already keeps it.
        ProcessSnapshot s = table.snapshot(Set.of(), p -> {
            seen.add(p.pid());
            if (seen.size() == 1) {
                delete(proc.resolve(Long.toString(last)));
            }
        });
        assertEquals(pids.subList(0, pids.size() - 1), seen);
        assertEquals(seen, s.processes().stream().map(ProcessInfo::pid).toList());
    }

    @Test
    void theInterfacesDefaultHandsOnTheSnapshotsProcessesInOrder() {
        LinuxProcfs real = Fixtures.procfs();
        // A table that implements only what every table must: the default of the interface does the rest.
        ProcessTable plain = (ProcessTable) Proxy.newProxyInstance(ProcessTable.class.getClassLoader(),
                new Class<?>[] {ProcessTable.class}, (proxy, method, args) -> {
                    if (method.isDefault()) {
                        return InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    return method.invoke(real, args);
                });
        List<ProcessInfo> seen = new ArrayList<>();
        ProcessSnapshot s = plain.snapshot(Set.of(), seen::add);
        assertEquals(s.processes(), seen);
        assertTrue(seen.size() > 3);
        assertThrows(NullPointerException.class, () -> plain.snapshot(Set.of(), null));
    }

    @Test
    void whatTheConsumerThrowsEndsTheSnapshot() {
        LinuxProcfs table = Fixtures.procfs();
        List<Long> seen = new ArrayList<>();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.snapshot(Set.of(), p -> {
            seen.add(p.pid());
            throw new IllegalStateException("stop at " + p.pid());
        }));
        assertEquals("stop at " + seen.get(0), e.getMessage());
        assertEquals(1, seen.size());
        assertThrows(NullPointerException.class, () -> table.snapshot(Set.of(), null));
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(f);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
