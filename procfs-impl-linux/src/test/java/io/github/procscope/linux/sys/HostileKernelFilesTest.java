package io.github.procscope.linux.sys;

import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.process.Facet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FIFO, a device or a huge file where a kernel file should be: every read answers within two seconds with
 * one error naming the file, through the JDK's reading and through the wall's (over the back end this JVM
 * chose), and reads no more than the kernel could have written.
 */
class HostileKernelFilesTest {
    private static final Duration ANSWER = Duration.ofSeconds(2);

    @TempDir
    Path root;

    @BeforeAll
    static void loadTheNativeWall() {
        assertNotNull(NativeWalls.get("test"), "the native wall loads on Linux x86-64 and AArch64");
    }

    private static void mkfifo(Path p) throws IOException, InterruptedException {
        Files.createDirectories(p.getParent());
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
    }

    @ParameterizedTest
    @ValueSource(strings = {"100/stat", "100/statm", "100/status", "100/cmdline", "100/smaps", "100/smaps_rollup",
        "100/maps", "100/limits", "100/fdinfo/3", "100/task/101/stat", "stat", "uptime", "meminfo", "self/mountinfo", "loadavg",
        "diskstats"})
    void aFifoInPlaceOfAKernelFileIsRefusedAtOnce(String relative) throws Exception {
        Path fifo = root.resolve(relative);
        mkfifo(fifo);
        ProcfsException e = assertTimeoutPreemptively(ANSWER,
                () -> assertThrows(ProcfsException.class, () -> new ProcBuffer().read(fifo.toString())));
        assertTrue(e.getMessage().contains(fifo.toString()) && e.getMessage().contains("not a regular file"),
                e.getMessage());
        assertEquals(fifo, e.file());
    }

    @ParameterizedTest
    @ValueSource(strings = {"stat", "statm", "status", "cmdline", "limits"})
    void theNativeReaderRefusesAFifoAtOnce(String leafName) throws Exception {
        mkfifo(root.resolve("100").resolve(leafName));
        ProcFiles.Leaf leaf = ProcFiles.Leaf.valueOf(leafName.toUpperCase(java.util.Locale.ROOT));
        for (ProcFiles files : nativeReaders()) {
            try (files) {
                ProcfsException e = assertTimeoutPreemptively(ANSWER,
                        () -> assertThrows(ProcfsException.class, () -> files.read(100, leaf, new ProcBuffer())));
                assertTrue(e.getMessage().contains("a FIFO, not a regular file"), files + ": " + e.getMessage());
                assertEquals(root.resolve("100").resolve(leafName), e.file());
            }
        }
    }

    @Test
    void aTableOverAFifoAnswersForBothReaders() throws Exception {
        Files.writeString(root.resolve("stat"), "cpu  1 2 3 4 5 6 7 0 0 0\nbtime 1700000000\n");
        Files.writeString(root.resolve("uptime"), "100.00 50.00\n");
        mkfifo(root.resolve("100/stat"));
        List<LinuxProcfs> tables = new ArrayList<>();
        for (boolean nativeReads : new boolean[] {true, false}) {
            tables.add(LinuxProcfs.builder(root).clockTicksPerSecond(Fixtures.TICKS)
                    .pageSizeBytes(Fixtures.PAGE).nativeReads(nativeReads).build());
        }
        assertTrue(tables.get(0).readsNatively(), "the wall is loaded");
        for (LinuxProcfs table : tables) {
            ProcfsException e = assertTimeoutPreemptively(ANSWER, () -> assertThrows(ProcfsException.class,
                    () -> table.process(100, EnumSet.noneOf(Facet.class))));
            assertTrue(e.getMessage().contains("100/stat"), e.getMessage());
        }
    }

    @Test
    void aHundredMegabyteStatIsRefusedAfterWhatTheKernelCouldWrite() throws Exception {
        Path stat = root.resolve("100/stat");
        Files.createDirectories(stat.getParent());
        try (RandomAccessFile f = new RandomAccessFile(stat.toFile(), "rw")) {
            f.setLength(100L << 20); // sparse: made at once, read as zeros
        }
        ProcBuffer jdk = new ProcBuffer();
        ProcfsException e = assertThrows(ProcfsException.class, () -> jdk.read(stat.toString()));
        assertTrue(e.getMessage().contains("larger than 64 KiB"), e.getMessage());
        assertTrue(jdk.bytes().length <= ProcBuffer.SMALL_LIMIT, "read no more than the limit: " + jdk.bytes().length);
        for (ProcFiles files : nativeReaders()) {
            try (files) {
                ProcBuffer buf = new ProcBuffer();
                ProcfsException n = assertThrows(ProcfsException.class,
                        () -> files.read(100, ProcFiles.Leaf.STAT, buf));
                assertTrue(n.getMessage().contains("larger than 64 KiB"), files + ": " + n.getMessage());
                assertTrue(buf.bytes().length <= ProcBuffer.SMALL_LIMIT, files + ": " + buf.bytes().length);
            }
        }
    }

    @Test
    void statusLinkedToDevZeroIsRefusedByEitherReader() throws Exception {
        Path status = root.resolve("100/status");
        Files.createDirectories(status.getParent());
        Files.createSymbolicLink(status, Path.of("/dev/zero"));
        ProcfsException e = assertThrows(ProcfsException.class, () -> new ProcBuffer().read(status.toString()));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        for (ProcFiles files : nativeReaders()) {
            try (files) {
                ProcfsException n = assertThrows(ProcfsException.class,
                        () -> files.read(100, ProcFiles.Leaf.STATUS, new ProcBuffer()));
                assertTrue(n.getMessage().contains("a character device, not a regular file"),
                        files + ": " + n.getMessage());
            }
        }
    }

    @Test
    void realProcfsFilesStillReadWhole() {
        ProcBuffer b = new ProcBuffer();
        for (String f : new String[] {"/proc/self/stat", "/proc/self/status", "/proc/self/smaps", "/proc/stat",
            "/proc/uptime", "/proc/meminfo", "/proc/self/mountinfo", "/proc/self/cmdline"}) {
            assertEquals(ProcBuffer.Result.OK, b.read(f), f);
            assertTrue(b.length() > 0, f);
        }
    }

    @Test
    void limitsFollowTheKernelFile() {
        assertEquals(ProcBuffer.SMALL_LIMIT, ProcBuffer.limitFor("/proc/42/stat"));
        assertEquals(ProcBuffer.SMALL_LIMIT, ProcBuffer.limitFor("/proc/self/stat"));
        assertEquals(ProcBuffer.SMALL_LIMIT, ProcBuffer.limitFor("/proc/42/task/43/stat"));
        assertEquals(4 << 20, ProcBuffer.limitFor("/proc/stat"));
        assertEquals(16 << 20, ProcBuffer.limitFor("/proc/42/fdinfo/3"));
        assertEquals(ProcBuffer.MAX_CAPACITY, ProcBuffer.limitFor("/proc/42/smaps"));
    }

    /** The native reader: the wall's, over the back end this JVM chose ({@code procscope.native.backend}). */
    private List<ProcFiles> nativeReaders() {
        ProcFiles chosen = ProcFiles.open(root, root + "/", true, null);
        assertTrue(chosen.isNative(), "the native reader is loaded");
        return List.of(chosen);
    }
}
