package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.disk.DirectoryTotal;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LinuxSystemResources#directoryUsage} on trees this test builds, against {@code du}. */
class DirectoryUsageLiveIT {
    private static final long MIB = 1 << 20;
    private final LinuxSystemResources system = LinuxSystemResources.at(Path.of("/proc"), Path.of("/sys"));

    /**
     * Builds: a/f1 (1000 B), a/f2 (5000 B), a/b/f3 (123456 B) with a second link a/b/f3-link, c/sparse (10 MiB with
     * 4 KiB written), c/empty, d/ (empty), e/deep/deeper/x (7 B), sym -> a, and c/f1-again, a hard link to a/f1 in
     * another directory.
     */
    private static void build(Path root) throws IOException {
        Files.createDirectories(root.resolve("a/b"));
        Files.createDirectories(root.resolve("c"));
        Files.createDirectories(root.resolve("d"));
        Files.createDirectories(root.resolve("e/deep/deeper"));
        Files.write(root.resolve("a/f1"), new byte[1000]);
        Files.write(root.resolve("a/f2"), new byte[5000]);
        Files.write(root.resolve("a/b/f3"), new byte[123456]);
        Files.createLink(root.resolve("a/b/f3-link"), root.resolve("a/b/f3"));
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("c/sparse").toFile(), "rw")) {
            f.seek(5 * MIB);
            f.write(new byte[4096]);
            f.setLength(10 * MIB);
        }
        Files.createFile(root.resolve("c/empty"));
        Files.write(root.resolve("e/deep/deeper/x"), new byte[7]);
        Files.createSymbolicLink(root.resolve("sym"), Path.of("a"));
        Files.createLink(root.resolve("c/f1-again"), root.resolve("a/f1"));
    }

    @Test
    void totalsEqualDu(@TempDir Path root) throws IOException {
        build(root);
        DirectoryUsage u = system.directoryUsage(root, 100);
        long duApparent = Long.parseLong(Commands.run("du", "-sb", root.toString()).split("\t")[0]);
        long duAllocated = Long.parseLong(Commands.run("du", "-sB1", root.toString()).split("\t")[0]);
        long duInodes = Long.parseLong(Commands.run("du", "-s", "--inodes", root.toString()).split("\t")[0]);
        System.out.printf("du -sb %d, ours %d; du -sB1 %d, ours %d; du --inodes %d, ours %d files + %d directories%n",
                duApparent, u.total().apparentBytes(), duAllocated, u.total().allocatedBytes(), duInodes, u.files(),
                u.directories());
        assertEquals(duApparent, u.total().apparentBytes());
        assertEquals(duAllocated, u.total().allocatedBytes());
        assertEquals(duInodes, u.files() + u.directories(), "each hard-linked file counted once");
        assertEquals(root, u.root());
        assertTrue(u.complete());
        assertEquals(8, u.directories(), "the root, a, a/b, c, d, e, e/deep and e/deep/deeper");
        assertTrue(u.total().apparentBytes() > 10 * MIB, "the sparse file counts its full length as apparent size");
        assertTrue(u.total().allocatedBytes() < 2 * MIB, "but occupies only the blocks written");
    }

    @Test
    void everyDirectoryEqualsDuB(@TempDir Path root) throws IOException {
        build(root);
        DirectoryUsage u = system.directoryUsage(root, 100);
        Map<Path, Long> du = new HashMap<>();
        for (String line : Commands.run("du", "-b", root.toString()).split("\n")) {
            String[] f = line.split("\t", 2);
            du.put(Path.of(f[1]), Long.parseLong(f[0]));
        }
        assertEquals(du.size() - 1, u.largest().size(), "every directory below the root is listed");
        for (DirectoryTotal t : u.largest()) {
            Long expected = du.get(t.path());
            assertTrue(expected != null, t.path() + " not in du's output");
            // a/ and c/ share a hard link; which of them is charged depends on the order of the walk, as in du
            if (!t.path().equals(root.resolve("a")) && !t.path().equals(root.resolve("c"))) {
                assertEquals((long) expected, t.apparentBytes(), t.path().toString());
            }
        }
        long a = total(u, root.resolve("a"));
        long c = total(u, root.resolve("c"));
        assertEquals(du.get(root.resolve("a")) + du.get(root.resolve("c")), a + c, "together a and c match du");
        assertEquals(4096 + 123456, total(u, root.resolve("a/b")), "the hard link within a/b counts once");
    }

    private static long total(DirectoryUsage u, Path p) {
        return u.largest().stream().filter(t -> t.path().equals(p)).findFirst().orElseThrow().apparentBytes();
    }

    @Test
    void largestDirectoriesComeFirstAndTopNIsHonoured(@TempDir Path root) throws IOException {
        build(root);
        DirectoryUsage u = system.directoryUsage(root, 2);
        assertEquals(2, u.largest().size());
        assertTrue(u.largest().get(0).allocatedBytes() >= u.largest().get(1).allocatedBytes());
        DirectoryUsage all = system.directoryUsage(root, 100);
        long third = all.largest().get(2).allocatedBytes();
        assertTrue(u.largest().get(1).allocatedBytes() >= third);
        assertEquals(0, system.directoryUsage(root, 0).largest().size());
    }

    @Test
    void anotherFileSystemMountedBelowIsNotEntered(@TempDir Path root) throws IOException {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a tmpfs");
        build(root);
        Path mnt = root.resolve("d/mnt");
        Files.createDirectories(mnt);
        Commands.run("mount", "-t", "tmpfs", "-o", "size=16m", "procscope-du", mnt.toString());
        try {
            Files.write(mnt.resolve("inside"), new byte[3 * (int) MIB]);
            DirectoryUsage u = system.directoryUsage(root, 100);
            assertEquals(List.of(mnt), u.otherFileSystems());
            long duX = Long.parseLong(Commands.run("du", "-sbx", root.toString()).split("\t")[0]);
            assertEquals(duX, u.total().apparentBytes());
        } finally {
            Commands.run("umount", mnt.toString());
        }
    }

    @Test
    void badArgumentsGetClearErrors(@TempDir Path root) throws IOException {
        ProcscopeException e = assertThrows(ProcscopeException.class,
                () -> system.directoryUsage(root.resolve("missing"), 5));
        assertTrue(e.getMessage().contains("missing") && e.getMessage().contains("ENOENT"), e.getMessage());
        Path file = Files.write(root.resolve("file"), new byte[1]);
        e = assertThrows(ProcscopeException.class, () -> system.directoryUsage(file, 5));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> system.directoryUsage(root, -1));
    }
}
