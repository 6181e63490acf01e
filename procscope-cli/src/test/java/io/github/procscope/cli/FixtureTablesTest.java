package io.github.procscope.cli;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The human tables of every subcommand on the fixture machine: what a person reads, within 80 columns. */
class FixtureTablesTest {
    private static MachineFixture m;

    @BeforeAll
    static void fixture() {
        ProcessTable live = Procscope.system().processes();
        org.junit.jupiter.api.Assumptions.assumeTrue(live.pageSizeBytes() == 4096 && live.clockTicksPerSecond() == 100,
                "the fixture machine's figures are in 4 KiB pages and 100 Hz clock ticks, as on x86-64");
        m = MachineFixture.create();
    }

    @AfterAll
    static void clean() {
        m.close();
    }

    private static String table(String... args) {
        List<String> all = new ArrayList<>(List.of("--procfs-root", m.proc().toString(), "--sysfs-root", m.sys().toString()));
        all.addAll(List.of(args));
        CliRun r = CliRun.of(all.toArray(new String[0]));
        assertEquals(0, r.status(), String.join(" ", args) + ": " + r.err());
        boolean json = all.contains("--json");
        for (String line : r.out().split("\n")) {
            // A table fits 80 columns; JSON holds whole values (cgroup paths run long).
            assertTrue(json || line.length() <= 80, String.join(" ", args) + ": wider than 80 columns: '" + line + "'");
            assertTrue(line.chars().noneMatch(c -> c < 0x20 && c != '\t'), "no raw control characters: " + line);
        }
        return r.out();
    }

    @Test
    void everyTableFitsEightyColumns() {
        for (List<String> args : List.of(List.<String>of(), List.of("ps"), List.of("ps", "--by-user"), List.of("ps", "--by-pod"),
                List.of("ps", "--by-container"), List.of("tree"), List.of("tree", "1"),
                List.of("threads", "4100"), List.of("maps", "4100"), List.of("fds", "4100"), List.of("deleted"),
                List.of("free"), List.of("df", "--all"), List.of("iostat"), List.of("signals", "4100"),
                List.of("signals", "5100"))) {
            table(args.toArray(new String[0]));
        }
    }

