package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.Gpus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The contract of the dcgm-exporter export ({@code dcgm-exporter-default-counters.tsv}, a test resource other
 * modules read from this module's test-jar): it lists dcgm-exporter's 26 default counters, every accessor it
 * names exists in the API, and each gives a value on the double's Hopper GPU when read through the binding.
 */
class DcgmExporterContractTest {
    /** The classpath name of the contract. */
    static final String RESOURCE = "/io/github/procscope/nvml/dcgm-exporter-default-counters.tsv";
    private static final Set<String> COUNTER_TYPES = Set.of("gauge", "counter", "label");
    private static final Map<String, Class<?>> ROOTS = Map.of("Gpus", Gpus.class, "GpuDevice", GpuDevice.class,
            "GpuSample", GpuSample.class, "GpmMetrics", GpmMetrics.class);

    /** One line of the contract. */
    record Row(String field, String type, String unit, String help, String procscope, String value) {
        boolean isCounter() {
            return COUNTER_TYPES.contains(type);
        }

        /** @return the accessor paths, such as {@code GpuSample.memory.usedBytes}; empty for '-' */
        List<String> sources() {
            return procscope.equals("-") ? List.of() : List.of(procscope.split("\\+"));
        }
    }

    /** @return the contract's lines, in order */
    static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        try (InputStream in = DcgmExporterContractTest.class.getResourceAsStream(RESOURCE)) {
            assertNotNull(in, RESOURCE);
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                assertEquals(6, f.length, "six tab-separated columns: " + line);
                for (String cell : f) {
                    assertEquals(cell.strip(), cell, "no stray spaces: " + line);
                }
                rows.add(new Row(f[0], f[1], f[2], f[3], f[4], f[5]));
            }
        }
        return rows;
    }

    @AfterEach
    void nothingLeftOpen() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndEventSetsOutstanding());
    }

    @Test
    void theContractListsDcgmExportersTwentySixDefaultCounters() throws IOException {
        List<Row> counters = rows().stream().filter(Row::isCounter).toList();
        assertEquals(26, counters.size());
        assertEquals(25, counters.stream().filter(r -> !r.type().equals("label")).count());
        assertEquals(26, new HashSet<>(counters.stream().map(Row::field).toList()).size(), "no field twice");
        for (Row r : counters) {
            assertTrue(r.field().startsWith("DCGM_FI_"), r.field());
            assertTrue(!r.help().isEmpty() && !r.unit().isEmpty() && !r.value().isEmpty(), r.toString());
            assertFalse(r.sources().isEmpty(), "every default counter has a source: " + r.field());
        }
        List<String> names = counters.stream().map(Row::field).toList();
        for (String added : List.of("DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_DEC_UTIL",
                "DCGM_FI_DEV_FB_RESERVED", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
                "DCGM_FI_DRIVER_VERSION", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES")) {
            assertTrue(names.contains(added), added);
        }
        List<String> labels = rows().stream().filter(r -> r.type().equals("series-label")).map(Row::field).toList();
        assertEquals(List.of("gpu", "UUID", "pci_bus_id", "device", "modelName", "GPU_I_PROFILE", "GPU_I_ID",
                "Hostname", "DCGM_FI_DRIVER_VERSION", "err_code", "err_msg", "pod", "namespace", "container",
                "pod_uid"), labels);
        assertEquals(rows().size(), counters.size() + labels.size(), "every line is a counter or a series label");
    }

    @Test
    void everySourceIsAnAccessorOfThePublicApi() throws IOException {
        for (Row r : rows()) {
            for (String path : r.sources()) {
                String[] parts = path.split("\\.");
                Type type = ROOTS.get(parts[0]);
                assertNotNull(type, "a known root: " + path);
                for (int i = 1; i < parts.length; i++) {
                    Class<?> owner = unwrap(type);
                    Method m;
                    try {
                        m = owner.getMethod(parts[i]);
                    } catch (NoSuchMethodException e) {
                        throw new AssertionError(r.field() + ": " + owner.getSimpleName() + " has no " + parts[i] + "()");
                    }
                    type = m.getGenericReturnType();
                }
                Class<?> leaf = unwrap(type);
                assertTrue(leaf.isPrimitive() || Number.class.isAssignableFrom(leaf) || leaf == Boolean.class
                        || leaf == String.class, r.field() + ": " + path + " gives a " + leaf);
            }
        }
    }

    /** @return the class a type holds: the element of an Optional, the primitive of an OptionalInt */
    private static Class<?> unwrap(Type type) {
        if (type instanceof ParameterizedType p && p.getRawType() == Optional.class) {
            return unwrap(p.getActualTypeArguments()[0]);
        }
        if (type == OptionalInt.class) {
            return int.class;
        }
        if (type == OptionalLong.class) {
            return long.class;
        }
        if (type == OptionalDouble.class) {
            return double.class;
        }
        return (Class<?>) type;
    }

    @Test
    void everyCounterHasAValueOnTheDoublesHopperGpuAndTheProfilingOnesNoneBeforeHopper() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            GpuDevice h100 = gpus.device(0);
            GpuDevice a100 = gpus.device(1);
            h100.xidErrors(); // starts watching
            assertEquals(1, c.ndInjectXid(0, 79));
            awaitXid(h100);
            Map<String, Object> h100Roots = roots(gpus, h100);
            Map<String, Object> a100Roots = roots(gpus, a100);
            for (Row r : rows().stream().filter(Row::isCounter).toList()) {
                for (String path : r.sources()) {
                    Optional<Object> v = read(h100Roots, path);
                    assertTrue(v.isPresent(), r.field() + ": " + path + " is empty on the H100");
                    if (r.field().startsWith("DCGM_FI_PROF_")) {
                        assertEquals(Optional.empty(), read(a100Roots, path), r.field() + " without GPM");
                    }
                }
            }
            assertEquals(Optional.of(79L), read(h100Roots, "GpuDevice.xidErrors.lastXid"));
            assertEquals(Optional.of(512L << 20), read(h100Roots, "GpuSample.memory.reservedBytes"));
        }
    }

    private static Map<String, Object> roots(Gpus gpus, GpuDevice d) {
        Map<String, Object> roots = new LinkedHashMap<>();
        roots.put("Gpus", gpus);
        roots.put("GpuDevice", d);
        roots.put("GpuSample", d.sample());
        d.gpmMetrics(Duration.ofMillis(100)).ifPresent(m -> roots.put("GpmMetrics", m));
        return roots;
    }

    /** @return the value an accessor path gives; empty where an Optional on the way is empty */
    private static Optional<Object> read(Map<String, Object> roots, String path) throws Exception {
        String[] parts = path.split("\\.");
        Object v = roots.get(parts[0]);
        Class<?> type = ROOTS.get(parts[0]);
        for (int i = 1; i < parts.length && v != null; i++) {
            Method m = type.getMethod(parts[i]);
            v = value(m.invoke(v));
            type = unwrap(m.getGenericReturnType());
        }
        return Optional.ofNullable(v);
    }

    private static Object value(Object o) {
        if (o instanceof Optional<?> opt) {
            return opt.orElse(null);
        }
        if (o instanceof OptionalInt i) {
            return i.isPresent() ? (Object) (long) i.getAsInt() : null;
        }
        if (o instanceof OptionalLong l) {
            return l.isPresent() ? (Object) l.getAsLong() : null;
        }
        if (o instanceof OptionalDouble d) {
            return d.isPresent() ? (Object) d.getAsDouble() : null;
        }
        return o;
    }

    private static void awaitXid(GpuDevice gpu) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(30);
        while (gpu.xidErrors().orElseThrow().count() == 0) {
            if (Instant.now().isAfter(deadline)) {
                fail("the XID was not seen within 30 s");
            }
            Thread.sleep(10);
        }
    }
}
