package io.github.procscope.benchmarks;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report computed from a small JMH result file whose medians and ratios are known by hand. */
class ReportTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = ReportTest.class.getResourceAsStream("/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Report sample() throws IOException {
        return new Report(JmhResults.parse(resource("sample-jmh.json")),
                Report.readCensus(resource("sample.census").lines().toList()));
    }

    @Test
    void scoresAreMediansOfIterationsInNanoseconds() throws IOException {
        JmhResults r = JmhResults.parse(resource("sample-jmh.json"));
        assertEquals(4_000_000, r.find("SnapshotBenchmark.procscope", "1000").orElseThrow().medianNanos(), 1e-6);
        // an even count: the mean of the middle two (200 and 210 ms)
        assertEquals(205e6, r.find("DeletedFilesBenchmark.lsof", null).orElseThrow().medianNanos(), 1e-6);
        assertEquals(Optional.of(1_650_000.0),
                r.find("SnapshotBenchmark.procscope", "1000").orElseThrow().medianAllocBytes());
        // the older name of the gc profiler's metric, with a middle dot, is read too
        assertEquals(Optional.of(5000.0), r.find("SnapshotBenchmark.oshi", "1000").orElseThrow().medianAllocBytes());
        assertEquals(Optional.empty(), r.find("DeletedFilesBenchmark.lsof", null).orElseThrow().medianAllocBytes());
    }

    @Test
    void ratiosAreTakenBetweenMedians() throws IOException {
        Report report = sample();
        assertEquals(2.0, report.floorRatio("1000").getAsDouble(), 1e-9);
        assertEquals(4000.0 / 2500, report.equalWorkRatio("1000").getAsDouble(), 1e-9);
        assertEquals(10.0, report.speedup("oshi", "1000").getAsDouble(), 1e-9);
        assertEquals(3.0, report.speedup("processHandle", "1000").getAsDouble(), 1e-9);
    }

    @Test
    void allocationBeyondRecordsIsPerProcessOfTheCensus() throws IOException {
        // (1,650,000 B allocated - 550,000 B of records) / 1,100 processes
        assertEquals(1000.0, sample().beyondRecordsPerProcess("1000").getAsDouble(), 1e-9);
    }

    @Test
    void growthComparesMarginalCostsPerProcess() throws IOException {
        Report report = sample();
        assertEquals(4_000_000.0 / 1100, report.perProcess("procscope", "1000").getAsDouble(), 1e-6);
        assertEquals(3_000_000.0 / 900, report.marginal("procscope", "100", "1000").getAsDouble(), 1e-6);
        assertEquals(12_000_000.0 / 4000, report.marginal("procscope", "1000", "5000").getAsDouble(), 1e-6);
        assertEquals(0.9, report.growth("procscope").getAsDouble(), 1e-9);
    }

    @Test
    void targetsAreJudgedAtOneThousand() throws IOException {
        List<Report.Verdict> v = sample().verdicts();
        assertEquals(List.of(Optional.of(false), Optional.of(true), Optional.of(true), Optional.of(true)),
                v.stream().map(Report.Verdict::met).toList());
        assertEquals("2.00×", v.get(0).measured());
        assertEquals("10.00× faster", v.get(1).measured());
        assertEquals("1,000 B per process", v.get(2).measured());
        // the floor's growth: (8,000 - 2,000) / 4,000 over (2,000 - 500) / 900
        assertEquals("0.90× (C floor: 0.90×)", v.get(3).measured());
    }

    @Test
    void aMissingMeasurementIsNotJudged() {
        Report empty = new Report(JmhResults.parse("[]"), Report.readCensus(List.of()));
        assertTrue(empty.verdicts().stream().allMatch(v -> v.met().isEmpty()));
        assertTrue(empty.render(List.of(), "", "x", "latest.json").contains("| not measured |"));
    }

    @Test
    void theReportHoldsTablesVerdictsAndTheChangesVerbatim() throws IOException {
        String md = sample().render(List.of("CPU: Test CPU", "Cores: 2"), "### A change\n\nIt was *this*.\n",
                "benchmarks/run.sh", "latest.json");
        assertTrue(md.contains("| CPU | Test CPU |"), md);
        assertTrue(md.contains("```\nbenchmarks/run.sh\n```"), md);
        assertTrue(md.contains("| snapshot within 1.5× of the C floor | 2.00× | **missed** |"), md);
        assertTrue(md.contains("| 1,000 | 1,100 | 4.00 ms | 2.00 ms | 2.50 ms | 40.00 ms | 12.00 ms |"), md);
        assertTrue(md.contains("| 1,000 | 2.00× | 1.60× | 10.00× | 3.00× |"), md);
        assertTrue(md.contains("| 1,000 | 1,100 | 1,650,000 B | 550,000 B | 1,000 B | 5,000 B | 5,000 B |"), md);
        assertTrue(md.contains("| procscope | 5.0 µs | 3.6 µs | 3.1 µs | 3.3 µs | 3.0 µs | 0.90× | yes |"), md);
        assertTrue(md.contains("OSHI ÷ procscope: 2.82×"), md);
        assertTrue(md.contains("lsof ÷ tool: 0.50×; lsof ÷ warm library: 10.25×"), md);
        assertTrue(md.contains("binding ÷ C: 3.00×; the binding's own cost: 2.0 µs per sample"), md);
        assertTrue(md.endsWith("### A change\n\nIt was *this*.\n"), md);
    }
}