    @Test
    void psShowsStatFlagsAndKibLikePs() {
        String out = table("ps", "--sort", "-rss");
        List<String> lines = out.lines().toList();
        // USER is as wide as the fixture's owner's name (whoever runs the tests)
        // OWNER appears because some processes belong to a Slurm job, a pod or a container; the last column, COMMAND,
        // is cut at 80 columns
        assertEquals("  PID  PPID USER STAT     RSS      VSZ NLWP    ELAPSED %CPU OWNER        COMMAND",
                lines.get(0).replaceAll("USER\\s+STAT", "USER STAT"));
        assertTrue(lines.get(1).matches(" 4100\\s+900 \\S+\\s+Rl\\+\\s+1979940 31641228\\s+3\\s+05:16:40 82\\.1 slurm:4711\\.0 python3"),
                lines.get(1));
        assertTrue(out.contains("a) (b c"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*4103\\s+4100 \\S+\\s+Z\\+\\s+0\\s+0\\s+1\\s+05:16:34\\s+0\\.0 slurm:4711\\.0 pt_data\\S*")),
                out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*4200\\s+1 .* pod:0b7e6f5a pt_data\\S*")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*5000\\s+1 .* dkr:9d8c7b6a long_jo\\S*")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*850\\s+1 .* - {12}sshd")), "a systemd unit alone is no OWNER");
    }

    @Test
    void psGroupsByPodAndByContainer() {
        String pods = table("ps", "--by-pod");
        assertTrue(pods.lines().anyMatch(l -> l.matches("0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b Burstable\\s+1 256M")), pods);
        assertTrue(pods.lines().anyMatch(l -> l.matches("-\\s+-\\s+10 2\\.9G")), "the rest outside pods: " + pods);
        String ctrs = table("ps", "--by-container");
        assertTrue(ctrs.lines().anyMatch(l -> l.matches("3f4e5d6c7b8a containerd 0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b\\s+1 256M")),
                ctrs);
        assertTrue(ctrs.lines().anyMatch(l -> l.matches("9d8c7b6a5f4e docker\\s+-\\s+1 3\\.5M")), ctrs);
        CliRun both = CliRun.of("--procfs-root", m.proc().toString(), "ps", "--by-pod", "--by-user");
        assertEquals(2, both.status(), both.err());
        assertTrue(both.err().contains("cannot be combined"), both.err());
    }

    @Test
    void treeLabelsAnOwnerWhereItChanges() {
        String out = table("tree", "1");
        assertTrue(out.lines().anyMatch(l -> l.matches(".*-- 4100 python3 \\[R] .*  slurm:4711\\.0")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches(".*-- 4101 pt_data_worker \\[S] rss 512M subtree 512M")),
                "a child in its parent's job is not labelled again: " + out);
        assertTrue(out.lines().anyMatch(l -> l.matches(".*-- 4200 pt_data_worker .*  pod:0b7e6f5a")), out);
    }

    @Test
    void mapsEndsWithTotalsInWords() {
        String out = table("maps", "4100");
        assertTrue(out.contains("torch_4100_1958370342_0 (deleted)"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("total kB\\s+31641232\\s+1979940\\s+1957020")), out);
        assertTrue(out.contains("VSZ 30.2G  RSS 1.9G  PSS 1.9G  USS 1.8G  swap 1.0M"), out);
    }

    @Test
    void fdsUsesLsofsTypesAndModes() {
        String out = table("fds", "4100");
        // the target, last, is cut at 80 columns, its start replaced by "...", when the fixture lies deep in a
        // temporary directory
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*7w REG\\s+24000\\s+1234 APPEND,CLOEXEC\\s+(/|\\.\\.\\.)\\S+")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*3u SOCK\\s+-\\s+0 CLOEXEC\\s+socket:\\[81234]")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*0u CHR\\s+-\\s+0 -\\s+/dev/null")), out);
        assertTrue(out.contains("/data/ckpt/step-1000.pt (deleted)"), out);
    }

    @Test
    void freeAndDfReadLikeTheirTools() {
        String free = table("free");
        assertTrue(free.lines().anyMatch(l -> l.matches("Mem:\\s+62\\.8G\\s+22\\.8G\\s+3\\.0G\\s+1\\.5G\\s+37\\.5G\\s+40\\.0G")), free);
        assertTrue(free.lines().anyMatch(l -> l.matches("Swap:\\s+8\\.0G\\s+256M\\s+7\\.7G")), free);
        String df = table("df", "--all", "--inodes");
        assertTrue(df.startsWith("Filesystem"), df);
    }

    @Test
    void theOverviewNamesTheProblemsDoctorWouldReport() {
        String out = table();
        assertTrue(out.startsWith("gpu-node-7, up 1 day 3 h, load 2.15 1.98 1.50 (1, 5, 15 min)\n"), out);
        assertTrue(out.contains("memory: 40.0G available of 62.8G (64%), swap 256M used of 8.0G"), out);
        assertTrue(out.contains("11 processes (1 in state R), 3 runnable task(s), 1 zombie(s)"), out);
        assertTrue(out.contains("doctor: 3 problem(s) (HANGUP_VULNERABLE, ORPHAN, ZOMBIE)"), out);
    }

