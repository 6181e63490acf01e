package io.github.procscope.metrics;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.github.procscope.nvml.testing.NvmlDoubleLibrary;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * nvml-binding's NVML test double ({@code nvml-binding/src/test/c/nvml_double.c}), compiled by this module's build
 * into {@code target/nvml-double/full/libnvidia-ml.so.1}. nvml-binding loads it as it loads the driver's library,
 * through the system property {@code procscope.nvml.library}; the tests script it through its exported control
 * functions, loaded from the same file (so the same state).
 */
public final class NvmlDouble {
    /** NVML's compute process list. */
    public static final int COMPUTE = 0;
    /** No MIG instance. */
    public static final int NO_INSTANCE = 0xFFFF_FFFF;
    /** One GiB. */
    public static final long GIB = 1L << 30;
    /** One MiB. */
    public static final long MIB = 1L << 20;
    private static final String PROPERTY = "procscope.nvml.library";

    /** The double's control functions used here (see the C source). */
    public interface Control extends Library {
        /** @return the NVML init count it found */
        int ndReset();

        /** @return the current init count */
        int ndInitCount();

        /** Sets a device value; 0 on success. */
        int ndSetValue(int id, String key, long value);

        /** Makes a function return rc for a device; 0 on success. */
        int ndFail(int id, String function, int rc);

        /** Raises an XID on a GPU; returns how many event sets received it. */
        int ndInjectXid(int id, long xid);

        /** Makes one field of nvmlDeviceGetFieldValues answer rc on a device; 0 on success. */
        int ndFailField(int id, int fieldId, int rc);

        /** Adds a process to a device's list; 0 on success. */
        int ndAddProcess(int id, int kind, int pid, long mem, int gi, int ci);
    }

    private static Control control;

    private NvmlDouble() {
    }

    /** @return the compiled double, from nvml-binding's test-jar */
    public static Path library() {
        return NvmlDoubleLibrary.locate("full");
    }

    /**
     * Resets the double to its two default GPUs and makes nvml-binding load it.
     *
     * @return its controls
     */
    public static synchronized Control reset() {
        if (control == null) {
            control = Native.load(library().toString(), Control.class);
        }
        System.setProperty(PROPERTY, library().toString());
        assertEquals(0, control.ndReset(), "a previous test left NVML initialized (Gpus not closed)");
        return control;
    }

    /** Checks that every init was matched by a shutdown. */
    public static void assertClosed() {
        assertEquals(0, control.ndInitCount(), "NVML was not shut down");
    }

    /** Fails unless the double accepted a configuration call. */
    public static void ok(int rc) {
        assertEquals(0, rc, "the NVML test double refused a configuration call");
    }
}
