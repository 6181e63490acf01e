package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ThreadInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /proc/PID/task} given as a symbolic link to the directory of tasks (as some overlays and copies show it). */
class TaskSymlinkTest {
    @Test
    void threadsFollowATaskDirectoryThatIsALink(@TempDir Path tmp) throws IOException {
        Path root = tmp.resolve("proc");
        copy(Fixtures.proc(), root);
        Path task = root.resolve("100/task");
        Path real = root.resolve("100/tasks-real");
        Files.move(task, real);
        Files.createSymbolicLink(task, Path.of("tasks-real"));
        assertTrue(Files.isSymbolicLink(task));
        LinuxProcfs proc = LinuxProcfs.builder(root).clockTicksPerSecond(Fixtures.TICKS).pageSizeBytes(Fixtures.PAGE)
                .build();

        List<ThreadInfo> threads = proc.threads(100, Set.of(Facet.STATUS));

        assertEquals(List.of(100L, 101L), threads.stream().map(ThreadInfo::tid).toList());
        assertEquals(List.of("bash", "worker-1"), threads.stream().map(ThreadInfo::name).toList());
        assertTrue(threads.get(1).status().orElseThrow().signals().blocksTerm());
    }

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
