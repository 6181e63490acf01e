package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code procscope gpu} against the NVML test double (the GPUs of {@link NvmlDouble#trainingNode()}) joined with
 * the fixture machine's processes, and with no NVML at all.
 */
class GpuCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MachineFixture m;
    private AutoCloseable nvml;

    @BeforeEach
    void setUp() {
        m = MachineFixture.create();
        NvmlDouble.trainingNode();
        nvml = NvmlDouble.use(NvmlDouble.library());
    }

    @AfterEach
    void tearDown() throws Exception {
        nvml.close();
        m.close();
        NvmlDouble.assertClosed();
    }

    private CliRun run(String... args) {
        List<String> all = new ArrayList<>(List.of("--procfs-root", m.proc().toString()));
        all.addAll(List.of(args));
        return CliRun.of(all.toArray(new String[0]));
    }

    @Test
    void theTableFitsEightyColumnsAndNamesTheHolders() {
        CliRun r = run("gpu");
        assertEquals(0, r.status(), r.err());
        for (String line : r.out().split("\n")) {
            assertTrue(line.length() <= 80, "wider than 80 columns: '" + line + "'");
        }
        String out = r.out();
        assertTrue(out.contains("NVIDIA driver 550.54.15, CUDA 12.4, 2 GPU(s)"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*0 NVIDIA H100 80GB HBM3\\s+07:00\\.0\\s+34C\\s+72/700W\\s+10\\.0G/79\\.6G\\s+0%\\s+0%\\s+P0")),
                out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*1\\s+4200 C\\s+pt_data_worker\\s+8\\.0G pod:0b7e6f5a ghost: parent gone")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*0\\s+4100 C\\s+python3\\s+2\\.0G slurm:4711\\.0")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s*0\\s+77777 C\\s+\\(not visible here\\)\\s+-\\s+-")), out);
        assertTrue(out.contains("duty cycle"), out);
    }

    @Test
    void aNarrowTerminalCutsLinesToItsWidth() {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        int status = ProcscopeCli.run(new java.io.PrintStream(o, true, java.nio.charset.StandardCharsets.UTF_8),
                new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true), false, 60,
                "--procfs-root", m.proc().toString(), "gpu");
        assertEquals(0, status);
        for (String line : o.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
            assertTrue(line.length() <= 60, "wider than 60 columns: '" + line + "'");
        }
    }

    @Test
    void queryPrintsNvidiaSmiCsv() {
        CliRun r = run("gpu", "--query", "index,name,memory.used,utilization.gpu,power.draw,pstate,clocks.sm,gpu_bus_id",
                "--format", "csv");
        assertEquals(0, r.status(), r.err());
        assertEquals("index, name, memory.used [MiB], utilization.gpu [%], power.draw [W], pstate,"
                        + " clocks.current.sm [MHz], pci.bus_id\n"
                        + "0, NVIDIA H100 80GB HBM3, 10240 MiB, 0 %, 72.45 W, P0, 1980 MHz, 00000000:07:00.0\n"
                        + "1, NVIDIA A100-SXM4-40GB, 38200 MiB, 0 %, 61.20 W, P0, 210 MHz, 00000000:0F:00.0\n",
                r.out());
        CliRun bare = run("gpu", "--query", "index,memory.total,power.limit", "--format", "csv,noheader,nounits");
        assertEquals("0, 81559, 700.00\n1, 40960, 400.00\n", bare.out(), bare.err());
        CliRun units = run("gpu", "--query", "memory.used", "--format", "nounits,csv");
        assertEquals("memory.used [MiB]\n10240\n38200\n", units.out(), "nounits keeps the header's unit");
    }

    @Test
    void aMetricTheGpuDoesNotReportIsNotAvailable() {
        NvmlDouble.ok(NvmlDouble.reset().ndFail(0, "nvmlDeviceGetFanSpeed", 3)); // NVML_ERROR_NOT_SUPPORTED
        CliRun r = run("gpu", "--query", "index,fan.speed", "--format", "csv,noheader");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("0, [N/A]\n"), r.out());
    }

    @Test
    void watchPrintsDmonRowsThenTheIdleVerdict() {
        NvmlDouble.ok(NvmlDouble.trainingNode().ndSetValue(1, "util.gpu", 87));
        CliRun r = run("gpu", "--watch", "10ms", "--count", "3");
        assertEquals(0, r.status(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("# gpu    pwr  gtemp     sm    mem      fb   mclk   pclk", lines.get(0));
        assertEquals(2 + 3 * 2 + 2, lines.size(), r.out());
        assertEquals("    0     72     34      0      0   10240   2619   1980", lines.get(2));
        assertTrue(lines.get(8).startsWith("# gpu 0 ") && lines.get(8).contains("IDLE WHILE HOLDING MEMORY"), lines.get(8));
        assertTrue(lines.get(9).startsWith("# gpu 1 ") && lines.get(9).endsWith("not idle-holding"), lines.get(9));

        CliRun json = run("--json", "gpu", "--watch", "10ms", "--count", "2");
        List<String> rows = json.out().lines().toList();
        assertEquals(4, rows.size(), json.out());
        for (String row : rows) {
            JsonNode n = readJson(row);
            assertTrue(n.get("memoryUsedBytes").isIntegralNumber() && n.get("takenAt").isTextual(), row);
        }
    }

    @Test
    void withoutNvmlItExitsThreeAndJsonSaysWhy() throws Exception {
        Path missing = m.root().resolve("no-such-dir/libnvidia-ml.so.1");
        NvmlDouble.with(missing, () -> {
            CliRun r = run("--json", "gpu");
            assertEquals(3, r.status());
            JsonNode n = readJson(r.out());
            assertFalse(n.get("available").asBoolean());
            assertEquals("LIBRARY_NOT_FOUND", n.get("reason").asText());
            assertTrue(n.get("message").asText().contains(missing.toString()), n.toString());
            assertTrue(n.get("driverVersion").isNull() && n.get("devices").isEmpty(), n.toString());
            assertOneLine(r.err());

            CliRun table = run("gpu");
            assertEquals(3, table.status());
            assertEquals("", table.out());
            assertOneLine(table.err());
            assertTrue(table.err().startsWith("procscope gpu: LIBRARY_NOT_FOUND"), table.err());

            CliRun overview = run("--json");
            assertEquals(0, overview.status(), "the overview says why there are no GPUs, and succeeds");
            assertEquals("LIBRARY_NOT_FOUND", readJson(overview.out()).get("gpus").get("reason").asText());
        });
    }

    @Test
    void aDriverThatIsNotLoadedIsReportedAsSuch() {
        NvmlDouble.reset().ndSetInitResult(9); // NVML_ERROR_DRIVER_NOT_LOADED
        CliRun r = run("--json", "gpu");
        assertEquals(3, r.status());
        assertEquals("DRIVER_NOT_LOADED", readJson(r.out()).get("reason").asText());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertUsage(run("gpu", "--query", "index,bogus.field"), "bogus.field");
        assertUsage(run("gpu", "--query", "index", "--format", "xml"), "not a format");
        assertUsage(run("gpu", "--format", "csv"), "--format goes with --query");
        assertUsage(run("gpu", "--count", "3"), "--count goes with --watch");
        assertUsage(run("gpu", "--watch", "soon"), "not a duration");
        assertUsage(run("gpu", "--watch", "1s", "--count", "0"), "at least 1");
        assertUsage(run("gpu", "--watch", "1s", "--count", "three"), "three");
    }

    private static void assertUsage(CliRun r, String says) {
        assertEquals(2, r.status(), r.err());
        assertOneLine(r.err());
        assertTrue(r.err().contains(says), r.err());
    }

    static void assertOneLine(String err) {
        String e = err.strip();
        assertFalse(e.isEmpty(), "says why on stderr");
        assertEquals(1, e.lines().count(), "one line: " + e);
        assertFalse(e.contains("\tat ") || e.contains("Exception"), "no stack trace or exception name: " + e);
    }

    private static JsonNode readJson(String s) {
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + s, e);
        }
    }
}
