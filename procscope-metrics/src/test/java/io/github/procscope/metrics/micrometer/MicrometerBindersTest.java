package io.github.procscope.metrics.micrometer;

import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.Procscope;
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
        double before = gauge(r, "procscope.job.processes");
        Process a = new ProcessBuilder("sleep", "60").start();
        started.add(a);
        Process b = new ProcessBuilder("sleep", "60").start();
        started.add(b);
        assertEquals(before + 2, gauge(r, "procscope.job.processes"));
        double rss = gauge(r, "procscope.job.memory.resident");
        long jvm = psRssBytes(ProcessHandle.current().pid());
        assertTrue(rss >= jvm * 0.9 && rss <= jvm * 1.5 + psRssBytes(a.pid()) + psRssBytes(b.pid()),
                "tree rss " + rss + " vs the JVM's " + jvm);
        assertTrue(gauge(r, "procscope.job.threads") >= Thread.activeCount());
        assertTrue(gauge(r, "procscope.job.cpu.time") > 0);
        assertEquals("bytes", r.find("procscope.job.memory.resident").gauge().getId().getBaseUnit());
        assertEquals("test", r.find("procscope.job.processes").gauge().getId().getTag("job"));
        a.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertEquals(before + 1, gauge(r, "procscope.job.processes"));
    }

    @Test
    void jobTreeOfAGoneRootReadsZero() {
        MeterRegistry r = new SimpleMeterRegistry();
        ProcessTable fixture = Procscope.at(Path.of("../procscope-cli/src/test/resources/machine/proc"),
                Path.of("../procscope-cli/src/test/resources/machine/sys")).processes();
        new JobTreeMetrics(fixture, 4100, Duration.ofSeconds(1), Tags.empty()).bindTo(r);
        assertEquals(4, gauge(r, "procscope.job.processes"));
        assertEquals(1, gauge(r, "procscope.job.zombies"));
        MeterRegistry r2 = new SimpleMeterRegistry();
        new JobTreeMetrics(fixture, 424_242, Duration.ofSeconds(1), Tags.empty()).bindTo(r2);
        assertEquals(0, gauge(r2, "procscope.job.processes"));
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
            assertEquals(7.0 * NvmlDouble.GIB, simple.get("gpu.memory.used").tag("gpu", "0").gauge().value());
            assertEquals(0.98, simple.get("gpu.utilization").tag("gpu", "0").gauge().value(), 1e-9);
            assertEquals(71, simple.get("gpu.temperature").tag("gpu", "0").gauge().value());
            assertEquals(245.3, simple.get("gpu.power").tag("name", "NVIDIA H100 80GB HBM3").gauge().value(), 1e-9);
            NvmlDouble.ok(c.ndSetValue(0, "memory.used", 9 * NvmlDouble.GIB));
            m.refresh();
            assertEquals(9.0 * NvmlDouble.GIB, simple.get("gpu.memory.used").tag("gpu", "0").gauge().value());
            String text = prom.scrape();
            assertTrue(text.contains("gpu_memory_used_bytes{gpu=\"0\",name=\"NVIDIA H100 80GB HBM3\",uuid=\""
                    + "GPU-abc00000-1111-2222-3333-000000444444\"} 7.516192768E9"), text);
            assertTrue(text.contains("gpu_temperature_celsius{gpu=\"1\""), text);
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
        assertEquals(zombies, simple.get("procscope.doctor.findings").tags("kind", "zombie", "severity", severity)
                .gauge().value());
        assertNull(simple.find("procscope.doctor.findings").tags("kind", "disk_full").gauge());
        PrometheusMeterRegistry prom = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new DoctorMetrics(doctor, options).bindTo(prom);
        assertTrue(prom.scrape().contains("procscope_doctor_findings{kind=\"zombie\",severity=\"" + severity + "\"} "
                + (double) zombies), prom.scrape());
    }
}
