package io.github.procscope.metrics;

import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.github.procscope.metrics.NvmlDouble.COMPUTE;
import static io.github.procscope.metrics.NvmlDouble.GIB;
import static io.github.procscope.metrics.NvmlDouble.MIB;
import static io.github.procscope.metrics.NvmlDouble.NO_INSTANCE;
import static io.github.procscope.metrics.NvmlDouble.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GpuMetricsCollectorTest {
    private static final String GPU0 = "GPU-abc00000-1111-2222-3333-000000444444";
    private static final String GPU1 = "GPU-abc00001-1111-2222-3333-000000444445";

    @AfterEach
    void nvmlWasShutDown() {
        NvmlDouble.assertClosed();
    }

    private static String labels(int gpu, String uuid, String model, String bus) {
        return "{DCGM_FI_DRIVER_VERSION=\"550.54.15\",Hostname=\"node-7\",UUID=\"" + uuid + "\",device=\"nvidia"
                + gpu + "\",gpu=\"" + gpu + "\",modelName=\"" + model + "\",pci_bus_id=\"" + bus + "\"}";
    }

    /** @return the labels of a GPU's DCGM_FI_DEV_XID_ERRORS series: its labels and the XID as err_code */
    private static String xid(String labels, int code) {
        return labels.replace(",gpu=", ",err_code=\"" + code + "\",gpu=");
    }

    private static ProcscopeCollector collector(ExporterOptions options) {
        return new ProcscopeCollector(MetricsSources.of(Fixture.procfs()).withGpus(Gpus::open), options);
    }

    @Test
    void devicesCarryDcgmExporterNamesLabelsAndUnits() {
        var c = NvmlDouble.reset();
        ok(c.ndSetValue(0, "memory.used", 12_345 * MIB + 17));
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults().withHostname("node-7"))) {
            Exposition e = Exposition.of(collector.collect());
            String l0 = labels(0, GPU0, "NVIDIA H100 80GB HBM3", "00000000:07:00.0");
            assertEquals(12_345, e.get("DCGM_FI_DEV_FB_USED" + l0));
            // total 81,559 MiB, reserved 512 MiB (the v2 memory query reports it apart from used)
            assertEquals(81_559 - 512 - 12_345 - 1, e.get("DCGM_FI_DEV_FB_FREE" + l0), 1);
            assertEquals(98, e.get("DCGM_FI_DEV_GPU_UTIL" + l0));
            assertEquals(45, e.get("DCGM_FI_DEV_MEM_COPY_UTIL" + l0));
            assertEquals(71, e.get("DCGM_FI_DEV_GPU_TEMP" + l0));
            assertEquals(245.3, e.get("DCGM_FI_DEV_POWER_USAGE" + l0), 1e-9);
            assertEquals(987_654_321, e.get("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + l0));
            // a counter named as dcgm-exporter names it: typed counter, no _total appended
            assertTrue(e.text().contains("\n# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"), e.text());
            assertEquals(0, e.count("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"));
            assertTrue(e.text().contains("\n# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"), e.text());
            assertEquals(1980, e.get("DCGM_FI_DEV_SM_CLOCK" + l0));
            assertEquals(2619, e.get("DCGM_FI_DEV_MEM_CLOCK" + l0));
            String l1 = labels(1, GPU1, "NVIDIA A100-SXM4-40GB", "00000000:0F:00.0");
            assertEquals(38_200, e.get("DCGM_FI_DEV_FB_USED" + l1));
            assertEquals(2, e.count("DCGM_FI_DEV_FB_USED"));
        }
    }

    @Test
    void errorCountersCarryDcgmExporterNamesAndXidsAreWatchedFromTheFirstScrape() throws Exception {
        var c = NvmlDouble.reset();
        ok(c.ndSetValue(1, "remap.failure", 1));
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults().withHostname("node-7"))) {
            String l0 = labels(0, GPU0, "NVIDIA H100 80GB HBM3", "00000000:07:00.0");
            String l1 = labels(1, GPU1, "NVIDIA A100-SXM4-40GB", "00000000:0F:00.0");
            Exposition e = Exposition.of(collector.collect());
            assertEquals(3, e.get("DCGM_FI_DEV_PCIE_REPLAY_COUNTER" + l0));
            assertEquals(1, e.get("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS" + l0));
            assertEquals(2, e.get("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS" + l0));
            assertEquals(1, e.get("DCGM_FI_DEV_ROW_REMAP_PENDING" + l0));
            assertEquals(0, e.get("DCGM_FI_DEV_ROW_REMAP_FAILURE" + l0));
            assertEquals(1, e.get("DCGM_FI_DEV_ROW_REMAP_FAILURE" + l1));
            assertEquals(0, e.get("DCGM_FI_DEV_XID_ERRORS" + xid(l0, 0)));
            assertEquals(0, e.get("procscope_gpu_xid_errors_total" + l0));
            assertTrue(e.text().contains("\n# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter\n"), e.text());
            assertTrue(e.text().contains("\n# TYPE DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS counter\n"));
            assertTrue(e.text().contains("\n# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"));
            assertEquals(1, c.ndInjectXid(0, 79), "the first scrape started watching");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (e.get("procscope_gpu_xid_errors_total" + l0) < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
                e = Exposition.of(collector.collect());
            }
            assertEquals(79, e.get("DCGM_FI_DEV_XID_ERRORS" + xid(l0, 79)));
            assertEquals(1, e.get("procscope_gpu_xid_errors_total" + l0));
            assertEquals(0, e.get("DCGM_FI_DEV_XID_ERRORS" + xid(l1, 0)));
        }
    }

    @Test
    void errorCountersAGpuDoesNotOfferHaveNoSeries() {
        var c = NvmlDouble.reset();
        ok(c.ndFail(0, "nvmlDeviceGetPcieReplayCounter", 3));
        ok(c.ndFail(0, "nvmlDeviceGetRemappedRows", 3));
        ok(c.ndSetValue(0, "events.supported", 0));
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults().withHostname("node-7"))) {
            Exposition e = Exposition.of(collector.collect());
            for (String name : List.of("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_PENDING",
                    "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_XID_ERRORS")) {
                assertEquals(1, e.count(name), name + ": GPU 1 only");
                assertEquals(0, e.samples().keySet().stream().filter(k -> k.startsWith(name) && k.contains(GPU0)).count(),
                        name + " for GPU 0");
            }
        }
    }

    @Test
    void gpuMemoryGoesToGroupsGhostsAndPerPidOnlyWhenAskedFor() {
        var c = NvmlDouble.reset();
        ok(c.ndAddProcess(0, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(0, COMPUTE, 77_777, 3 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(1, COMPUTE, 4200, 8 * GIB, NO_INSTANCE, NO_INSTANCE));
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults())) {
            Exposition e = Exposition.of(collector.collect());
            assertEquals(2 * GIB, e.get("procscope_gpu_group_memory_bytes{UUID=\"" + GPU0 + "\",gpu=\"0\",groupname=\"python3\"}"));
            // 77777 lives in another pid namespace: nobody here to attribute it to.
            assertEquals(3 * GIB, e.get("procscope_gpu_unattributed_memory_bytes{UUID=\"" + GPU0 + "\",gpu=\"0\"}"));
            // 4200 was adopted by PID 1 and leads no session of its own: a ghost.
            assertEquals(1, e.get("procscope_gpu_ghost_processes{UUID=\"" + GPU1 + "\",gpu=\"1\"}"));
            assertEquals(8 * GIB, e.get("procscope_gpu_ghost_memory_bytes{UUID=\"" + GPU1 + "\",gpu=\"1\"}"));
            assertEquals(0, e.get("procscope_gpu_ghost_processes{UUID=\"" + GPU0 + "\",gpu=\"0\"}"));
            assertEquals(0, e.count("procscope_gpu_process_memory_bytes"));
        }
        NvmlDouble.assertClosed();
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults().withPerPid(true))) {
            Exposition e = Exposition.of(collector.collect());
            // The Slurm job's python3 is in no container or pod; 4200 is in pod 0b7e6f5a-... (a containerd container).
            assertEquals(2 * GIB, e.get("procscope_gpu_process_memory_bytes{UUID=\"" + GPU0
                    + "\",comm=\"python3\",container=\"\",gpu=\"0\",pid=\"4100\",pod_uid=\"\"}"));
            assertEquals(3 * GIB, e.get("procscope_gpu_process_memory_bytes{UUID=\"" + GPU0
                    + "\",comm=\"\",container=\"\",gpu=\"0\",pid=\"77777\",pod_uid=\"\"}"));
            assertEquals(8 * GIB, e.get("procscope_gpu_process_memory_bytes{UUID=\"" + GPU1
                    + "\",comm=\"pt_data_worker\",container=\"3f4e5d6c7b8a\",gpu=\"1\",pid=\"4200\","
                    + "pod_uid=\"0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b\"}"));
            assertEquals(3, e.count("procscope_gpu_process_memory_bytes"));
        }
    }

    @Test
    void anIdleGpuHoldingMemoryIsFlaggedOnceTheRuleHasEnoughScrapes() {
        var c = NvmlDouble.reset();
        ok(c.ndSetValue(0, "util.gpu", 0));
        ok(c.ndSetValue(0, "memory.used", 10 * GIB));
        try (ProcscopeCollector collector = collector(ExporterOptions.defaults())) {
            String idle0 = "procscope_gpu_idle_holding{UUID=\"" + GPU0 + "\",gpu=\"0\"}";
            assertEquals(0, Exposition.of(collector.collect()).count("procscope_gpu_idle_holding"));
            collector.collect();
            Exposition third = Exposition.of(collector.collect());
            assertEquals(1, third.get(idle0));
            // GPU 1 of the double is idle too, and holds 38,200 MiB.
            assertEquals(1, third.get("procscope_gpu_idle_holding{UUID=\"" + GPU1 + "\",gpu=\"1\"}"));
            ok(c.ndSetValue(0, "util.gpu", 90));
            collector.collect();
            assertEquals(0, Exposition.of(collector.collect()).get(idle0), "mean utilization now above 5%");
        }
    }

    @Test
    void noGpuMeansNoGpuMetricsAndOneLine() {
        List<String> notices = new ArrayList<>();
        var sources = MetricsSources.of(Fixture.procfs()).withGpus(() -> {
            throw new GpuUnavailableException(GpuUnavailableException.Reason.LIBRARY_NOT_FOUND,
                    "libnvidia-ml.so.1 was not found");
        });
        NvmlDouble.reset();
        try (ProcscopeCollector collector = new ProcscopeCollector(sources, ExporterOptions.defaults(), notices::add)) {
            Exposition e = Exposition.of(collector.collect());
            Exposition again = Exposition.of(collector.collect());
            assertEquals(0, e.samples().keySet().stream().filter(k -> k.startsWith("DCGM_") || k.startsWith("procscope_gpu")).count());
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.get(0).contains("no GPU metrics") && notices.get(0).contains("libnvidia-ml.so.1"), notices.get(0));
            assertTrue(again.get("namedprocess_namegroup_num_procs{groupname=\"python3\"}") == 1);
            assertTrue(collector.gpuUnavailable().isPresent());
        }
    }
}
