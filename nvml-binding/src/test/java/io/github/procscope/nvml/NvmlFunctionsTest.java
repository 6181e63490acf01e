package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuProcessType;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.nvml.NvmlFunction.Candidate;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Versioned symbol families resolved once into typed handles: which symbol each handle chose, and why. */
class NvmlFunctionsTest {

    /** @return a raw binding that records the name of every function called on it, and answers 0 */
    static NvmlNative recorder(List<String> called) {
        return (NvmlNative) Proxy.newProxyInstance(NvmlNative.class.getClassLoader(), new Class<?>[] {NvmlNative.class},
                (proxy, method, args) -> {
                    called.add(method.getName());
                    return method.getReturnType() == int.class ? 0 : null;
                });
    }

    /** @return the handles of a double variant, as the binding resolves them when it loads the library */
    static NvmlFunctions functions(String variant) {
        return NvmlLibrary.load(new NvmlLibrary.Location(Optional.of(NvmlDouble.library(variant)), "the test"))
                .functions();
    }

    /** Calls a handle's typed call with zero and null arguments. */
    private static void invoke(Object call) throws Exception {
        for (Class<?> iface : call.getClass().getInterfaces()) {
            for (Method m : iface.getMethods()) {
                if (Modifier.isAbstract(m.getModifiers())) {
                    Class<?>[] types = m.getParameterTypes();
                    Object[] args = new Object[types.length];
                    for (int i = 0; i < types.length; i++) {
                        args[i] = types[i] == int.class ? (Object) 0 : types[i] == long.class ? (Object) 0L : null;
                    }
                    m.setAccessible(true);
                    m.invoke(call, args);
                    return;
                }
            }
        }
        throw new AssertionError("not a functional interface: " + call);
    }

    @Test
    void eachHandleCallsExactlyTheSymbolItChose() throws Exception {
        for (String symbol : NvmlNativeTest.rawFunctions()) {
            List<String> called = new ArrayList<>();
            NvmlFunctions fns = new NvmlFunctions(recorder(called), symbol::equals);
            NvmlFunction<?> handle = fns.all().stream().filter(f -> f.candidates().contains(symbol)).findFirst()
                    .orElseThrow();
            assertEquals(Optional.of(symbol), handle.symbol(), "only " + symbol + " is exported");
            invoke(handle.call());
            assertEquals(List.of(symbol), called, "the handle of " + handle.family() + " is bound to its own symbol");
            long present = fns.all().stream().filter(NvmlFunction::isPresent).count();
            assertEquals(1, present, "no other handle claims " + symbol);
        }
    }

    @Test
    void theFamiliesAreResolvedOncePerLibraryFile() {
        NvmlFunctions first = functions(NvmlDouble.FULL);
        NvmlDouble.reset(NvmlDouble.FULL);
        try (NvmlGpus a = NvmlDouble.open(NvmlDouble.FULL); NvmlGpus b = NvmlDouble.open(NvmlDouble.FULL)) {
            assertSame(first, functions(NvmlDouble.FULL));
            assertEquals(2, a.devices().size());
            assertEquals(2, b.devices().size(), "two inventories over one library, one resolution");
        }
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
        assertNotSame(first, functions(NvmlDouble.LEGACY), "another file, another resolution");
    }

    @Test
    void theNewestExportedSymbolWinsAndTheOlderOnesStayBehindIt() {
        Set<String> exported = Set.of("nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses");
        NvmlFunction<NvmlFunctions.ProcessList> f =
                new NvmlFunctions(recorder(new ArrayList<>()), exported::contains).computeRunningProcesses;
        assertEquals("nvmlDeviceGetComputeRunningProcesses_v2", f.symbol().orElseThrow());
        assertEquals(2, f.version());
        assertEquals("nvmlDeviceGetComputeRunningProcesses", f.older().symbol().orElseThrow());
        assertEquals(1, f.older().version());
        assertFalse(f.older().older().isPresent());
        assertEquals("nvmlDeviceGetComputeRunningProcesses", f.family());
    }

