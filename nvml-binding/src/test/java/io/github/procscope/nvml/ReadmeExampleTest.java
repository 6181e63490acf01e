package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.DmonFormat;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuSummary;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.process.ProcessTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.NO_INSTANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's GPU example (as in {@link #example(Duration)}) run against the double; the README's own text runs in the examples module's ReadmeSnippetsTest. */
class ReadmeExampleTest {

    @AfterEach
    void cleanUp() {
        System.clearProperty(NvmlLibrary.PROPERTY);
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    static void example(Duration watch) throws InterruptedException {
        try (Gpus gpus = Procscope.system().openGpus()) {
            System.out.println("driver " + gpus.driverVersion() + ", CUDA " + gpus.cudaDriverVersion().orElseThrow());
            System.out.println(DmonFormat.header());
            for (GpuDevice gpu : gpus.devices()) {
                GpuSample s = gpu.sample();
                System.out.println(DmonFormat.row(s));
                for (GpuProcess p : gpu.processes().processes()) {
                    System.out.printf("  pid %d (%s) uses %d MiB%n", p.pid(), p.typeLetters(),
                            p.usedMemoryBytes().orElse(0) >> 20);
                }
            }
            // Who holds the GPUs, which run they belong to, and which are ghosts whose parent is gone
            for (GpuUser u : gpus.users(Procscope.system().processes())) {
                System.out.printf("pid %d run root %s ghost %b%n", u.pid(),
                        u.runRoot().map(r -> r.pid() + " " + r.comm()).orElse("(not visible here)"), u.ghost());
            }
            // Sample every device each second; judge idle-holding over the last five minutes
            try (GpuMonitor monitor = gpus.monitor(GpuMonitorOptions.defaults().withInterval(Duration.ofSeconds(1))
                    .withWindow(Duration.ofMinutes(5))).start()) {
                Thread.sleep(watch.toMillis());
                for (GpuSummary summary : monitor.summaries()) {
                    System.out.printf("GPU %d: mean util %.1f%%, idle holding: %s%n", summary.deviceIndex(),
                            summary.meanGpuUtilizationPercent().orElse(Double.NaN), summary.idleHolding());
                }
            }
        } catch (GpuUnavailableException e) {
            System.out.println("no GPU here (" + e.reason() + "): " + e.getMessage());
        }
    }

    @Test
    void theExampleRunsAndPrintsWhatItPromises() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndAddProcess(1, COMPUTE, (int) ProcessHandle.current().pid(), 3 * GIB, NO_INSTANCE, NO_INSTANCE));
        System.setProperty(NvmlLibrary.PROPERTY, NvmlDouble.library(NvmlDouble.FULL).toString());
        String out = captured(() -> example(Duration.ofMillis(300)));
        assertTrue(out.startsWith("driver 550.54.15, CUDA 12.4\n# gpu"), out);
        assertTrue(out.contains("    1     61     38      0      0   38200   1215    210\n"), out);
        assertTrue(out.contains("  pid " + ProcessHandle.current().pid() + " (C) uses 3072 MiB"), out);
        assertTrue(out.contains("pid " + ProcessHandle.current().pid() + " run root "), out);
        assertTrue(out.contains("GPU 0: mean util 98.0%, idle holding: "), out);
    }

    @Test
    void withoutAGpuItSaysWhy() throws Exception {
        System.setProperty(NvmlLibrary.PROPERTY, "/nonexistent/libnvidia-ml.so.1");
        String out = captured(() -> example(Duration.ofMillis(1)));
        assertTrue(out.startsWith("no GPU here (LIBRARY_NOT_FOUND): "), out);
    }

    interface Body {
        void run() throws Exception;
    }

    private static String captured(Body body) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
