package io.github.procscope.nvml;

import com.sun.jna.NativeLibrary;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The raw binding, the probed symbols and the double's exports agree. */
class NvmlNativeTest {

    private static Set<String> rawFunctions() {
        Set<String> names = new TreeSet<>();
        for (Method m : NvmlNative.class.getDeclaredMethods()) {
            names.add(m.getName());
        }
        return names;
    }

    @Test
    void everyRawFunctionIsProbedAndNothingElse() {
        assertEquals(rawFunctions(), new TreeSet<>(NvmlLibrary.Symbols.ALL));
    }

    @Test
    void theFullDoubleExportsEveryRawFunction() {
        NativeLibrary lib = NativeLibrary.getInstance(NvmlDouble.library(NvmlDouble.FULL).toString());
        Set<String> missing = new TreeSet<>();
        for (String name : rawFunctions()) {
            try {
                lib.getFunction(name);
            } catch (UnsatisfiedLinkError e) {
                missing.add(name);
            }
        }
        assertEquals(Set.of(), missing);
    }

    @Test
    void theOlderDoublesLackTheNewerFunctions() {
        try (NvmlGpus legacy = NvmlDouble.open(NvmlDouble.LEGACY)) {
            NvmlLibrary lib = NvmlLibrary.load(new NvmlLibrary.Location(java.util.Optional.of(
                    NvmlDouble.library(NvmlDouble.LEGACY)), "test"));
            assertEquals(false, lib.has("nvmlDeviceGetComputeRunningProcesses_v3"));
            assertEquals(true, lib.has("nvmlDeviceGetComputeRunningProcesses_v2"));
            assertEquals("nvmlDeviceGetMemoryInfo", lib.newest("nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo").orElseThrow());
            assertEquals(2, legacy.devices().size());
        }
        assertEquals(0, NvmlDouble.control(NvmlDouble.LEGACY).ndInitCount());
    }
}
