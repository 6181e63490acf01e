package io.github.procscope.cli;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.github.procscope.nvml.testing.NvmlDoubleLibrary;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * nvml-binding's NVML test double ({@code nvml-binding/src/test/c/nvml_double.c}), compiled once by that
 * module's build and found here on the test class path, in nvml-binding's test classes or test-jar, as
 * {@code nvml-double/full/libnvidia-ml.so.1} (copied out to a file when it sits in a jar). The tool loads it as it loads the driver's
 * library, through the system property {@code procscope.nvml.library}; the tests script it through its
 * exported control functions, loaded from the same file (so the same state).
 */
final class NvmlDouble {
    static final int COMPUTE = 0;
    static final int GRAPHICS = 1;
    /** {@code NVML_VALUE_NOT_AVAILABLE}: "used memory not available". */
    static final long NOT_AVAILABLE = -1L;
    static final int NO_INSTANCE = 0xFFFF_FFFF;
    static final long GIB = 1L << 30;
    static final String PROPERTY = "procscope.nvml.library";

    /** The double's control functions used here (see the C source). */
    interface Control extends Library {
        int ndReset();

        int ndInitCount();

        void ndSetInitResult(int rc);

        void ndSetDeviceCount(int n);

        int ndSetValue(int id, String key, long value);

        int ndFail(int id, String function, int rc);

        int ndAddProcess(int id, int kind, int pid, long mem, int gi, int ci);
    }

    private static Control control;

    private NvmlDouble() {
    }

    private static final String RESOURCE = "nvml-double/full/libnvidia-ml.so.1";
    private static Path library;

    static synchronized Path library() {
        if (library == null) {
            library = locate();
        }
        return library;
    }

    private static Path locate() {
        return NvmlDoubleLibrary.locate("full");
    }

    /** @return the double, reset to its two default GPUs; fails if a previous run left NVML initialized */
    static synchronized Control reset() {
        if (control == null) {
            control = Native.load(library().toString(), Control.class);
        }
        assertEquals(0, control.ndReset(), "a previous run of the tool left NVML initialized (Gpus not closed)");
        return control;
    }

    /** Checks that the tool closed NVML: every init was matched by a shutdown. */
    static void assertClosed() {
        assertEquals(0, control.ndInitCount(), "the tool did not shut NVML down");
    }

    static void ok(int rc) {
        assertEquals(0, rc, "the NVML test double refused a configuration call");
    }

    /** A test body that may throw. */
    interface Body {
        void run() throws Exception;
    }

    /** Runs a body while the tool loads the given file as NVML. */
    static void with(Path library, Body body) throws Exception {
        AutoCloseable restore = use(library);
        try {
            body.run();
        } finally {
            restore.close();
        }
    }

    /** Makes the tool load the given file as NVML until {@link AutoCloseable#close()}. */
    static AutoCloseable use(Path library) {
        String before = System.getProperty(PROPERTY);
        System.setProperty(PROPERTY, library.toString());
        return () -> {
            if (before == null) {
                System.clearProperty(PROPERTY);
            } else {
                System.setProperty(PROPERTY, before);
            }
        };
    }

    /**
     * The training node's GPUs: GPU 0 (an H100) idle at 0% while holding memory, with the run's main process
     * (4100, 2 GiB) and a process of another pid namespace whose memory NVML does not know; GPU 1 (an A100)
     * with the ghost worker 4200 holding 8 GiB.
     */
    static Control trainingNode() {
        Control c = reset();
        ok(c.ndSetValue(0, "util.gpu", 0));
        ok(c.ndSetValue(0, "util.memory", 0));
        ok(c.ndSetValue(0, "memory.used", 10 * GIB));
        ok(c.ndSetValue(0, "temperature", 34));
        ok(c.ndSetValue(0, "power.usage", 72_450));
        ok(c.ndAddProcess(0, COMPUTE, 4100, 2 * GIB, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(0, COMPUTE, 77_777, NOT_AVAILABLE, NO_INSTANCE, NO_INSTANCE));
        ok(c.ndAddProcess(1, COMPUTE, 4200, 8 * GIB, NO_INSTANCE, NO_INSTANCE));
        return c;
    }
}
