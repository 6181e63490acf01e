package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A system-wide kernel file that is not what the kernel writes — a FIFO (which would block a reader), a device
 * such as {@code /dev/zero} (which never ends), a file far larger than the kernel makes, or malformed text — is one
 * line on stderr and exit status 4 (malformed kernel data), in every command that reads it; never a stack trace,
 * never a hang. {@code stat} and {@code uptime} are read by every command (they tell a procfs root from any
 * directory); {@code meminfo}, {@code diskstats} and {@code self/mountinfo} by the commands that show them.
 */
class HostileSystemFilesTest {
    /** Every command that reads the root, each with arguments that make it valid on the fixture machine. */
    private static final List<List<String>> EVERY_COMMAND = List.of(List.of(), List.of("ps"), List.of("tree"),
            List.of("threads", "4100"), List.of("maps", "4100"), List.of("fds", "4100"), List.of("deleted"),
            List.of("free"), List.of("df"), List.of("iostat"), List.of("signals", "4100"), List.of("stop", "4100"),
            List.of("doctor", "--no-gpu"), List.of("watch", "4100", "--count", "1"), List.of("events", "--count", "1"),
            List.of("jobs"), List.of("gpu"));

    /** The hostile kinds of file, each put in place of a kernel file. */
    enum Kind {
        FIFO, DEVICE, HUGE, MALFORMED
    }

    /**
     * Puts a hostile file of {@code kind} in place of {@code file}.
     *
     * @return false where it cannot be made here (a device node needs root)
     */
    private static boolean replace(Path file, Kind kind) throws IOException, InterruptedException {
        Files.delete(file);
        switch (kind) {
            case FIFO -> run("mkfifo", file.toString());
            case DEVICE -> {
                // /dev/zero's numbers: reading it never ends
                if (run("mknod", file.toString(), "c", "1", "5") != 0) {
                    return false;
                }
            }
            case HUGE -> {
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.setLength(100L << 20); // 100 MB of zeros, sparse
                }
            }
            case MALFORMED -> Files.writeString(file, "cpu  1 2 3\nbtime twelve\nctxt -4\n");
        }
        return true;
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end");
        }
        p.getInputStream().readAllBytes();
        return p.exitValue();
    }

    private static String[] args(Path proc, Path sys, List<String> command) {
        List<String> a = new ArrayList<>(List.of("--procfs-root", proc.toString(), "--sysfs-root", sys.toString()));
        a.addAll(command);
        return a.toArray(String[]::new);
    }

    /** Asserts one line on stderr naming the file, nothing on stdout, exit status 4. */
    private static void refusedInOneLine(Path file, CliRun r, String what) {
        assertEquals(ProcscopeCli.KERNEL_DATA, r.status(), what + ": " + r.err());
        assertEquals(1, r.err().lines().count(), what + ": " + r.err());
        assertTrue(r.err().startsWith("procscope"), what + ": " + r.err());
        assertTrue(r.err().contains(file.toString()), what + ": " + r.err());
        assertFalse(r.err().contains("\tat "), what + ": " + r.err());
        assertEquals("", r.out(), what);
    }

    @Test
    void aHostileStatOrUptimeIsOneLineAndExitFourInEveryCommand() throws Exception {
        for (String name : List.of("stat", "uptime")) {
            for (Kind kind : Kind.values()) {
                try (MachineFixture m = MachineFixture.create()) {
                    Path file = m.proc().resolve(name);
                    if (kind == Kind.MALFORMED && name.equals("uptime")) {
                        Files.delete(file);
                        Files.writeString(file, "-1.00 4.5\n");
                    } else if (!replace(file, kind)) {
                        continue;
                    }
                    for (List<String> command : EVERY_COMMAND) {
                        refusedInOneLine(file, CliRun.of(args(m.proc(), m.sys(), command)),
                                name + " as " + kind + ", command " + command);
                    }
                }
            }
        }
    }

    @Test
    void aHostileMeminfoDiskstatsOrMountinfoIsOneLineAndExitFourWhereItIsRead() throws Exception {
        List<List<String>> cases = List.of(List.of("meminfo", "free"), List.of("diskstats", "iostat"),
                List.of("self/mountinfo", "df"));
        for (List<String> c : cases) {
            for (Kind kind : Kind.values()) {
                try (MachineFixture m = MachineFixture.create()) {
                    Path file = m.proc().resolve(c.get(0));
                    if (kind == Kind.MALFORMED) {
                        Files.delete(file);
                        Files.writeString(file, "MemTotal: 18446744073709551615 kB\n8 0 sda x\n1 2 3:4 / / rw\n");
                    } else if (!replace(file, kind)) {
                        continue;
                    }
                    refusedInOneLine(file, CliRun.of(args(m.proc(), m.sys(), List.of(c.get(1)))),
                            c.get(0) + " as " + kind);
                }
            }
        }
    }
}
