package io.github.procscope.linux;

import io.github.procscope.linux.internal.JffiStub;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** jnr-ffi's stub comes from a private per-user cache: jffi never extracts a file of its own. */
class JffiStubTest {
    private final Spawned spawned = new Spawned();

    @TempDir
    Path cache;

    @AfterEach
    void end() {
        spawned.close();
    }

    /**
     * The probe asks for the jnr binding on purpose, so on JDK 22+ (where a test JVM may run) it is granted
     * what jnr needs, as a consumer choosing that back end would: native access, and on 23+ jffi's
     * {@code sun.misc.Unsafe} memory access. Without them the JVM's warnings come before the probe's line.
     */
    static List<String> jnrOptions(String option) {
        int feature = Runtime.version().feature();
        List<String> options = new java.util.ArrayList<>();
        if (feature >= 22) {
            options.add("--enable-native-access=ALL-UNNAMED");
        }
        if (feature >= 23) {
            options.add("--sun-misc-unsafe-memory-access=allow");
        }
        options.add(option);
        return options;
    }

    @Test
    void theBindingLoadsWhereNeitherTheTemporaryNorTheCurrentDirectoryTakesAFile() throws Exception {
        // Nothing can be created in /proc, even by root: jffi's own extraction (tmpdir, then the current
        // directory) fails there, so the binding loads only if the stub is taken from the cache.
        ProcessBuilder pb = Spawned.javaCommand(jnrOptions("-Djava.io.tmpdir=/proc"), NativeLoadProbe.class)
                .directory(new File("/proc")).redirectErrorStream(true);
        pb.environment().put("XDG_CACHE_HOME", cache.toString());
        Process p = spawned.start(pb);
        String line = Spawned.readLine(p, Duration.ofSeconds(60));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(line.startsWith("loaded " + cache.resolve("procscope")), line);
        Path dir = Path.of(line.substring("loaded ".length()));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir)));
        try (var s = Files.list(dir)) {
            assertEquals(List.of("libjffi-1.2.so"), s.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    void aPropertySetByTheUserIsLeftAlone() throws Exception {
        ProcessBuilder pb = Spawned.javaCommand(jnrOptions("-Djffi.boot.library.path=/nonexistent"),
                NativeLoadProbe.class).redirectErrorStream(true);
        pb.environment().put("XDG_CACHE_HOME", cache.toString());
        Process p = spawned.start(pb);
        String line = Spawned.readLine(p, Duration.ofSeconds(60));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(line.endsWith(" /nonexistent"), line);
        try (var s = Files.list(cache)) {
            assertEquals(0, s.count(), "no cache made");
        }
    }
}
