package io.github.procscope.linux.proc;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What an unprivileged user sees: a child JVM run as {@code nobody} (through {@code setpriv}) snapshots
 * every process and reads what it may; what it may not read is empty or a typed denial, never a crash.
 */
class NonRootIT {

    @Test
    void nobodySnapshotsEveryProcessWithoutCrashing(@TempDir Path tmp) throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv (util-linux) to switch to nobody");

        Path fixture = tmp.resolve("proc");
        copyTree(Fixtures.proc(), fixture);
        Files.setPosixFilePermissions(fixture.resolve("500/status"), PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(fixture.resolve("500/cmdline"), PosixFilePermissions.fromString("---------"));
        openUp(tmp);

        Set<String> before = keys(LinuxProcfs.at(Path.of("/proc")).snapshot());
        Process p = Unprivileged.java(NonRootProbe.class, fixture.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe finished");
        Set<String> after = keys(LinuxProcfs.at(Path.of("/proc")).snapshot());
        assertEquals(0, p.exitValue(), out);
        Map<String, String> kv = out.lines().filter(l -> l.contains("=")).collect(Collectors.toMap(
                l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1), (a, b) -> a));

        assertFalse(kv.containsKey("crash"), out);
        assertEquals("65534", kv.get("selfUid"), out);
        assertEquals("nobody", kv.get("selfUser"), out);
        assertEquals("0", kv.get("pid1Uid"), out);
        // Every process that root saw before and after the probe (same pid, same start time) lived through its
        // snapshot: nobody saw each of them. What came and went meanwhile (a build beside this one) is not counted.
        Set<String> seen = Set.of(kv.get("keys").split(","));
        Set<String> throughout = new TreeSet<>(before);
        throughout.retainAll(after);
        Set<String> missed = new TreeSet<>(throughout);
        missed.removeAll(seen);
        assertTrue(throughout.size() > 1 && missed.isEmpty(), "nobody sees every process: of the " + throughout.size()
                + " that lived through its snapshot it missed " + missed);
        assertEquals(kv.get("count"), kv.get("withStatus"), "status is world-readable");
        assertEquals(kv.get("count"), kv.get("withCmdline"), "cmdline is world-readable");
        assertFalse(kv.get("outcomes").contains("denied"), "nothing in this scope is denied on a default mount: " + out);
        assertEquals("true", kv.get("lockedStatusEmpty"), out);
        assertEquals("true", kv.get("lockedCmdlineEmpty"), out);
        assertEquals("locked", kv.get("lockedComm"), out);
        assertEquals("denied pid=500 file=status", kv.get("lockedStatus"), out);
    }

    /** @return the snapshot's processes as pid:start-time-ticks */
    private static Set<String> keys(io.github.procscope.api.process.ProcessSnapshot s) {
        return s.processes().stream().map(i -> i.key().pid() + ":" + i.key().startTimeTicks())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path src : (Iterable<Path>) s::iterator) {
                Path dst = to.resolve(from.relativize(src).toString());
                if (Files.isDirectory(src)) {
                    Files.createDirectories(dst);
                } else {
                    Files.copy(src, dst);
                }
            }
        }
    }

    private static void openUp(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName() != null && (p.endsWith("status") || p.endsWith("cmdline"))
                        && p.getParent().endsWith("500")) {
                    continue;
                }
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }
}
