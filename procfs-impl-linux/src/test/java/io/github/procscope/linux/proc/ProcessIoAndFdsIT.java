package io.github.procscope.linux.proc;

import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessIo;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link Facet#IO} and {@link Facet#FDS} facets of a live process this test starts (and ends by pid): a perl
 * that writes a known number of bytes to a file on disk and then holds a known set of descriptors open.
 */
class ProcessIoAndFdsIT {
    private static final int WRITTEN = 4_000_000;
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final Spawned spawned = new Spawned();

    @AfterEach
    void endEverything() {
        spawned.close();
    }

    @Test
    void aProcessIoCountersAndOpenDescriptorsAreRead() throws Exception {
        // On the build directory's file system, not a tmpfs /tmp, where nothing reaches storage.
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "io-it");
        Path out = dir.resolve("written");
        Process p = spawned.start("perl", "-e", "open(my $f, '>', $ARGV[0]) or die; syswrite($f, 'x' x " + WRITTEN
                + "); close($f); open(A, '<', '/dev/null'); open(B, '<', '/dev/null'); open(C, '<', '/dev/null');"
                + " syswrite(STDOUT, \"ready\\n\"); sleep 600", out.toString());
        assertEquals("ready", Spawned.readLine(p, Duration.ofSeconds(30)));

        ProcessInfo info = proc.process(p.pid(), EnumSet.of(Facet.IO, Facet.FDS));
        String[] listed = new java.io.File("/proc/" + p.pid() + "/fd").list();
        assertEquals(listed.length, info.openFds().orElseThrow(), "the entries of /proc/PID/fd");
        assertEquals(6, info.openFds().getAsInt(), "stdin, stdout, stderr and three of /dev/null");

        ProcessIo io = info.io().orElseThrow();
        // The process sleeps: its counters stand still, so the file read here must agree exactly.
        java.util.Map<String, Long> raw = new java.util.HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/io"))) {
            raw.put(line.substring(0, line.indexOf(':')), Long.parseLong(line.substring(line.indexOf(':') + 1).trim()));
        }
        assertEquals(new ProcessIo(raw.get("rchar"), raw.get("wchar"), raw.get("syscr"), raw.get("syscw"),
                raw.get("read_bytes"), raw.get("write_bytes"), raw.get("cancelled_write_bytes")), io);
        assertTrue(io.writtenChars() >= WRITTEN + "ready\n".length(), "wchar: the file and stdout, at least: " + io);
        assertTrue(io.writeSyscalls() >= 2, io.toString());
        assertTrue(io.storageWriteBytes() >= WRITTEN, "the file's pages were dirtied: " + io);
        assertTrue(io.storageWriteBytes() < WRITTEN + (1 << 20), io.toString());

        ProcessInfo plain = proc.process(p.pid(), Set.of());
        assertTrue(plain.io().isEmpty() && plain.openFds().isEmpty(), "read only when asked for");
        Files.delete(out);
        Files.delete(dir);
    }
}
