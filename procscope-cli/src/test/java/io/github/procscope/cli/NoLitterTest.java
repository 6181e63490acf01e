package io.github.procscope.cli;

import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs of the tool, finished or killed while starting, leave no file in the current or temporary directory:
 * jnr-ffi's native stub is loaded from a private per-user cache, not extracted anew by every run (JDK 17 to 21),
 * and on JDK 22+, where the FFM back end makes the native calls, nothing native is written anywhere.
 */
class NoLitterTest {
    private final Spawned spawned = new Spawned();

    @TempDir
    Path scratch;

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void fiftyRunsSomeKilledWhileStartingLeaveNothingBehind() throws Exception {
        Path cwd = Files.createDirectories(scratch.resolve("cwd"));
        Path tmp = Files.createDirectories(scratch.resolve("tmp"));
        Path cache = Files.createDirectories(scratch.resolve("cache"));
        Random random = new Random(13);
        int finished = 0;
        for (int i = 0; i < 50; i++) {
            // "deleted" loads the native binding in the foreground; "ps" loads it in the background.
            ProcessBuilder pb = Spawned.javaCommand(List.of("-Djava.io.tmpdir=" + tmp), ProcscopeCli.class,
                    i % 2 == 0 ? "deleted" : "ps").directory(cwd.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("XDG_CACHE_HOME", cache.toString());
            Process p = spawned.start(pb);
            if (i % 3 == 0) {
                Thread.sleep(50 + random.nextInt(400));
                p.destroyForcibly(); // SIGKILL at some moment of the start
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "run " + i + " ended");
            if (i % 3 != 0) {
                finished++;
            }
        }
        assertEquals(List.of(), list(cwd), "nothing left in the current directory");
        assertEquals(List.of(), list(tmp), "nothing left in the temporary directory");
        assertTrue(finished > 30);
        List<String> cached = new ArrayList<>();
        try (Stream<Path> s = Files.walk(cache)) {
            s.filter(Files::isRegularFile).forEach(f -> cached.add(cache.relativize(f).toString()));
        }
        if (Runtime.version().feature() >= 22) {
            // The FFM back end of the native wall: nothing of jffi is loaded, so nothing is cached either.
            assertEquals(List.of(), cached, "no native stub at all on JDK 22+");
            return;
        }
        assertEquals(1, cached.size(), "one stub in the cache, no partial copies: " + cached);
        assertTrue(cached.get(0).matches("procscope/jffi-[a-z0-9_]+-[0-9a-f]{8}/libjffi-[0-9.]+\\.so"), cached.get(0));
    }

    private static List<String> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
