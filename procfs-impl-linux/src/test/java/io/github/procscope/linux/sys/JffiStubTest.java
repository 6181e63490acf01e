package io.github.procscope.linux.sys;

import io.github.procscope.linux.sys.internal.JffiStub;
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
     * The probe asks for the jnr binding on purpose, so on JDK 23+ (where a test JVM may run) it is granted
     * what jffi still uses, as a consumer choosing that back end would: {@code sun.misc.Unsafe} memory access
     * (native access is granted to every JVM {@link Spawned#javaCommand} starts on JDK 22+). Without it the
     * JVM's warnings come before the probe's line.
     */
    static List<String> jnrOptions(String option) {
        return Runtime.version().feature() >= 23
                ? List.of("--sun-misc-unsafe-memory-access=allow", option) : List.of(option);
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
        // named by the CPU and the stub's CRC-32 in eight hexadecimal digits, leading zeros kept
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(Files.readAllBytes(dir.resolve("libjffi-1.2.so")));
        String name = dir.getFileName().toString();
        assertTrue(name.startsWith("jffi-") && name.endsWith(String.format(java.util.Locale.ROOT, "-%08x",
                crc.getValue())), name);
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
