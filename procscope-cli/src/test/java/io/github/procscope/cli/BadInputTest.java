package io.github.procscope.cli;

import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Bad input, subcommand by subcommand: one clear line on stderr that starts with {@code procscope}, no stack
 * trace, and the exit status the tool documents (2 bad usage, 1 target missing or unreadable).
 */
class BadInputTest {
    /** Every subcommand but {@code help}, each with arguments that make it valid. */
    static final List<List<String>> SUBCOMMANDS = List.of(List.of("ps"), List.of("tree"), List.of("threads", "1"),
            List.of("maps", "1"), List.of("fds", "1"), List.of("deleted"), List.of("free"), List.of("df"),
            List.of("du", "/"), List.of("iostat"), List.of("signals", "1"), List.of("stop", "1"), List.of("gpu"),
            List.of("watch", "1"), List.of("demo-train"), List.of("doctor"));

    private static MachineFixture m;
    private static long missingPid;

    @BeforeAll
    static void fixture() throws Exception {
        m = MachineFixture.create();
        long pidMax;
        // One read(2) with room for the whole value: a sysctl file read in small pieces ends after the first.
        try (var in = Files.newInputStream(Path.of("/proc/sys/kernel/pid_max"))) {
            pidMax = Long.parseLong(new String(in.readNBytes(32), StandardCharsets.US_ASCII).strip());
        }
        missingPid = pidMax - 1;
        while (Files.exists(Path.of("/proc", Long.toString(missingPid)))) {
            missingPid--;
        }
    }

    @AfterAll
    static void clean() {
        m.close();
    }

    @Test
    void aPidThatDoesNotExistIsStatusOne() {
        String pid = Long.toString(missingPid);
        for (String cmd : List.of("threads", "maps", "fds", "signals", "stop", "watch", "tree")) {
            CliRun r = bad(1, cmd, pid);
            assertTrue(r.err().contains(pid), cmd + " names the pid: " + r.err());
        }
        bad(1, "ps", "--pid", pid);
        bad(1, "--procfs-root", m.proc().toString(), "maps", "4242");
    }

    @Test
    void pidZeroNegativeOrTooLargeIsBadUsage() {
        for (String cmd : List.of("threads", "maps", "fds", "signals", "stop", "watch", "tree")) {
            bad(2, cmd, "0");
            bad(2, cmd, "--", "-1");
            bad(2, cmd, "99999999999");
        }
        bad(2, "ps", "--pid", "0");
    }

    @Test
    void textWhereANumberGoesIsBadUsage() {
        for (String cmd : List.of("threads", "maps", "fds", "signals", "stop", "watch", "tree")) {
            CliRun r = bad(2, cmd, "abc");
            assertTrue(r.err().contains("'abc' is not a pid"), r.err());
        }
        bad(2, "ps", "--pid", "12,x");
        bad(2, "watch", "1", "--count", "many");
        bad(2, "du", "/", "--top", "ten");
        bad(2, "iostat", "1", "two");
        bad(2, "demo-train", "--checkpoint", "x.ckpt", "--steps", "ten", "--step-ms", "5");
    }

    @Test
    void malformedDurationsAreBadUsage() {
        assertTrue(bad(2, "watch", "1", "--interval", "soon").err().contains("not a duration"));
        assertTrue(bad(2, "stop", "1", "--grace", "5 parsecs").err().contains("not a duration"));
        assertTrue(bad(2, "iostat", "fast").err().contains("not a duration"));
        assertTrue(bad(2, "gpu", "--watch", "-1s").err().contains("negative"));
        assertTrue(bad(2, "doctor", "--window", "PT").err().contains("not a duration"));
        bad(2, "watch", "1", "--interval", "0s");
        bad(2, "iostat", "5ms");
    }

    @Test
    void unknownSubcommandsAndOptionsAreBadUsage() {
        assertTrue(bad(2, "nosuchcommand").err().contains("unknown subcommand 'nosuchcommand'"));
        bad(2, "ps", "--no-such-option");
        bad(2, "ps", "--sort", "bogus");
        bad(2, "ps", "--state", "Q");
        bad(2, "stop", "1", "--signal", "BOGUS");
        bad(2, "--json", "iostat", "1");
        bad(2, "du", "/", "--top", "-1");
        bad(2, "demo-train", "--checkpoint", "x.ckpt", "--steps", "0", "--step-ms", "5");
        bad(2, "demo-train", "--steps", "3");
        bad(2, "maps");
    }

