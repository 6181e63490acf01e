package io.github.procscope.cli;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every subcommand's JSON on the fixture machine ({@link MachineFixture}), against golden files: the field
 * names scripts rely on, the units (bytes, seconds, ISO-8601 instants), absent facts as null, and the numbers the
 * fixture's files imply, each worked out from the kernel's formats (see the comments).
 */
class FixtureGoldenTest {
    private MachineFixture m;
    private Golden golden;

    @BeforeEach
    void fixture() {
        ProcessTable live = Procscope.system().processes();
        org.junit.jupiter.api.Assumptions.assumeTrue(live.pageSizeBytes() == 4096 && live.clockTicksPerSecond() == 100,
                "the fixture machine's figures are in 4 KiB pages and 100 Hz clock ticks, as on x86-64");
        m = MachineFixture.create();
        golden = new Golden().replacing(m.root().toString(), "<fixture>").owner(m.proc().resolve("1"));
    }

    @AfterEach
    void clean() {
        m.close();
    }

    private CliRun run(String... args) {
        List<String> all = new ArrayList<>(List.of("--procfs-root", m.proc().toString(), "--sysfs-root",
                m.sys().toString(), "--json"));
        all.addAll(List.of(args));
        CliRun r = CliRun.of(all.toArray(new String[0]));
        assertEquals(0, r.status(), String.join(" ", args) + ": " + r.err());
        assertEquals("", r.err(), "nothing on stderr");
        return r;
    }

    @Test
    void overview() throws Exception {
        NvmlDouble.trainingNode();
        // 11 processes; the top five by RSS: 4100 (494985 pages of 4 KiB), the two workers, the ghost, systemd.
        // doctor with a zero window finds the zombie 4103, the idle orphans 4200 and 5000 (older than 10 min),
        // and the terminal processes that die on hang-up.
        NvmlDouble.with(NvmlDouble.library(), () -> golden.assertMatches("overview", run().out()));
        NvmlDouble.assertClosed();
    }

    @Test
    void ps() {
        // 4100: starttime 8100000 ticks after btime 2026-01-01T00:00:00Z -> 22:30:00Z; uptime 100000 s -> elapsed
        // 19000 s; utime+stime 1560000 ticks = 15600 s of CPU -> 82.1% over its life.
        golden.assertMatches("ps", run("ps").out());
        golden.assertMatches("ps-by-user", run("ps", "--by-user").out());
        golden.assertMatches("ps-zombies", run("ps", "--state", "Z").out());
        // 4200 is in a burstable pod's containerd container, 5000 in a Docker container (fixture cgroup files)
        golden.assertMatches("ps-by-pod", run("ps", "--by-pod").out());
        golden.assertMatches("ps-by-container", run("ps", "--by-container").out());
    }

    @Test
    void treeAndThreads() {
        golden.assertMatches("tree-900", run("tree", "900").out());
        golden.assertMatches("threads-4100", run("threads", "4100").out());
    }

    @Test
    void maps() {
        // smaps_rollup: Rss 1979940 kB, Pss 1946010 kB, Private_Clean 20000 + Private_Dirty 1891484 kB = USS,
        // Swap 1024 kB; VSZ from stat field 23, the regions' sum without [vsyscall].
        golden.assertMatches("maps-4100", run("maps", "4100").out());
    }

    @Test
    void fds() {
        // fd 7 is a real file of the fixture (24000 bytes); fd 6 a deleted path that cannot be examined here.
        golden.assertMatches("fds-4100", run("fds", "4100").out());
    }

    @Test
    void deleted() throws IOException {
        // A deleted file really held open (by this JVM), reached through the ghost's descriptor 9: the scan stats
        // through the link and finds a regular file with no name left.
        Path file = Files.createTempFile(m.root(), "old-checkpoint", ".pt");
        byte[] data = new byte[1 << 20];
        new Random(7).nextBytes(data);
        Files.write(file, data);
        RandomAccessFile held = new RandomAccessFile(file.toFile(), "r");
        try {
            Files.delete(file);
            long fd = heldDescriptor(file);
            MachineFixture.link(m.proc().resolve("4200/fd"), 9, "/proc/" + ProcessHandle.current().pid() + "/fd/" + fd);
            golden.replacing("/proc/" + ProcessHandle.current().pid() + "/fd/" + fd, "<held>");
            golden.assertMatches("deleted", run("deleted").out());
        } finally {
            held.close();
        }
    }