    @Test
    void theLiveLineRewritesItselfWithASparkline() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        int status = ProcscopeCli.run(new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true, 80,
                "--procfs-root", m.proc().toString(), "watch", "4100", "--count", "3", "--interval", "10ms");
        assertEquals(0, status);
        String out = o.toString(StandardCharsets.UTF_8);
        assertEquals(3, out.chars().filter(c -> c == '\r').count(), "one carriage return per update: " + out);
        assertTrue(out.contains("\u001b[K"), "each update clears the rest of the line");
        assertTrue(out.contains("4100 python3 slurm:4711.0  rss 2.9G \u2581\u2581\u2581 +0B  cpu -  thr 6  procs 4"), out);
        // The span is the clock's between the first and last sample: 20 ms asked, more on a loaded machine.
        assertTrue(out.matches("(?s).*RSS 2\\.9G -> 2\\.9G \\(\\+0B\\) over \\d\\d:\\d\\d\n"), out);
    }

    @Test
    void theSparklineScalesBetweenTheSmallestAndLargestValue() {
        assertEquals("\u2581\u2585\u2588", WatchCommand.sparkline(List.of(100L, 150L, 200L)), "3.5 of 7 steps rounds up");
        assertEquals("\u2581\u2581", WatchCommand.sparkline(List.of(7L, 7L)));
        assertEquals("", WatchCommand.sparkline(new ArrayDeque<>()));
        assertEquals("\u2588\u2581\u2583", WatchCommand.sparkline(List.of(90L, 20L, 40L)));
        assertEquals("-1.0K", WatchCommand.signedBytes(-1024));
        assertEquals("+0B", WatchCommand.signedBytes(0));
    }

    @Test
    void anEmptyPsListingHasTheHeaderOfAFullOne() {
        String none = table("ps", "--state", "D");
        assertEquals("  PID  PPID USER STAT    RSS     VSZ NLWP  ELAPSED %CPU COMMAND", none.lines().findFirst().orElseThrow(), "columns as wide as ps makes them, though no row fills them");
    }

    @Test
    void statShowsLockedPagesInProcpsOrder() throws Exception {
        try (MachineFixture locked = MachineFixture.create()) {
            java.nio.file.Path status = locked.proc().resolve("4101/status");
            java.nio.file.Files.writeString(status, java.nio.file.Files.readString(status)
                    .replace("VmLck:\t       0 kB", "VmLck:\t    2048 kB"));
            CliRun r = CliRun.of("--procfs-root", locked.proc().toString(), "ps", "--pid", "4100,4101");
            assertEquals(0, r.status(), r.err());
            List<String> stats = r.out().lines().skip(1).map(l -> l.strip().split("\\s+")[3]).toList();
            // 4101: sleeping, pages locked, in its terminal's foreground group (ps prints < or N, L, s, l, +)
            assertEquals(List.of("Rl+", "SL+"), stats, r.out());
        }
    }

    @Test
    void doctorWrapsItsFindingsWithin80Columns() {
        CliRun r = CliRun.of("--procfs-root", m.proc().toString(), "--sysfs-root", m.sys().toString(), "doctor",
                "--no-gpu", "--window", "0s");
        assertTrue(r.out().contains("ORPHAN"), r.out());
        for (String line : r.out().split("\n")) {
            assertTrue(line.length() <= 80, "wider than 80 columns: '" + line + "'");
        }
    }

    @Test
    void aCutPathKeepsItsEndAndShowsTheCut() {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        new Table().right("PID").left("PATH").row(42, "/very/long/" + "directory/".repeat(12) + "model.ckpt")
                .print(new java.io.PrintStream(o, true, java.nio.charset.StandardCharsets.UTF_8), 80);
        String row = o.toString(java.nio.charset.StandardCharsets.UTF_8).lines().skip(1).findFirst().orElseThrow();
        assertEquals(80, row.length(), row);
        assertTrue(row.startsWith(" 42 ...") && row.endsWith("/model.ckpt"), row);
    }

    @Test
    void topLevelHelpGivesEachCommandOneWholeLine() {
        String help = CliRun.of("--help").out();
        String commands = help.substring(help.indexOf("Commands:"), help.indexOf("Examples:"));
        for (String line : commands.lines().skip(1).toList()) {
            assertTrue(line.isBlank() || (line.matches("  \\S.*") && line.endsWith(".")),
                    "a summary cut mid-sentence: '" + line + "'");
        }
    }

    @Test
    void psJsonGivesTheUidAsUserWhenNoNameExists() throws Exception {
        String json = table("--json", "ps");
        com.fasterxml.jackson.databind.JsonNode arr = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json)
                .get("processes");
        assertTrue(arr.size() > 0, json);
        for (com.fasterxml.jackson.databind.JsonNode p : arr) {
            assertTrue(p.get("user").isTextual(), p.toString());
        }
    }
}
