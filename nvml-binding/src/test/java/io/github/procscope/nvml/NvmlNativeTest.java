package io.github.procscope.nvml;

import com.sun.jna.NativeLibrary;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The raw binding, the resolved function families and the double's exports agree. */
class NvmlNativeTest {

    static Set<String> rawFunctions() {
        Set<String> names = new TreeSet<>();
        for (Method m : NvmlNative.class.getDeclaredMethods()) {
            names.add(m.getName());
        }
        return names;
    }

    @Test
    void everyRawFunctionBelongsToExactlyOneFamilyAndNothingElseDoes() {
        NvmlFunctions fns = new NvmlFunctions(NvmlFunctionsTest.recorder(new java.util.ArrayList<>()), s -> true);
        Set<String> symbols = new TreeSet<>();
        int count = 0;
        for (NvmlFunction<?> f : fns.all()) {
            symbols.addAll(f.candidates());
            count += f.candidates().size();
        }
        assertEquals(rawFunctions(), symbols);
        assertEquals(symbols.size(), count, "no symbol is in two families");
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
        NvmlDouble.reset(NvmlDouble.LEGACY);
        try (NvmlGpus legacy = NvmlDouble.open(NvmlDouble.LEGACY)) {
            NvmlFunctions fns = NvmlFunctionsTest.functions(NvmlDouble.LEGACY);
            assertEquals("nvmlDeviceGetComputeRunningProcesses_v2", fns.computeRunningProcesses.symbol().orElseThrow());
            assertEquals("nvmlDeviceGetMemoryInfo", fns.memoryInfo.symbol().orElseThrow());
            assertEquals(2, legacy.devices().size());
        }
        assertEquals(0, NvmlDouble.control(NvmlDouble.LEGACY).ndInitCount());
    }
}
