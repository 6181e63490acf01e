package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcscopeCollectorFixtureTest {

    private static Exposition scrape(ExporterOptions options) {
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), options)) {
            return Exposition.of(c.collect());
        }
    }

    private static ExporterOptions options() {
        return ExporterOptions.defaults().withHostname("node-7");
    }

    @Test
    void groupsByCommandNameWithProcessExporterNames() {
        Exposition e = scrape(options());
        String g = "groupname=\"pt_data_worker\"";
        assertEquals(4, e.get("namedprocess_namegroup_num_procs{" + g + "}"));
        // 4101, 4102 and 4200 from statm's resident pages; the zombie 4103 has none.
        assertEquals((131_072 + 131_000 + 65_536) * Fixture.PAGE,
                e.get("namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"resident\"}"));
        assertEquals(3 * 5_242_880L * Fixture.PAGE + 0,
                e.get("namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"virtual\"}"));
        assertEquals(1, e.get("namedprocess_namegroup_states{" + g + ",state=\"Zombie\"}"));
        assertEquals(3, e.get("namedprocess_namegroup_states{" + g + ",state=\"Sleeping\"}"));
        assertEquals(0, e.get("namedprocess_namegroup_states{" + g + ",state=\"Running\"}"));
        assertEquals(1, e.get("namedprocess_namegroup_num_procs{groupname=\"python3\"}"));
        assertEquals(1, e.get("namedprocess_namegroup_states{groupname=\"python3\",state=\"Running\"}"));
        // Kernel threads form no group.
        assertEquals(0, e.count("namedprocess_namegroup_num_procs{groupname=\"kthreadd\"}"));
        // A command name with spaces and parentheses is a label value like any other.
        assertEquals(1, e.get("namedprocess_namegroup_num_procs{groupname=\"a) (b c\"}"));
    }

    @Test
    void cpuSecondsAreCountersWithModes() {
        Exposition e = scrape(options());
        // python3 4100: utime 1,500,000 and stime 60,000 ticks at 100 per second.
        assertEquals(15_000.0, e.get("namedprocess_namegroup_cpu_seconds_total{groupname=\"python3\",mode=\"user\"}"));
        assertEquals(600.0, e.get("namedprocess_namegroup_cpu_seconds_total{groupname=\"python3\",mode=\"system\"}"));
        assertTrue(e.text().contains("# TYPE namedprocess_namegroup_cpu_seconds_total counter"), e.text());
    }

    @Test
    void aZombieIsCountedUnderItsParent() {
        Exposition e = scrape(options());
        assertEquals(1, e.get("procscope_zombies{parent_comm=\"python3\",parent_pid=\"4100\"}"));
        assertEquals(1, e.get("procscope_zombie_processes"));
        assertEquals(1, e.count("procscope_zombies"));
    }

    @Test
    void aMatchedGroupWithNoProcessReportsZero() {
        ExporterOptions o = options().withGrouper(ProcessGrouper.matching(List.of(
                ProcessGrouper.Rule.parse("workers=pt_data_.*"),
                ProcessGrouper.Rule.parse("trainer=cmdline:train\\.py"),
                ProcessGrouper.Rule.parse("nothing=no-such-command"))));
        Exposition e = scrape(o);
        assertEquals(4, e.get("namedprocess_namegroup_num_procs{groupname=\"workers\"}"));
        assertEquals(0, e.get("namedprocess_namegroup_num_procs{groupname=\"nothing\"}"));
        assertEquals(0, e.get("namedprocess_namegroup_memory_bytes{groupname=\"nothing\",memtype=\"resident\"}"));
        assertEquals(0, e.get("namedprocess_namegroup_oldest_start_time_seconds{groupname=\"nothing\"}"));
        // Processes that match no rule are in no group.
        assertEquals(3, e.count("namedprocess_namegroup_num_procs"));
    }

    @Test
    void aGroupSeenOnceStaysAtZeroAndKeepsItsCpuWhenItsProcessesAreGone(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.at(proc, Fixture.root().resolve("sys")).processes()), options())) {
            Exposition first = Exposition.of(c.collect());
            assertEquals(1, first.get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            double cpu = first.get("namedprocess_namegroup_cpu_seconds_total{groupname=\"sshd\",mode=\"user\"}");
            assertEquals(3.0, cpu);
            delete(proc.resolve("850"));
            Exposition second = Exposition.of(c.collect());
            assertEquals(0, second.get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            assertEquals(0, second.get("namedprocess_namegroup_memory_bytes{groupname=\"sshd\",memtype=\"resident\"}"));
            // What the exited process used stays counted: the counter never goes down.
            assertEquals(cpu, second.get("namedprocess_namegroup_cpu_seconds_total{groupname=\"sshd\",mode=\"user\"}"));
            // The other groups are unchanged.
            assertEquals(4, second.get("namedprocess_namegroup_num_procs{groupname=\"pt_data_worker\"}"));
        }
    }

    /** A collector of a copy of the fixture machine whose group retention runs on the given clock. */
    private static ProcscopeCollector collector(Path proc, ExporterOptions options, long[] clockNanos) {
        return new ProcscopeCollector(MetricsSources.of(Procscope.at(proc, Fixture.root().resolve("sys")).processes()),
                options, line -> { }, () -> clockNanos[0]);
    }

    @Test
    void anEmptyGroupIsReportedAtZeroUntilTheRetentionHasPassedThenDroppedAndComesBackAsNew(@TempDir Path tmp)
            throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        long[] clock = {0};
        long s = 1_000_000_000L;
        String cpu = "namedprocess_namegroup_cpu_seconds_total{groupname=\"sshd\",mode=\"user\"}";
        try (ProcscopeCollector c = collector(proc, options().withGroupRetention(Duration.ofSeconds(60)), clock)) {
            assertEquals(3.0, Exposition.of(c.collect()).get(cpu));
            delete(proc.resolve("850"));
            clock[0] = 10 * s; // the first scrape that finds it empty: the retention counts from here
            Exposition empty = Exposition.of(c.collect());
            assertEquals(0, empty.get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            assertEquals(3.0, empty.get(cpu), "what it used stays counted while it is kept");
            clock[0] = 70 * s - 1;
            assertEquals(0, Exposition.of(c.collect()).get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            clock[0] = 70 * s;
            Exposition dropped = Exposition.of(c.collect());
            assertFalse(dropped.text().contains("groupname=\"sshd\""), dropped.text());
            assertEquals(4, dropped.get("namedprocess_namegroup_num_procs{groupname=\"pt_data_worker\"}"));
            // Back: a new group, whose counter starts from what its process has used (a reset for Prometheus,
            // whose series went stale when the group was dropped).
            copy(Fixture.root().resolve("proc/850"), proc.resolve("850"));
            clock[0] = 71 * s;
            Exposition back = Exposition.of(c.collect());
            assertEquals(1, back.get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            assertEquals(3.0, back.get(cpu));
        }
    }

    @Test
    void aRetentionOfZeroDropsAGroupAtTheFirstScrapeThatFindsItEmpty(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        long[] clock = {0};
        try (ProcscopeCollector c = collector(proc, options().withGroupRetention(Duration.ZERO), clock)) {
            assertEquals(1, Exposition.of(c.collect()).get("namedprocess_namegroup_num_procs{groupname=\"sshd\"}"));
            delete(proc.resolve("850"));
            Exposition e = Exposition.of(c.collect());
            assertFalse(e.text().contains("groupname=\"sshd\""), e.text());
        }
    }

    @Test
    void groupsOfRulesStayWhateverTheRetention(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        long[] clock = {0};
        ExporterOptions o = options().withGroupRetention(Duration.ZERO).withGrouper(ProcessGrouper.matching(List.of(
                ProcessGrouper.Rule.parse("login=sshd"), ProcessGrouper.Rule.parse("nothing=no-such-command"))));
        try (ProcscopeCollector c = collector(proc, o, clock)) {
            assertEquals(1, Exposition.of(c.collect()).get("namedprocess_namegroup_num_procs{groupname=\"login\"}"));
            delete(proc.resolve("850"));
            for (int i = 1; i <= 3; i++) {
                clock[0] = i * 3_600_000_000_000L;
                Exposition e = Exposition.of(c.collect());
                assertEquals(0, e.get("namedprocess_namegroup_num_procs{groupname=\"login\"}"));
                assertEquals(3.0, e.get("namedprocess_namegroup_cpu_seconds_total{groupname=\"login\",mode=\"user\"}"));
                assertEquals(0, e.get("namedprocess_namegroup_num_procs{groupname=\"nothing\"}"));
            }
        }
    }

    @Test
    void churnedNamesLeaveOnlyTheGroupsOfTheRetentionWindow(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        Path stat = proc.resolve("850/stat");
        String original = Files.readString(stat);
        long[] clock = {0};
        long s = 1_000_000_000L;
        try (ProcscopeCollector c = collector(proc, options().withGroupRetention(Duration.ofSeconds(10)), clock)) {
            Exposition start = Exposition.of(c.collect());
            long groups = start.count("namedprocess_namegroup_num_procs");
            long series = start.samples().size();
            // sshd 850 takes a new name at every scrape, one second apart: 1,000 names.
            for (int i = 0; i < 1_000; i++) {
                Files.writeString(stat, original.replace("(sshd)", "(churn" + i + ")"));
                clock[0] += s;
                Exposition e = Exposition.of(c.collect());
                assertEquals(1, e.get("namedprocess_namegroup_num_procs{groupname=\"churn" + i + "\"}"));
                // The fixture's groups (sshd among them, for its first 10 s), this name, and the empty names of the
                // last 10 s.
                assertTrue(e.count("namedprocess_namegroup_num_procs") <= groups + 11,
                        e.count("namedprocess_namegroup_num_procs") + " groups at name " + i);
            }
            Files.writeString(stat, original);
            clock[0] += s;
            assertEquals(0, Exposition.of(c.collect()).get("namedprocess_namegroup_num_procs{groupname=\"churn999\"}"));
            clock[0] += 10 * s;
            Exposition end = Exposition.of(c.collect());
            assertFalse(end.text().contains("churn"), end.text());
            assertEquals(groups, end.count("namedprocess_namegroup_num_procs"));
            assertEquals(series, end.samples().size(), end.text());
        }
    }

    private static void io(Path pidDir, long read, long written) throws IOException {
        Files.writeString(pidDir.resolve("io"), "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: " + read
                + "\nwrite_bytes: " + written + "\ncancelled_write_bytes: 0\n");
    }

    @Test
    void openDescriptorsAndStorageBytesAreSummedPerGroupAndTheBytesNeverGoDown(@TempDir Path tmp) throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        // Two DataLoader workers: 4101 holds 3 descriptors and has read 1 MiB, 4102 holds 5 and has written 2 MiB.
        for (int fd = 0; fd < 3; fd++) {
            Files.createDirectories(proc.resolve("4101/fd")).resolve(Integer.toString(fd)).toFile().createNewFile();
        }
        for (int fd = 0; fd < 5; fd++) {
            Files.createDirectories(proc.resolve("4102/fd")).resolve(Integer.toString(fd)).toFile().createNewFile();
        }
        io(proc.resolve("4101"), 1 << 20, 0);
        io(proc.resolve("4102"), 0, 2 << 20);
        String g = "groupname=\"pt_data_worker\"";
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.at(proc, Fixture.root().resolve("sys")).processes()), options())) {
            Exposition first = Exposition.of(c.collect());
            assertEquals(8, first.get("namedprocess_namegroup_open_filedesc{" + g + "}"));
            assertEquals(1 << 20, first.get("namedprocess_namegroup_read_bytes_total{" + g + "}"));
            assertEquals(2 << 20, first.get("namedprocess_namegroup_write_bytes_total{" + g + "}"));
            assertEquals(0, first.get("namedprocess_namegroup_open_filedesc{groupname=\"sshd\"}"),
                    "no fd directory to list: nothing counted");
            assertTrue(first.text().contains("# TYPE namedprocess_namegroup_read_bytes_total counter"), first.text());

            io(proc.resolve("4102"), 0, 3 << 20); // 1 MiB more
            Files.delete(proc.resolve("4102/fd/4"));
            delete(proc.resolve("4101")); // exits: what it read stays counted
            Exposition second = Exposition.of(c.collect());
            assertEquals(4, second.get("namedprocess_namegroup_open_filedesc{" + g + "}"));
            assertEquals(1 << 20, second.get("namedprocess_namegroup_read_bytes_total{" + g + "}"));
            assertEquals(3 << 20, second.get("namedprocess_namegroup_write_bytes_total{" + g + "}"));
        }
    }

    @Test
    void processExporterFamiliesContextSwitchesSwapFdRatioProportionalMemoryAndThreads(@TempDir Path tmp)
            throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        // python3 4100: 3 descriptors under a soft limit of 4; its thread pt_autograd_0 sleeps in a futex and
        // has written 8 KiB; its thread pin_memory runs (wchan 0).
        for (int fd = 0; fd < 3; fd++) {
            Files.createDirectories(proc.resolve("4100/fd")).resolve(Integer.toString(fd)).toFile().createNewFile();
        }
        Files.writeString(proc.resolve("4100/limits"), String.format("%-25s %-20s %-20s %-10s%n", "Limit",
                "Soft Limit", "Hard Limit", "Units") + String.format("%-25s %-20s %-20s %-10s%n", "Max open files",
                "4", "4096", "files"));
        Files.writeString(proc.resolve("4100/task/4104/wchan"), "futex_wait_queue");
        Files.writeString(proc.resolve("4100/task/4105/wchan"), "0");
        io(proc.resolve("4100/task/4104"), 0, 8192);
        Path autograd = proc.resolve("4100/task/4104/status");
        Files.writeString(autograd, Files.readString(autograd).replace("voluntary_ctxt_switches:\t1500",
                "voluntary_ctxt_switches:\t2000"));
        var scope = Procscope.at(proc, Fixture.root().resolve("sys"));
        String g = "groupname=\"python3\"";
        ExporterOptions o = options().withThreads(true).withGatherSmaps(true);
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(scope.processes())
                .withMemory(scope.memory()), o)) {
            Exposition e = Exposition.of(c.collect());
            // A process's context switches are its threads' summed (its status has its main thread's only).
            assertEquals(1500 + 2000 + 1500, e.get("namedprocess_namegroup_context_switches_total{"
                    + "ctxswitchtype=\"voluntary\"," + g + "}"));
            assertEquals(3 * 40, e.get("namedprocess_namegroup_context_switches_total{ctxswitchtype=\"nonvoluntary\","
                    + g + "}"));
            assertEquals(2000, e.get("namedprocess_namegroup_thread_context_switches_total{"
                    + "ctxswitchtype=\"voluntary\"," + g + ",threadname=\"pt_autograd_0\"}"));
            assertEquals(1024 * 1024, e.get("namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"swapped\"}"));
            assertEquals(1_945_710L * 1024, e.get("namedprocess_namegroup_memory_bytes{" + g
                    + ",memtype=\"proportionalResident\"}"));
            assertEquals(1024 * 1024, e.get("namedprocess_namegroup_memory_bytes{" + g
                    + ",memtype=\"proportionalSwapped\"}"));
            assertEquals(0.75, e.get("namedprocess_namegroup_worst_fd_ratio{" + g + "}"));
            for (String t : List.of("python3", "pt_autograd_0", "pin_memory")) {
                assertEquals(1, e.get("namedprocess_namegroup_thread_count{" + g + ",threadname=\"" + t + "\"}"), t);
            }
            // pt_autograd_0: 150000 user ticks at 100 a second.
            assertEquals(1500, e.get("namedprocess_namegroup_thread_cpu_seconds_total{" + g
                    + ",mode=\"user\",threadname=\"pt_autograd_0\"}"));
            assertEquals(8192, e.get("namedprocess_namegroup_thread_io_bytes_total{" + g
                    + ",iomode=\"write\",threadname=\"pt_autograd_0\"}"));
            assertEquals(1500, e.get("namedprocess_namegroup_thread_context_switches_total{"
                    + "ctxswitchtype=\"voluntary\"," + g + ",threadname=\"pin_memory\"}"));
            assertEquals(1, e.get("namedprocess_namegroup_threads_wchan{" + g + ",wchan=\"futex_wait_queue\"}"));
            assertEquals(1, prefixed(e, "namedprocess_namegroup_threads_wchan{" + g), "a running thread has no wchan");
            assertTrue(e.text().contains("# TYPE namedprocess_namegroup_thread_major_page_faults_total counter"));
            assertTrue(e.text().contains("# TYPE namedprocess_namegroup_thread_minor_page_faults_total counter"));
            assertTrue(e.text().contains("# TYPE namedprocess_scrape_partial_errors counter"), e.text());
            assertEquals(0, e.get("namedprocess_scrape_errors"));
            assertEquals(0, e.get("namedprocess_scrape_procread_errors"));
            assertTrue(e.get("namedprocess_scrape_partial_errors") > 0, "processes without limits or io files");

            // The second scrape adds what the threads did since: pt_autograd_0 wrote 4 KiB more.
            io(proc.resolve("4100/task/4104"), 0, 12288);
            Exposition second = Exposition.of(c.collect());
            assertEquals(12288, second.get("namedprocess_namegroup_thread_io_bytes_total{" + g
                    + ",iomode=\"write\",threadname=\"pt_autograd_0\"}"));
            assertEquals(5000, second.get("namedprocess_namegroup_context_switches_total{"
                    + "ctxswitchtype=\"voluntary\"," + g + "}"));
        }
        // Without the switches: no thread families, no proportional memory; swapped and the fd ratio stay.
        Exposition plain = scrape(options());
        assertEquals(0, prefixed(plain, "namedprocess_namegroup_thread_count{"));
        assertEquals(0, prefixed(plain, "namedprocess_namegroup_threads_wchan{"));
        assertEquals(0, prefixed(plain, "namedprocess_namegroup_memory_bytes{" + g
                + ",memtype=\"proportionalResident\""));
        assertEquals(1, prefixed(plain, "namedprocess_namegroup_memory_bytes{" + g + ",memtype=\"swapped\""));
        assertEquals(1, prefixed(plain, "namedprocess_namegroup_worst_fd_ratio{" + g));
    }

    @Test
    void aProcessGroupIsDecidedOncePerIdentityAndAgainWhenItsCommandNameChanges(@TempDir Path tmp)
            throws IOException {
        Path proc = tmp.resolve("proc");
        copy(Fixture.root().resolve("proc"), proc);
        ExporterOptions o = options().withGrouper(ProcessGrouper.matching(List.of(
                ProcessGrouper.Rule.parse("workers=pt_data_.*"),
                ProcessGrouper.Rule.parse("trainer=cmdline:train\\.py"))));
        String trainer = "namedprocess_namegroup_num_procs{groupname=\"trainer\"}";
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.at(proc,
                Fixture.root().resolve("sys")).processes()), o)) {
            assertEquals(1, Exposition.of(c.collect()).get(trainer));
            long read = c.commandLinesRead();
            assertTrue(read > 0 && read <= 10, "one command line per user process: " + read);
            // The command line changes under the same identity and name: the group stays, nothing more is read.
            Files.write(proc.resolve("4100/cmdline"), "python3\0other.py\0".getBytes(StandardCharsets.UTF_8));
            assertEquals(1, Exposition.of(c.collect()).get(trainer));
            assertEquals(1, Exposition.of(c.collect()).get(trainer));
            assertEquals(read, c.commandLinesRead());
            // An exec renames it: decided again, on the new command line.
            Path stat = proc.resolve("4100/stat");
            Files.writeString(stat, Files.readString(stat).replace("4100 (python3)", "4100 (python3.12)"));
            Path status = proc.resolve("4100/status");
            Files.writeString(status, Files.readString(status).replaceFirst("Name:\\s+python3", "Name:\tpython3.12"));
            assertEquals(0, Exposition.of(c.collect()).get(trainer));
            assertEquals(read + 1, c.commandLinesRead());
        }
    }

    private static long prefixed(Exposition e, String prefix) {
        return e.samples().keySet().stream().filter(k -> k.startsWith(prefix)).count();
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createSymbolicLink(t, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @Test
    void jobTreeGroupsARunUnderItsRoot() {
        Exposition e = scrape(options().withGrouper(ProcessGrouper.byJobTree(Set.of())));
        // bash 900 is a boundary: python3 4100 is the run's root, with its workers and its zombie.
        assertEquals(4, e.get("namedprocess_namegroup_num_procs{groupname=\"python3:4100\"}"));
        // The ghost worker 4200 was adopted by PID 1: it is a run of its own.
        assertEquals(1, e.get("namedprocess_namegroup_num_procs{groupname=\"pt_data_worker:4200\"}"));
    }

    @Test
    void theSeriesCapDropsSeriesAndCountsThem() {
        Exposition all = scrape(options());
        // the exporter's own: duration, dropped, cap, and process-exporter's three scrape-error counters
        long total = all.samples().size() - 6;
        Exposition capped = scrape(options().withSeriesCap(10));
        assertEquals(10 + 6, capped.samples().size(), capped.text());
        assertEquals(total - 10, capped.get("procscope_series_dropped_total"));
        assertEquals(0, all.get("procscope_series_dropped_total"));
        assertEquals(10, capped.get("procscope_series_cap"));
        assertTrue(capped.get("procscope_scrape_duration_seconds") > 0);
    }

    @Test
    void bothExpositionFormatsCarryTheNames() {
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Fixture.procfs()), options())) {
            var snapshots = c.collect();
            String om = Exposition.render(snapshots, true);
            assertTrue(om.endsWith("# EOF\n"), om);
            assertTrue(om.contains("namedprocess_namegroup_cpu_seconds_total{groupname=\"python3\",mode=\"user\"} 15000.0"), om);
            String text = Exposition.render(snapshots, false);
            assertTrue(text.contains("namedprocess_namegroup_num_procs{groupname=\"python3\"} 1.0"), text);
        }
    }

    @Test
    void doctorFindingsAreCountedByKindAndSeverity() {
        var procfs = Fixture.procfs();
        var doctor = Procscope.at(Fixture.root().resolve("proc"), Fixture.root().resolve("sys"))
                .doctor(Optional.empty(), false);
        var diagnosis = doctor.examine(options().doctorOptions().withSampleWindow(Duration.ZERO));
        long zombies = diagnosis.of(io.github.procscope.api.diagnose.FindingKind.ZOMBIE).size();
        assertTrue(zombies >= 1, "the fixture has a zombie: " + diagnosis);
        var o = options().withDoctor(Duration.ZERO, options().doctorOptions().withSampleWindow(Duration.ZERO));
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(procfs).withDoctor(doctor), o)) {
            Exposition e = Exposition.of(c.collect());
            double sum = 0;
            for (var s : io.github.procscope.api.diagnose.Severity.values()) {
                sum += e.get("procscope_doctor_findings{kind=\"zombie\",severity=\"" + s.name().toLowerCase() + "\"}");
            }
            assertEquals(zombies, sum);
            assertEquals(io.github.procscope.api.diagnose.FindingKind.values().length
                    * io.github.procscope.api.diagnose.Severity.values().length, e.count("procscope_doctor_findings"));
        }
    }

    @Test
    void badGroupRulesAreRefusedWithTheReason() {
        var e1 = assertThrows(IllegalArgumentException.class, () -> ProcessGrouper.Rule.parse("noequals"));
        assertTrue(e1.getMessage().contains("NAME=REGEX"), e1.getMessage());
        var e2 = assertThrows(IllegalArgumentException.class, () -> ProcessGrouper.Rule.parse("x=(unclosed"));
        assertTrue(e2.getMessage().contains("bad regular expression"), e2.getMessage());
        var e3 = assertThrows(IllegalArgumentException.class, () -> ProcessGrouper.Rule.parse("=abc"));
        assertTrue(e3.getMessage().contains("NAME=REGEX"), e3.getMessage());
        var e4 = assertThrows(IllegalArgumentException.class, () -> ProcessGrouper.matching(List.of(
                ProcessGrouper.Rule.parse("a=x"), ProcessGrouper.Rule.parse("a=y"))));
        assertTrue(e4.getMessage().contains("two rules"), e4.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExporterOptions.defaults().withSeriesCap(0));
    }

    @Test
    void groupsByContainerPodAndSlurmJobLeaveTheRestOut() {
        // 4100..4103 run in Slurm job 4711 step 0; 4200 in a containerd container of pod 0b7e6f5a-...;
        // 5000 in a docker container; systemd, sshd, bash and 5100 in none of these; kthreadd is a kernel thread.
        Exposition slurm = scrape(options().withGrouper(ProcessGrouper.bySlurmJob()));
        assertEquals(4, slurm.get("namedprocess_namegroup_num_procs{groupname=\"4711\"}"));
        assertEquals(1, slurm.get("namedprocess_namegroup_states{groupname=\"4711\",state=\"Zombie\"}"));
        assertEquals(1, slurm.count("namedprocess_namegroup_num_procs"), slurm.text());

        Exposition pod = scrape(options().withGrouper(ProcessGrouper.byPod()));
        assertEquals(1, pod.get(
                "namedprocess_namegroup_num_procs{groupname=\"0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b\"}"));
        assertEquals(1, pod.count("namedprocess_namegroup_num_procs"), pod.text());

        Exposition container = scrape(options().withGrouper(ProcessGrouper.byContainer()));
        assertEquals(1, container.get("namedprocess_namegroup_num_procs{groupname=\"3f4e5d6c7b8a\"}"));
        assertEquals(1, container.get("namedprocess_namegroup_num_procs{groupname=\"9d8c7b6a5f4e\"}"));
        assertEquals(2, container.count("namedprocess_namegroup_num_procs"), container.text());

        assertEquals(Set.of(io.github.procscope.api.process.Facet.CGROUP), ProcessGrouper.byPod().facets());
    }
}