    @Test
    void aProcfsRootThatIsMissingOrNoProcfsIsBadUsageForEverySubcommand() {
        for (List<String> sub : SUBCOMMANDS) {
            if (sub.get(0).equals("demo-train")) {
                continue; // reads no procfs
            }
            String[] missing = concat(List.of("--procfs-root", "/nonexistent/proc"), sub);
            assertTrue(bad(2, missing).err().contains("/nonexistent/proc"), String.join(" ", missing));
            bad(2, concat(List.of("--procfs-root", "/etc"), sub));
        }
        bad(2, "--procfs-root", "/etc");
        bad(2, "--sysfs-root", "/nonexistent/sys", "free");
    }

    @Test
    void signalsAreNotSentThroughAFixtureTree() {
        CliRun r = bad(2, "--procfs-root", m.proc().toString(), "stop", "4100");
        assertTrue(r.err().contains("--procfs-root"), r.err());
        bad(2, "stop", Long.toString(ProcessHandle.current().pid())); // this JVM: refused, nothing sent
        bad(2, "stop", "1", "--signal", "KILL"); // the first signal must be one a process can handle
    }

    @Test
    void missingPathsAreStatusOne() {
        assertTrue(bad(1, "du", "/nonexistent/dir").err().contains("/nonexistent/dir"));
        assertTrue(bad(1, "df", "/nonexistent/dir").err().contains("/nonexistent/dir"));
        bad(1, "--procfs-root", m.proc().toString(), "maps", "4101"); // the fixture has no smaps for it
    }

    @Test
    void everySubcommandHasHelpWithAnExample() {
        java.io.PrintStream systemErr = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(warnings, true, StandardCharsets.UTF_8)); // where picocli warns
        try {
            for (List<String> sub : SUBCOMMANDS) {
                warnings.reset();
                help(sub);
                if (!sub.get(0).equals("doctor")) { // doctor's option texts are outside this module's part
                    assertEquals("", warnings.toString(StandardCharsets.UTF_8), sub + ": a stray % in a description?");
                }
            }
        } finally {
            System.setErr(systemErr);
        }
        CliRun root = CliRun.of("--help");
        assertEquals("", root.err());
        for (String line : root.out().split("\n")) {
            assertTrue(line.length() <= 80, "help line wider than 80 columns: " + line);
        }
        for (List<String> sub : SUBCOMMANDS) {
            assertTrue(root.out().contains("  " + sub.get(0)), "--help lists " + sub.get(0));
        }
    }

    private static void help(List<String> sub) {
        CliRun r = CliRun.of(sub.get(0), "--help");
        assertEquals(0, r.status(), sub + ": " + r.err());
        assertTrue(r.out().contains("Example"), sub + " --help shows an example:\n" + r.out());
        assertTrue(r.out().contains("procscope " + sub.get(0)), r.out());
        assertEquals("", r.err());
        if (!sub.get(0).equals("doctor")) {
            for (String line : r.out().split("\n")) {
                assertTrue(line.length() <= 80, sub + " help line wider than 80 columns: " + line);
            }
        }
    }

    @Test
    void anotherUsersProcessIsUnreadableWithStatusOne() throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv to run the tool as nobody");
        Process p = Unprivileged.java(ProcscopeCli.class, "maps", "1").redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), out + err);
        GpuCommandTest.assertOneLine(err);
        assertTrue(err.startsWith("procscope maps: ") && err.contains("1"), err);
    }

    private static String[] concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toArray(String[]::new);
    }

    private static CliRun bad(int status, String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(status, r.status(), String.join(" ", args) + " -> " + r.err() + r.out());
        String err = r.err().strip();
        assertFalse(err.isEmpty(), "says why: " + String.join(" ", args));
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertFalse(err.contains("\tat ") || err.contains("Exception"), "no stack trace or exception name: " + err);
        assertTrue(err.startsWith("procscope"), err);
        return r;
    }
}