    /** @return the descriptor number by which this JVM holds the (deleted) file */
    private static long heldDescriptor(Path file) throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.readSymbolicLink(p).toString().equals(file + " (deleted)")) {
                        return Long.parseLong(p.getFileName().toString());
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        throw new AssertionError("this JVM does not hold " + file);
    }

    @Test
    void free() {
        // meminfo: used = MemTotal - MemAvailable; cachedBytes = Cached + SReclaimable, as free computes them.
        golden.assertMatches("free", run("free").out());
    }

    @Test
    void iostatSinceBoot() {
        // nvme0n1: 1523400 reads over 100000 s of uptime = 15.23 r/s; 198765432 sectors / 2 / 100000 = 993.83 kB/s;
        // 812345 ms / 1523400 reads = 0.53 ms r_await; io_ticks 2345678 ms = 2.35% util. loop0 never did I/O.
        golden.assertMatches("iostat", run("iostat").out());
        String all = run("iostat", "--all").out();
        assertTrue(all.contains("\"loop0\""), all);
    }

    @Test
    void signals() {
        golden.assertMatches("signals-4100", run("signals", "4100").out());
        golden.assertMatches("signals-5000", run("signals", "5000").out());
    }

    @Test
    void gpu() throws Exception {
        NvmlDouble.trainingNode();
        NvmlDouble.with(NvmlDouble.library(), () -> golden.assertMatches("gpu", run("gpu").out()));
        NvmlDouble.assertClosed();
    }

    @Test
    void watchRows() throws Exception {
        NvmlDouble.trainingNode();
        // The tree of 4100: itself, two workers and the zombie; 3 + 1 + 1 + 1 threads; RSS 1979940 + 524288 +
        // 524000 KiB; GPU memory 2 GiB (4100 on GPU 0; the ghost 4200 is not in the tree). A fixture does not
        // change between readings, so the CPU over each interval is unknown: null.
        NvmlDouble.with(NvmlDouble.library(), () -> golden.assertLinesMatch("watch-4100",
                run("watch", "4100", "--count", "2", "--interval", "10ms").out()));
        NvmlDouble.assertClosed();
    }

    @Test
    void dfAndDuOnASizedTmpfs() throws Exception {
        Path mnt = Files.createDirectory(m.root().resolve("mnt"));
        assumeTrue(mounted("mount", "-t", "tmpfs", "-o", "size=8m,nr_inodes=64", "scratch", mnt.toString()),
                "mounting a tmpfs needs root (CAP_SYS_ADMIN)");
        try {
            // du: 1 MiB + 64 KiB + 10 KiB (12 KiB allocated: tmpfs allocates whole pages); the apparent sizes add
            // the directories' own sizes (tmpfs: 40 bytes plus 20 per entry). Hard links are counted once by the
            // library's walk (its own test); which directory gets a linked file is not fixed, so none is here.
            Files.createDirectories(mnt.resolve("a/b"));
            Files.createDirectories(mnt.resolve("c"));
            Files.write(mnt.resolve("a/weights.bin"), new byte[1 << 20]);
            Files.write(mnt.resolve("a/b/part.bin"), new byte[64 << 10]);
            Files.write(mnt.resolve("c/log.txt"), new byte[10 << 10]);
            golden.assertMatches("du", run("du", mnt.toString(), "--top", "3").out());

            // df: the fixture's mountinfo names this tmpfs (8 MiB, 64 inodes: 7 used by the root, 3 directories and
            // 3 files), /proc (a pseudo file system without blocks: left out, and with --all its use% is null)
            // and a mount point that does not exist (left out, as df leaves out what it cannot examine).
            Files.writeString(m.proc().resolve("self/mountinfo"), ""
                    + "22 27 0:21 / /proc rw,relatime shared:12 - proc proc rw\n"
                    + "27 1 259:1 / /nonexistent/data rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw\n"
                    + "40 27 0:99 / " + mnt + " rw,relatime shared:20 - tmpfs scratch rw,size=8192k,nr_inodes=64\n");
            golden.assertMatches("df", run("df").out());
            golden.assertMatches("df-all", run("df", "--all").out());
        } finally {
            assertTrue(mounted("umount", mnt.toString()), "unmounted " + mnt);
        }
    }

    /** @return whether the (u)mount command succeeded */
    private static boolean mounted(String... command) throws IOException, InterruptedException {
        if (!Commands.available(command[0])) {
            return false;
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor() == 0;
    }
}
