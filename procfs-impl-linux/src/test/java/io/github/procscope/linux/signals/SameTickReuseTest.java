package io.github.procscope.linux.signals;

import io.github.procscope.testing.Commands;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Forced pid reuse within one clock tick, in a PID namespace of its own ({@link SameTickReuseProbe}), on each native
 * back end: 1,000 trials each of {@code send}, {@code stop} and {@code stopTree} with a key read by
 * {@code ProcessTable.key(pid)} of an old process whose pid a newcomer took, 1,000 more {@code stopTree} where that
 * newcomer has a child, and 1,000 tree stops whose child is replaced by a newcomer between the stop's first scan and
 * its signals, and 200 jobs whose member is replaced by a newcomer before the job forwards TERM and ends its
 * stragglers. No signal may reach a newcomer, and a report lists the old process as gone and nothing else. The FFM
 * back end needs JDK 22 or later ({@code -Djvm=...}). The two back ends' 10,000 trials take about 25 s.
 */
class SameTickReuseTest {
    private static final int TRIALS = 1000;
    private static final String MODES = "send,stop,tree,newtree,member,job";
    /** The job mode runs a fifth of the trials: a job costs more than a stop. */
    private static final int JOB_TRIALS = TRIALS / 5;
    private static final Map<String, Map<String, Result>> RUNS = new ConcurrentHashMap<>();
    private static final Spawned SPAWNED = new Spawned();

    /**
     * @return the back ends this JVM runs: jnr, and FFM on JDK 22+ ({@code -Djvm=...}); listed rather than skipped, so
     *         that a JDK 17 build reports no skipped test
     */
    static List<String> backEnds() {
        return Runtime.version().feature() >= 22 ? List.of("jnr", "ffm") : List.of("jnr");
    }

    @AfterAll
    static void end() {
        SPAWNED.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void sendWithAKeyFromTheTableNeverReachesTheNewcomer(String backEnd) {
        Result r = result(backEnd, "send");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.wrongReports, "every send says the pid was reused: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void stopListsTheOldProcessAsGoneAndNothingReachesTheNewcomer(String backEnd) {
        Result r = result(backEnd, "stop");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.wrongReports, "each report lists the old key as GONE, and nothing else: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void stopTreeListsTheOldRootAsGoneAndNothingReachesTheNewcomer(String backEnd) {
        Result r = result(backEnd, "tree");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.wrongReports, "each report lists the old key as GONE, and nothing else: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void stopTreeReachesNeitherTheNewcomerOnTheRootsPidNorItsChild(String backEnd) {
        Result r = result(backEnd, "newtree");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.wrongReports, "each report lists the old key as GONE, and nothing else: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void aTreeMemberReplacedAfterTheScanIsNotSignalled(String backEnd) {
        Result r = result(backEnd, "member");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.wrongReports, "each report lists the root, ended, and nothing else: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void aJobNeitherForwardsToNorEndsANewcomerOnAMembersPid(String backEnd) {
        Result r = result(backEnd, "job");
        assertEquals(0, r.newcomerHits, r.toString());
        assertEquals(0, r.delivered, "no report names the newcomer: " + r);
        assertEquals(0, r.wrongReports, "TERM forwarded to the leader alone, the newcomer named nowhere: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backEnds")
    void keysFromTheTableCarryThePidfsInode(String backEnd) {
        for (String mode : MODES.split(",")) {
            Result r = result(backEnd, mode);
            assertTrue(r.exactKeys, "ProcessTable.key(pid) reads the exact form where the kernel has pidfs (6.9+): "
                    + r);
        }
    }

    private record Result(String backEnd, String mode, int trials, int reused, int sameTicks, int delivered,
                          int wrongReports, int newcomerHits, boolean exactKeys, long millis, List<String> details) {
        @Override
        public String toString() {
            return backEnd + " " + mode + ": trials " + trials + ", pid reused " + reused + ", same start tick "
                    + sameTicks + ", delivered " + delivered + ", wrong reports " + wrongReports + ", newcomers hit "
                    + newcomerHits + ", exact keys " + exactKeys + ", " + millis + " ms"
                    + (details.isEmpty() ? "" : ", " + details);
        }
    }

    /** @return one mode's result of the back end's run, after checking that the run forced what it should */
    private static Result result(String backEnd, String mode) {
        Result r = RUNS.computeIfAbsent(backEnd, SameTickReuseTest::run).get(mode);
        System.out.println("SameTickReuseTest " + r);
        int trials = mode.equals("job") ? JOB_TRIALS : TRIALS;
        assertEquals(trials, r.trials, r.toString());
        assertTrue(r.reused >= trials * (mode.equals("job") ? 8 : 9) / 10, "the newcomer took the old pid in most"
                + " trials (for a job: and the sampler had seen the member): " + r);
        // The defects these modes hold off reached the newcomer in every trial within the old process's tick (the old
        // job code: 52 of 52), so a few such trials prove the point; how many stay within the tick depends on the
        // machine's load (a job's member must be seen by a sample first): beside several full builds (load 20 on two
        // cores) 469 of 1,000 stops and 11 of 200 jobs did. The bar: a tenth of the reused pids, a 40th of the jobs.
        assertTrue(r.sameTicks >= (mode.equals("job") ? trials / 40 : r.reused / 10),
                "enough newcomers started within the old process's tick: " + r);
        return r;
    }

    private static Map<String, Result> run(String backEnd) {
        assertTrue(Commands.available("unshare"), "unshare (util-linux) is needed");
        Path helper = NativeHelpers.executable("same_tick_reuse");
        List<String> cmd = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"));
        // No perf data file: every probe is PID 1 of its namespace, and all would share /tmp/hsperfdata_USER/1.
        List<String> options = List.of("-Dprocscope.native.backend=" + backEnd, "-XX:-UsePerfData");
        cmd.addAll(Spawned.javaCommand(options, SameTickReuseProbe.class, helper.toString(), Integer.toString(TRIALS),
                MODES).command());
        Pattern summary = Pattern.compile("mode (\\w+) trials (\\d+) reused (\\d+) sameTicks (\\d+) delivered (\\d+)"
                + " wrongReports (\\d+) newcomerHits (\\d+) exactKeys (\\w+) millis (\\d+)");
        Map<String, Result> out = new HashMap<>();
        List<String> details = new ArrayList<>();
        try {
            Process p = SPAWNED.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
            while (true) {
                String line = Spawned.readLine(p, Duration.ofMinutes(5));
                if (line.equals("done")) {
                    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                    return out;
                }
                Matcher m = summary.matcher(line);
                if (!m.matches()) {
                    details.add(line);
                    continue;
                }
                out.put(m.group(1), new Result(backEnd, m.group(1), Integer.parseInt(m.group(2)),
                        Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)),
                        Integer.parseInt(m.group(6)), Integer.parseInt(m.group(7)), Boolean.parseBoolean(m.group(8)),
                        Long.parseLong(m.group(9)), List.copyOf(details)));
                details.clear();
            }
        } catch (Exception e) {
            throw new AssertionError("the " + backEnd + " probe failed: " + e + ", " + details, e);
        }
    }
}
