package io.github.procscope.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NVML test double built from {@code src/test/c/nvml_double.c}: where each variant lies, and its
 * control functions. The binding loads a variant through {@link NvmlGpus.Builder#library(Path)}, exactly
 * as it loads the driver's library; the tests configure it through {@link Control}, loaded from the same
 * file (so the same process-wide state).
 */
final class NvmlDouble {
    /** Every function the binding knows. */
    static final String FULL = "full";
    /** Without the newest symbols (R450-era drivers). */
    static final String LEGACY = "legacy";
    /** Without _v2 process lists, PCI info v3, energy, MIG and per-process utilization too. */
    static final String ANCIENT = "ancient";
    /** Without nvmlInit_v2. */
    static final String NO_INIT_V2 = "no-init-v2";

    static final int COMPUTE = 0;
    static final int GRAPHICS = 1;
    static final int MPS = 2;
    /** {@code NVML_VALUE_NOT_AVAILABLE} as an unsigned long long. */
    static final long NOT_AVAILABLE = -1L;
    static final int NO_INSTANCE = 0xFFFF_FFFF;
    static final long GIB = 1L << 30;
    static final long MIB = 1L << 20;

    /** The exported control functions of the double (see the C source for what each does). */
    interface Control extends Library {
        int ndReset();

        int ndInitCount();

        void ndSetInitResult(int rc);

        void ndSetDeviceCount(int n);

        void ndSetProcessEntrySize(int bytes);

        void ndSetCudaVersion(int version, int rc);

        int ndSetString(int id, String key, String value);

        int ndSetValue(int id, String key, long value);

        int ndSetGpmMetric(int id, int metricId, double value);

        int ndFail(int id, String function, int rc);

        int ndFailField(int id, int fieldId, int rc);

        int ndAddProcess(int id, int kind, int pid, long mem, int gi, int ci);

        int ndClearProcesses(int id);

        int ndSetProcessGrowth(int id, int kind, int perCall);

        int ndAddUtilizationSample(int id, int pid, long ts, int sm, int mem, int enc, int dec);

        int ndAddMigDevice(int dev, int slot, String uuid, int gi, int ci, long memTotal, long memUsed);

        long ndCallCount(String function);

        int ndGpmOutstanding();

        long ndLastGpmIntervalMs();

        long ndSizeof(String structName);

        int ndInjectXid(int id, long xid);

        int ndEventSetsOutstanding();
    }

    private static final Map<String, Control> CONTROLS = new ConcurrentHashMap<>();

    private NvmlDouble() {
    }

    /** @return the library file of a variant */
    static Path library(String variant) {
        String dir = System.getProperty("procscope.test.nvmlDouble");
        Path base = dir == null ? Path.of("target", "test-classes", "nvml-double") : Path.of(dir);
        Path lib = base.resolve(variant).resolve("libnvidia-ml.so.1").toAbsolutePath();
        assertTrue(Files.isRegularFile(lib), "the NVML test double was not built: " + lib
                + " (the build compiles src/test/c/nvml_double.c with gcc in generate-test-resources)");
        return lib;
    }

    /** @return the control functions of a variant */
    static Control control(String variant) {
        return CONTROLS.computeIfAbsent(variant, v -> Native.load(library(v).toString(), Control.class));
    }

    /** @return a reset double of a variant */
    static Control reset(String variant) {
        Control c = control(variant);
        assertEquals(0, c.ndReset(), "a previous test left NVML initialized in the " + variant + " double");
        return c;
    }

    /** @return an inventory over a variant */
    static NvmlGpus open(String variant) {
        return NvmlGpus.builder().library(library(variant)).open();
    }

    /** Fails unless a configuration call was accepted (catches misspelled keys). */
    static void ok(int rc) {
        assertEquals(0, rc, "the NVML test double refused a configuration call");
    }
}
