package io.github.procscope.metrics;

import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.metrics.family.DcgmField;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.MetricType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.github.procscope.metrics.NvmlDouble.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * dcgm-exporter parity, driven by the contract nvml-binding keeps: dcgm-exporter's default counter list with the
 * source of each value ({@code dcgm-exporter-default-counters.tsv}). Every counter of it that procscope reads is
 * exported with dcgm-exporter's name, type, help and labels, and the value DCGM would publish for the NVML double's
 * readings; a GPU that does not offer a counter has no series for it.
 */
class DcgmExporterParityTest {
    private static final Path CONTRACT = Path.of(
            "../nvml-binding/src/test/resources/io/github/procscope/nvml/dcgm-exporter-default-counters.tsv");
    private static final String GPU0 = "GPU-abc00000-1111-2222-3333-000000444444";
    private static final long MIB = 1L << 20;

    /** One line of the contract. */
    record Row(String field, String type, String unit, String help, String source, String value) {
    }

    static List<Row> contract() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(CONTRACT, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] c = line.split("\t", -1);
            assertEquals(6, c.length, "six columns: " + line);
            rows.add(new Row(c[0], c[1], c[2], c[3], c[4], c[5]));
        }
        return rows;
    }

    /** The counters of the contract (its metrics, not its labels). */
    static List<Row> counters() throws IOException {
        List<Row> out = contract().stream().filter(r -> r.type().equals("gauge") || r.type().equals("counter")).toList();
        assertEquals(25, out.size(), "dcgm-exporter's 25 default metrics");
        return out;
    }

    /**
     * What each default counter reads for GPU 0 of the NVML double (an H100 with GPM) after the scrapes of
     * {@link #scrapeAll}: the double's readings turned into what DCGM publishes.
     */
    private static final Map<String, Double> EXPECTED_GPU0 = Map.ofEntries(
            Map.entry("DCGM_FI_DEV_SM_CLOCK", 1980.0),
            Map.entry("DCGM_FI_DEV_MEM_CLOCK", 2619.0),
            Map.entry("DCGM_FI_DEV_MEMORY_TEMP", 62.0),
            Map.entry("DCGM_FI_DEV_GPU_TEMP", 71.0),
            Map.entry("DCGM_FI_DEV_POWER_USAGE", 245.3),
            Map.entry("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 987_654_321.0),
            Map.entry("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 3.0),
            Map.entry("DCGM_FI_DEV_GPU_UTIL", 98.0),
            Map.entry("DCGM_FI_DEV_MEM_COPY_UTIL", 45.0),
            Map.entry("DCGM_FI_DEV_ENC_UTIL", 0.0),
            Map.entry("DCGM_FI_DEV_DEC_UTIL", 12.0),
            Map.entry("DCGM_FI_DEV_XID_ERRORS", 0.0),
            // 81,559 MiB in all, 512 reserved, 30,512 used (memory v2 counts the reserved apart)
            Map.entry("DCGM_FI_DEV_FB_FREE", 81_559.0 - 512 - 30_512),
            Map.entry("DCGM_FI_DEV_FB_USED", 30_512.0),
            Map.entry("DCGM_FI_DEV_FB_RESERVED", 512.0),
            // 10,000,000 KiB more sent in 10 s: 1,000,000 KiB/s, in units of 1000 KiB/s
            Map.entry("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", 1000.0),
            // bare metal: vGPU licensing not supported, which DCGM publishes as 0
            Map.entry("DCGM_FI_DEV_VGPU_LICENSE_STATUS", 0.0),
            Map.entry("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 2.0),
            Map.entry("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 1.0),
            Map.entry("DCGM_FI_DEV_ROW_REMAP_FAILURE", 0.0),
            // GPM percent / 100
            Map.entry("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.975),
            Map.entry("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 0.42),
            Map.entry("DCGM_FI_PROF_DRAM_ACTIVE", 0.55),
            // GPM MiB/s as bytes per second
            Map.entry("DCGM_FI_PROF_PCIE_TX_BYTES", 1500.0 * MIB),
            Map.entry("DCGM_FI_PROF_PCIE_RX_BYTES", 800.5 * MIB));

    /** How GPU 0 of the double is made not to offer each default counter (NVML answers NOT_SUPPORTED). */
    private static final Map<String, Consumer<NvmlDouble.Control>> UNSUPPORTED_ON_GPU0 = Map.ofEntries(
            Map.entry("DCGM_FI_DEV_SM_CLOCK", c -> fail(c, "nvmlDeviceGetClockInfo")),
            Map.entry("DCGM_FI_DEV_MEM_CLOCK", c -> fail(c, "nvmlDeviceGetClockInfo")),
            Map.entry("DCGM_FI_DEV_MEMORY_TEMP", c -> ok(c.ndFailField(0, 82, 3))),
            Map.entry("DCGM_FI_DEV_GPU_TEMP", c -> fail(c, "nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature")),
            Map.entry("DCGM_FI_DEV_POWER_USAGE", c -> fail(c, "nvmlDeviceGetPowerUsage")),
            Map.entry("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", c -> fail(c, "nvmlDeviceGetTotalEnergyConsumption")),
            Map.entry("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", c -> fail(c, "nvmlDeviceGetPcieReplayCounter")),
            Map.entry("DCGM_FI_DEV_GPU_UTIL", c -> fail(c, "nvmlDeviceGetUtilizationRates")),
            Map.entry("DCGM_FI_DEV_MEM_COPY_UTIL", c -> fail(c, "nvmlDeviceGetUtilizationRates")),
            Map.entry("DCGM_FI_DEV_ENC_UTIL", c -> fail(c, "nvmlDeviceGetEncoderUtilization")),
            Map.entry("DCGM_FI_DEV_DEC_UTIL", c -> fail(c, "nvmlDeviceGetDecoderUtilization")),
            Map.entry("DCGM_FI_DEV_XID_ERRORS", c -> ok(c.ndSetValue(0, "events.supported", 0))),
            Map.entry("DCGM_FI_DEV_FB_FREE", c -> fail(c, "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo")),
            Map.entry("DCGM_FI_DEV_FB_USED", c -> fail(c, "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo")),
            Map.entry("DCGM_FI_DEV_FB_RESERVED", c -> fail(c, "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo")),
            Map.entry("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", c -> {
                ok(c.ndFailField(0, 138, 3));
                ok(c.ndFailField(0, 139, 3));
            }),
            Map.entry("DCGM_FI_DEV_VGPU_LICENSE_STATUS", c -> fail(c, "nvmlDeviceGetGridLicensableFeatures_v4",
                    "nvmlDeviceGetGridLicensableFeatures_v3")),
            Map.entry("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", c -> fail(c, "nvmlDeviceGetRemappedRows")),
            Map.entry("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", c -> fail(c, "nvmlDeviceGetRemappedRows")),
            Map.entry("DCGM_FI_DEV_ROW_REMAP_FAILURE", c -> fail(c, "nvmlDeviceGetRemappedRows")),
            Map.entry("DCGM_FI_PROF_GR_ENGINE_ACTIVE", c -> ok(c.ndSetValue(0, "gpm.supported", 0))),
            Map.entry("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", c -> ok(c.ndSetValue(0, "gpm.supported", 0))),
            Map.entry("DCGM_FI_PROF_DRAM_ACTIVE", c -> ok(c.ndSetValue(0, "gpm.supported", 0))),
            Map.entry("DCGM_FI_PROF_PCIE_TX_BYTES", c -> ok(c.ndSetValue(0, "gpm.supported", 0))),
            Map.entry("DCGM_FI_PROF_PCIE_RX_BYTES", c -> ok(c.ndSetValue(0, "gpm.supported", 0))));

    private static void fail(NvmlDouble.Control c, String... functions) {
        for (String f : functions) {
            ok(c.ndFail(0, f, 3));
        }
    }

    @AfterEach
    void nvmlWasShutDown() {
        NvmlDouble.assertClosed();
    }

    private static ProcscopeCollector collector(AtomicLong clock) {
        return new ProcscopeCollector(MetricsSources.of(Fixture.procfs()).withGpus(Gpus::open),
                ExporterOptions.defaults().withHostname("node-7"), s -> { }, clock::get);
    }

    /**
     * Scrapes until GPU 0's first GPM window is in (the sampler measures on its own thread), then once more after
     * 10,000,000 KiB more were sent over NVLink in 10 seconds of the collector's clock.
     */
    private static Exposition scrapeAll(NvmlDouble.Control c, ProcscopeCollector collector, AtomicLong clock)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Exposition e = Exposition.of(collector.collect());
        while (e.count("DCGM_FI_PROF_GR_ENGINE_ACTIVE") == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
            e = Exposition.of(collector.collect());
        }
        ok(c.ndSetValue(0, "nvlink.tx.kib", 123_456_789L + 10_000_000L));
        clock.addAndGet(TimeUnit.SECONDS.toNanos(10));
        return Exposition.of(collector.collect());
    }

    /** @return the series of a family, parsed: labels by name, and the value */
    private static List<Map.Entry<Map<String, String>, Double>> series(Exposition e, String name) {
        List<Map.Entry<Map<String, String>, Double>> out = new ArrayList<>();
        Pattern label = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
        e.samples().forEach((k, v) -> {
            if (k.startsWith(name + "{")) {
                Map<String, String> labels = new LinkedHashMap<>();
                Matcher m = label.matcher(k.substring(name.length()));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2));
                }
                out.add(Map.entry(labels, v));
            }
        });
        return out;
    }

    @Test
    void everyDefaultCounterIsDefinedWithDcgmExporterNameTypeAndHelp() throws IOException {
        Map<String, MetricFamily> ours = Arrays.stream(DcgmField.values()).map(DcgmField::family)
                .collect(Collectors.toMap(MetricFamily::name, f -> f));
        for (Row r : counters()) {
            assertFalse(r.source().equals("-"), r.field() + ": the contract names a source for every default metric");
            MetricFamily f = ours.get(r.field());
            assertNotNull(f, r.field() + " is not exported");
            assertEquals(r.type().equals("counter") ? MetricType.UNSUFFIXED_COUNTER : MetricType.GAUGE, f.type(),
                    r.field());
            assertEquals(r.help(), f.help(), r.field());
            assertTrue(EXPECTED_GPU0.containsKey(r.field()), r.field() + " has no expected value in this test");
            assertTrue(UNSUPPORTED_ON_GPU0.containsKey(r.field()), r.field() + " has no unsupported case here");
        }
        assertEquals(25, EXPECTED_GPU0.size());
    }

    @Test
    void everyDefaultCounterHasItsSeriesWithDcgmExporterLabelsTypeAndValue() throws Exception {
        var c = NvmlDouble.reset();
        AtomicLong clock = new AtomicLong(1_000_000_000_000L);
        Set<String> contractLabels = contract().stream().filter(r -> r.type().equals("series-label"))
                .map(Row::field).collect(Collectors.toSet());
        try (ProcscopeCollector collector = collector(clock)) {
            Exposition e = scrapeAll(c, collector, clock);
            for (Row r : counters()) {
                String type = r.type().equals("counter") ? "counter" : "gauge";
                String text = "\n" + e.text();
                assertTrue(text.contains("\n# TYPE " + r.field() + " " + type + "\n"), r.field() + " typed " + type);
                assertTrue(text.contains("\n# HELP " + r.field() + " " + r.help() + "\n"), r.field() + "'s help");
                var gpu0 = series(e, r.field()).stream().filter(s -> GPU0.equals(s.getKey().get("UUID"))).toList();
                assertEquals(1, gpu0.size(), r.field() + " for GPU 0: " + gpu0);
                Map<String, String> labels = gpu0.get(0).getKey();
                Map<String, String> expected = new LinkedHashMap<>(Map.of("gpu", "0", "UUID", GPU0,
                        "pci_bus_id", "00000000:07:00.0", "device", "nvidia0", "modelName", "NVIDIA H100 80GB HBM3",
                        "Hostname", "node-7", "DCGM_FI_DRIVER_VERSION", "550.54.15"));
                if (r.field().equals("DCGM_FI_DEV_XID_ERRORS")) {
                    expected.put("err_code", "0");
                }
                assertEquals(expected, labels, r.field());
                assertTrue(contractLabels.containsAll(labels.keySet()), "labels named as dcgm-exporter names them: "
                        + labels.keySet());
                assertEquals(EXPECTED_GPU0.get(r.field()), gpu0.get(0).getValue(), 1e-9, r.field());
            }
            // GPU 1 (an A100) offers no GPU Performance Monitoring: no profiling series, and no error for it.
            for (String prof : List.of("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                    "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES")) {
                assertEquals(1, e.count(prof), prof + ": GPU 0 only");
            }
            assertEquals(1000, series(e, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL").stream()
                    .mapToDouble(Map.Entry::getValue).sum(), "GPU 1's NVLink counters did not move: 0");
            assertEquals(0, e.count("procscope_scrape_errors_total"), e.text());
        }
    }

    @Test
    void aCounterTheGpuDoesNotOfferHasNoSeriesForItAndNoError() throws Exception {
        for (Row r : counters()) {
            var c = NvmlDouble.reset();
            UNSUPPORTED_ON_GPU0.get(r.field()).accept(c);
            try (ProcscopeCollector collector = collector(new AtomicLong())) {
                Exposition e = Exposition.of(collector.collect());
                Exposition again = Exposition.of(collector.collect());
                for (Exposition x : List.of(e, again)) {
                    assertEquals(List.of(), series(x, r.field()).stream()
                            .filter(s -> GPU0.equals(s.getKey().get("UUID"))).toList(), r.field() + " for GPU 0");
                    assertEquals(0, x.count("procscope_scrape_errors_total"), r.field() + ": " + x.text());
                    // The GPU's other series are still there.
                    assertTrue(x.samples().keySet().stream().anyMatch(k -> k.contains(GPU0)
                            && k.startsWith("DCGM_") && !k.startsWith(r.field() + "{")), r.field());
                }
            }
            NvmlDouble.assertClosed();
        }
    }

    @Test
    void promtoolParsesTheExpositionAndFindsNothingButDcgmExporterNaming() throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        Assumptions.assumeTrue(Files.isExecutable(promtool), "promtool is not installed");
        var c = NvmlDouble.reset();
        AtomicLong clock = new AtomicLong(1_000_000_000_000L);
        String text;
        try (ProcscopeCollector collector = collector(clock)) {
            text = scrapeAll(c, collector, clock).text();
        }
        Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
        try {
            p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool ended");
            // promtool exits 3 for lint findings, 1 for a text it cannot parse.
            assertTrue(p.exitValue() == 0 || p.exitValue() == 3, "promtool exit " + p.exitValue() + ": " + out);
            // What dcgm-exporter's own names draw (its counters lack _total, modelName is camelCase) and nothing
            // else: no finding on any other family.
            Pattern accepted = Pattern.compile("(DCGM_FI_\\w+|procscope_gpu_xid_errors_total) (counter metrics"
                    + " should have \"_total\" suffix|label names should be written in 'snake_case' not 'camelCase'"
                    + "|metric name should not include type 'counter')");
            Set<String> unexpected = new TreeSet<>();
            for (String line : out.split("\n")) {
                if (!line.isBlank() && !accepted.matcher(line).matches()) {
                    unexpected.add(line);
                }
            }
            assertEquals(Set.of(), unexpected, out);
            assertTrue(new HashSet<>(List.of(out.split("\n"))).size() >= 1, "promtool said something: " + out);
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
