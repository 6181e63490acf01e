package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user without the right to signal a process sees: a child JVM running as {@code nobody}
 * ({@code setpriv}) tries to send TERM to, and to stop, a {@code sleep} this (root) test owns.
 */
class NotPermittedIT {
    private final Spawned spawned = new Spawned();

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void anotherUsersProcessIsNotPermittedAndLeftAlive() throws Exception {
        Assumptions.assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
                "needs root to start a child as nobody");
        Assumptions.assumeTrue(Commands.available("setpriv"), "needs setpriv (util-linux)");
        Process target = spawned.start("sleep", "1000");
        LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
        Spawned.await(Duration.ofSeconds(30), "sleep", () -> proc.find(target.pid())
                .map(i -> i.comm().equals("sleep")).orElse(false));
        ProcessKey key = proc.key(target.pid());

        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        List<String> java = new ArrayList<>(Spawned.javaCommand(List.of("-Djava.io.tmpdir=" + tmp),
                SendProbe.class, Long.toString(key.pid()), Long.toString(key.startTimeTicks()), "TERM").command());
        java.set(java.indexOf("-cp") + 1, readableClassPath());
        cmd.addAll(java);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        Process probe = spawned.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
        String send = Spawned.readLine(probe, Duration.ofSeconds(60));
        String stop = Spawned.readLine(probe, Duration.ofSeconds(60));
        assertTrue(probe.waitFor(60, TimeUnit.SECONDS));

        assertTrue(send.startsWith("send NOT_PERMITTED: "), send);
        assertTrue(send.contains("pid " + key.pid()), send);
        assertTrue(send.contains("another user"), send);
        assertEquals("stop NOT_PERMITTED allGone=false", stop);
        assertFalse(target.waitFor(200, TimeUnit.MILLISECONDS));
        assertTrue(target.isAlive(), "nothing reached it");
    }

    /** The class path, copied where {@code nobody} can read it (the build's may sit under /root). */
    private String readableClassPath() throws IOException {
        Path dir = tmp.resolve("cp");
        Files.createDirectories(dir);
        List<String> out = new ArrayList<>();
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(":")) {
            Path src = Path.of(entry);
            if (!Files.exists(src)) {
                continue;
            }
            Path dst = dir.resolve(Integer.toString(i++) + (Files.isDirectory(src) ? "" : ".jar"));
            if (Files.isDirectory(src)) {
                try (Stream<Path> walk = Files.walk(src)) {
                    walk.forEach(s -> {
                        try {
                            Files.copy(s, dst.resolve(src.relativize(s).toString()));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
                }
            } else {
                Files.copy(src, dst);
            }
            out.add(dst.toString());
        }
        try (Stream<Path> walk = Files.walk(tmp)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x"
                        : "rw-r--r--"));
            }
        }
        return String.join(":", out);
    }
}
