package io.github.procscope.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cross-JDK section computed from small result files whose medians are known by hand. */
class JdkReportTest {

    private static void write(Path dir, String name, String... lines) throws IOException {
        Files.write(dir.resolve(name), List.of(lines));
    }

    private static String jmh(double nanosPerOp, double allocPerOp) {
        return "[{\"benchmark\":\"io.github.procscope.benchmarks.SnapshotBenchmark.procscope\",\"mode\":\"avgt\","
                + "\"params\":{\"fleetSize\":\"1000\"},\"primaryMetric\":{\"scoreUnit\":\"ns/op\",\"rawData\":[["
                + nanosPerOp + "]]},\"secondaryMetrics\":{\"gc.alloc.rate.norm\":{\"rawData\":[[" + allocPerOp
                + "]]}}}]";
    }

    @Test
    void garbageIsTheAllocationBeyondTheRecordsAndCpuTimesAreShown(@TempDir Path dir) throws IOException {
        write(dir, "jdk25.version", "Temurin 25");
        write(dir, "jdk25.startup", "# round hello_ns ps_ns ps_without_archive_ns", "1 100 250 400");
        // medians: system 20 ms wall and 4 ms CPU, send 90 ms wall and 70 ms CPU
        write(dir, "jdk25-ffm.signal", "# system_ns first_send_ns system_cpu_ns first_send_cpu_ns",
                "10000000 80000000 3000000 60000000", "20000000 90000000 4000000 70000000",
                "90000000 95000000 5000000 80000000");
        // an old file without the CPU columns still renders
        write(dir, "jdk25-jnr.signal", "# system_ns first_send_ns", "900000000 50000000");
        write(dir, "signal.note", "Measured apart from the rest.");
        // 1,000 processes: 1,200,000 B allocated per snapshot, 1,000,000 B of records handed back
        write(dir, "jdk25.census", "io.github.procscope.benchmarks.SnapshotBenchmark.procscope\t1000\t1000\t1000000"
                + "\tInstrumentation.getObjectSize");
        Files.writeString(dir.resolve("jdk25.json"), jmh(2e8, 1.2e6));

        String md = new JdkReport(dir, List.of(25)).render();
        assertTrue(md.contains("| 25 | ffm | 3 | 20.0 ms | 90.0 ms | 4.0 ms | 70.0 ms | met |"), md);
        assertTrue(md.contains("| 25 | jnr | 1 | 900.0 ms | 50.0 ms | — | — | — |"), md);
        assertTrue(md.contains("Measured apart from the rest."), md);
        assertTrue(md.contains("| 1000 B | 200 B |"), "records 1,000 B and garbage 200 B per process: " + md);
        assertFalse(md.contains("| 1200 B |"), "the whole allocation is not called garbage: " + md);
    }
}