    @Test
    void theFullDriverGetsTheNewestOfEveryFamily() {
        NvmlFunctions fns = functions(NvmlDouble.FULL);
        for (GpuProcessType type : GpuProcessType.values()) {
            assertEquals(3, fns.runningProcesses(type).version(), type.name());
            assertTrue(fns.runningProcesses(type).symbol().orElseThrow().endsWith("RunningProcesses_v3"));
        }
        assertEquals("nvmlDeviceGetMemoryInfo_v2", fns.memoryInfo.symbol().orElseThrow());
        assertEquals(2, fns.memoryInfo.version());
        assertEquals("nvmlDeviceGetMemoryInfo", fns.memoryInfo.older().symbol().orElseThrow());
        assertEquals("nvmlDeviceGetCurrentClocksEventReasons", fns.clocksEventReasons.symbol().orElseThrow());
        assertEquals("nvmlSystemGetCudaDriverVersion_v2", fns.cudaDriverVersion.symbol().orElseThrow());
        assertTrue(fns.temperatureV.isPresent());
        assertTrue(fns.processesUtilizationInfo.isPresent());
        assertTrue(fns.gpm());
        assertEquals("nvmlDeviceGetGridLicensableFeatures_v4", fns.gridLicensableFeatures.symbol().orElseThrow());
        assertEquals("nvmlDeviceGetGridLicensableFeatures_v3",
                fns.gridLicensableFeatures.older().symbol().orElseThrow());
        assertTrue(fns.fieldValues.isPresent());
        assertTrue(fns.encoderUtilization.isPresent() && fns.decoderUtilization.isPresent());
        assertEquals(List.of(), fns.missingRequired());
    }

    @Test
    void aLegacyDriverFallsBackPerFamily() {
        NvmlFunctions fns = functions(NvmlDouble.LEGACY);
        for (GpuProcessType type : GpuProcessType.values()) {
            assertEquals(2, fns.runningProcesses(type).version(), type.name());
        }
        assertEquals(1, fns.memoryInfo.version());
        assertEquals("nvmlDeviceGetMemoryInfo", fns.memoryInfo.symbol().orElseThrow());
        assertEquals("nvmlDeviceGetCurrentClocksThrottleReasons", fns.clocksEventReasons.symbol().orElseThrow());
        assertEquals(1, fns.clocksEventReasons.version());
        assertEquals("nvmlSystemGetCudaDriverVersion", fns.cudaDriverVersion.symbol().orElseThrow());
        assertFalse(fns.temperatureV.isPresent());
        assertTrue(fns.temperature.isPresent(), "the older signature is the fallback");
        assertFalse(fns.processesUtilizationInfo.isPresent());
        assertTrue(fns.processUtilization.isPresent());
        assertFalse(fns.gpm());
        assertTrue(fns.pciInfo.isPresent());
        assertEquals("nvmlDeviceGetGridLicensableFeatures_v3", fns.gridLicensableFeatures.symbol().orElseThrow());
        assertEquals(3, fns.gridLicensableFeatures.version());
        assertTrue(fns.fieldValues.isPresent());
    }

    @Test
    void anAncientDriverGetsTheUnversionedListsAndLacksTheRest() {
        NvmlFunctions fns = functions(NvmlDouble.ANCIENT);
        for (GpuProcessType type : GpuProcessType.values()) {
            assertEquals(1, fns.runningProcesses(type).version(), type.name());
            assertFalse(fns.runningProcesses(type).symbol().orElseThrow().contains("_v"));
        }
        assertFalse(fns.pciInfo.isPresent());
        assertFalse(fns.totalEnergyConsumption.isPresent());
        assertFalse(fns.migDeviceHandleByIndex.isPresent());
        assertFalse(fns.processUtilization.isPresent());
        assertFalse(fns.fieldValues.isPresent());
        assertFalse(fns.gridLicensableFeatures.isPresent());
        assertTrue(fns.encoderUtilization.isPresent() && fns.decoderUtilization.isPresent());
        assertEquals(List.of(), fns.missingRequired());
    }

    @Test
    void aMissingSymbolIsNotSupportedByThisDriver() {
        NvmlFunction<NvmlFunctions.DeviceOut> get = functions(NvmlDouble.LEGACY).gpmSampleGet;
        assertFalse(get.isPresent());
        assertEquals(0, get.version());
        NvmlException e = assertThrows(NvmlException.class, get::call);
        assertEquals(NvmlReturn.FUNCTION_NOT_FOUND, e.nvmlReturn());
        assertEquals("nvmlGpmSampleGet", e.function());
        assertTrue(e.getMessage().contains("not supported by this driver"), e.getMessage());
        assertTrue(e.getMessage().contains("the driver is older than the function"), e.getMessage());
    }

    @Test
    void aLibraryWithoutNvmlInitV2LacksARequiredFunction() {
        NvmlFunctions fns = new NvmlFunctions(recorder(new ArrayList<>()), s -> !s.equals("nvmlInit_v2"));
        assertEquals(List.of("nvmlInit_v2"), fns.missingRequired());
        assertFalse(fns.init.isPresent());
    }

    @Test
    void candidatesMustBeListedNewestFirst() {
        NvmlFunctions.NoArguments call = () -> 0;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NvmlFunction.resolve("f",
                List.of(new Candidate<>("f", 1, call), new Candidate<>("f_v2", 2, call)), s -> true));
        assertTrue(e.getMessage().contains("newest first"), e.getMessage());
    }
}
