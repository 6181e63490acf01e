package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;
import java.util.Optional;

import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.metrics.NvmlDouble;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MicrometerBindersTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endWhatWasStarted() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static double gauge(MeterRegistry r, String name) {
        Gauge g = r.find(name).gauge();
        assertTrue(g != null, "no gauge " + name + " in " + r.getMeters().stream().map(m -> m.getId().getName()).toList());
        return g.value();
    }

    private static long psRssBytes(long pid) throws Exception {
        Process ps = new ProcessBuilder("ps", "-o", "rss=", "-p", Long.toString(pid)).start();
        String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        ps.waitFor();
        return Long.parseLong(out) * 1024;
    }

    @Test
    void jobTreeCountsTheJvmAndTheChildrenItStarted() throws Exception {
        MeterRegistry r = new SimpleMeterRegistry();
        // No sharing of snapshots between readings: each reading sees the tree as it is.
        new JobTreeMetrics(Procscope.system().processes(), ProcessHandle.current().pid(), Duration.ZERO, Tags.of("job", "test"))
                .bindTo(r);
        double before = gauge(r, "procscope_job_processes");
        Process a = new ProcessBuilder("sleep", "60").start();
        started.add(a);
        Process b = new ProcessBuilder("sleep", "60").start();
        started.add(b);
        assertEquals(before + 2, gauge(r, "procscope_job_processes"));
        double rss = gauge(r, "procscope_job_memory_resident_bytes");
        long jvm = psRssBytes(ProcessHandle.current().pid());
        assertTrue(rss >= jvm * 0.9 && rss <= jvm * 1.5 + psRssBytes(a.pid()) + psRssBytes(b.pid()),
                "tree rss " + rss + " vs the JVM's " + jvm);
        assertTrue(gauge(r, "procscope_job_threads") >= Thread.activeCount());
        assertTrue(gauge(r, "procscope_job_cpu_time_seconds") > 0);
        assertEquals("bytes", r.find("procscope_job_memory_resident_bytes").gauge().getId().getBaseUnit());
        assertEquals("test", r.find("procscope_job_processes").gauge().getId().getTag("job"));
        a.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertEquals(before + 1, gauge(r, "procscope_job_processes"));
    }

    @Test
    void jobTreeOfAGoneRootReadsZero() {
        MeterRegistry r = new SimpleMeterRegistry();
        ProcessTable fixture = Procscope.at(Path.of("../procscope-cli/src/test/resources/machine/proc"),
                Path.of("../procscope-cli/src/test/resources/machine/sys")).processes();
        new JobTreeMetrics(fixture, 4100, Duration.ofSeconds(1), Tags.empty()).bindTo(r);
        assertEquals(4, gauge(r, "procscope_job_processes"));
        assertEquals(1, gauge(r, "procscope_job_zombies"));
        MeterRegistry r2 = new SimpleMeterRegistry();
        new JobTreeMetrics(fixture, 424_242, Duration.ofSeconds(1), Tags.empty()).bindTo(r2);
        assertEquals(0, gauge(r2, "procscope_job_processes"));
        assertThrows(IllegalArgumentException.class, () -> new JobTreeMetrics(fixture, 0, Duration.ZERO, Tags.empty()));
    }

    @Test
    void jobTreeGaugesReachThePrometheusRegistryWithBaseUnits() {
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JobTreeMetrics(Procscope.system().processes()).bindTo(r);
        String text = r.scrape();
        String pid = Long.toString(ProcessHandle.current().pid());
        assertTrue(text.contains("procscope_job_memory_resident_bytes{root_pid=\"" + pid + "\"}"), text);
        assertTrue(text.contains("procscope_job_processes{root_pid=\"" + pid + "\"}"), text);
        assertTrue(text.contains("procscope_job_cpu_time_seconds{root_pid=\"" + pid + "\"}"), text);
    }

    @Test
    void gpuRowsFollowTheDevicesOnRefresh() {
        var c = NvmlDouble.reset();
        NvmlDouble.ok(c.ndSetValue(0, "memory.used", 7 * NvmlDouble.GIB));
        try (Gpus gpus = Procscope.system().openGpus()) {
            SimpleMeterRegistry simple = new SimpleMeterRegistry();
            PrometheusMeterRegistry prom = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            GpuMetrics m = new GpuMetrics(gpus);
            m.bindTo(simple);
            GpuMetrics m2 = new GpuMetrics(gpus);
            m2.bindTo(prom);
            // The collector's families: names, units and labels as dcgm-exporter writes them.
            assertEquals(7 * 1024, simple.get("DCGM_FI_DEV_FB_USED").tag("gpu", "0").gauge().value());
            assertEquals(98, simple.get("DCGM_FI_DEV_GPU_UTIL").tag("gpu", "0").gauge().value(), 1e-9);
            assertEquals(71, simple.get("DCGM_FI_DEV_GPU_TEMP").tag("gpu", "0").gauge().value());
            assertEquals(245.3, simple.get("DCGM_FI_DEV_POWER_USAGE").tag("modelName", "NVIDIA H100 80GB HBM3")
                    .gauge().value(), 1e-9);
            assertEquals(987_654_321, simple.get("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").tag("gpu", "0")
                    .functionCounter().count());
            assertNull(simple.find("DCGM_FI_DEV_GPU_UTIL").tag("Hostname", "").gauge(), "no host tag");
            assertEquals(0, simple.get("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL").tag("gpu", "0").gauge().value(),
                    "a rate, so a gauge; 0 at the first reading");
            assertNull(simple.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE").gauge(), "GPM windows are the collector's only");
            NvmlDouble.ok(c.ndSetValue(0, "memory.used", 9 * NvmlDouble.GIB));
            m.refresh();
            assertEquals(9 * 1024, simple.get("DCGM_FI_DEV_FB_USED").tag("gpu", "0").gauge().value());
            String text = prom.scrape();
            assertTrue(text.contains("DCGM_FI_DEV_FB_USED{DCGM_FI_DRIVER_VERSION=\"550.54.15\",UUID=\"GPU-abc00000-1111-2222-3333-000000444444\","
                    + "device=\"nvidia0\",gpu=\"0\",modelName=\"NVIDIA H100 80GB HBM3\","
                    + "pci_bus_id=\"00000000:07:00.0\"} 7168.0"), text);
            assertTrue(text.contains("# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"), text);
            assertTrue(text.contains("DCGM_FI_DEV_GPU_TEMP{DCGM_FI_DRIVER_VERSION=\"550.54.15\",UUID=\"GPU-abc00001-"),
                    text);
        }
        NvmlDouble.assertClosed();
    }

    @Test
    void doctorFindingsByKindAndSeverity() {
        Path root = Path.of("../procscope-cli/src/test/resources/machine");
        var doctor = Procscope.at(root.resolve("proc"), root.resolve("sys")).doctor(Optional.empty(), false);
        var options = DoctorOptions.defaults().withSampleWindow(Duration.ZERO);
        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        DoctorMetrics m = new DoctorMetrics(doctor, options);
        assertThrows(IllegalStateException.class, m::refresh);
        m.bindTo(simple);
        var d = m.refresh();
        long zombies = d.of(FindingKind.ZOMBIE).size();
        assertTrue(zombies >= 1);
        var severity = d.of(FindingKind.ZOMBIE).get(0).severity().name().toLowerCase();
        assertEquals(zombies, simple.get("procscope_doctor_findings").tags("kind", "zombie", "severity", severity)
                .gauge().value());
        // Every kind and severity has a row, as in the collector's exposition: 0 where nothing was found.
        assertEquals(0, simple.get("procscope_doctor_findings").tags("kind", "disk_full", "severity", "critical")
                .gauge().value());
        assertTrue(simple.get("procscope_doctor_last_examination_timestamp_seconds").gauge().value()
                >= d.takenAt().getEpochSecond());
        PrometheusMeterRegistry prom = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new DoctorMetrics(doctor, options).bindTo(prom);
        assertTrue(prom.scrape().contains("procscope_doctor_findings{kind=\"zombie\",severity=\"" + severity + "\"} "
                + (double) zombies), prom.scrape());
    }
}
