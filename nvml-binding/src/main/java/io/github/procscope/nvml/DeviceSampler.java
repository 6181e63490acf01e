package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.gpu.EccErrorCounts;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuModes;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlReturn;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The current state of one device: a {@link GpuSample} (utilization, memory, temperature, power, clocks,
 * performance state, fan, clock event reasons, ECC counts) and its {@link GpuModes}. A function the driver
 * lacks or withholds leaves its field empty. Thread-safe: each thread passes its own out-parameter block.
 */
final class DeviceSampler {
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int RC_ARGUMENT_VERSION_MISMATCH = NvmlReturn.ARGUMENT_VERSION_MISMATCH.code();
    private static final int RC_FUNCTION_NOT_FOUND = NvmlReturn.FUNCTION_NOT_FOUND.code();

    /**
     * Memory for the out-parameters of one sample's calls, one block per thread: JNA's structures and
     * {@code ByReference}s allocate and register native memory per call, which cost more than the calls.
     * Each call's result is read before the next call.
     */
    private static final ThreadLocal<Memory> OUT = ThreadLocal.withInitial(() -> new Memory(64));

    private final DeviceCalls calls;
    private final NvmlFunctions fns;
    private final Pointer handle;

    DeviceSampler(DeviceCalls calls) {
        this.calls = calls;
        this.fns = calls.functions();
        this.handle = calls.handle();
    }

    /** @return the modes, read now (called under the inventory's read lock) */
    GpuModes modes() {
        Optional<Boolean> persistence = flag(calls.uint(fns.persistenceMode), NvmlNative.NVML_FEATURE_ENABLED);
        Mode ecc = mode(fns.eccMode, NvmlNative.NVML_FEATURE_ENABLED);
        Mode mig = mode(fns.migMode, NvmlNative.NVML_DEVICE_MIG_ENABLE);
        return new GpuModes(persistence, ecc.current(), ecc.pending(), mig.current(), mig.pending());
    }

    private static Optional<Boolean> flag(OptionalInt v, int enabled) {
        return v.isPresent() ? Optional.of(v.getAsInt() == enabled) : Optional.empty();
    }

    /** A mode now and after the next reset; both empty if unavailable. */
    private record Mode(Optional<Boolean> current, Optional<Boolean> pending) {
    }

    private Mode mode(NvmlFunction<NvmlFunctions.DeviceIntPair> function, int enabled) {
        if (function.isPresent()) {
            IntByReference current = new IntByReference();
            IntByReference pending = new IntByReference();
            if (calls.ok(function.call().call(handle, current, pending), function.name())) {
                return new Mode(Optional.of(current.getValue() == enabled), Optional.of(pending.getValue() == enabled));
            }
        }
        return new Mode(Optional.empty(), Optional.empty());
    }

    /**
     * @param index the device's index, for the sample
     * @param uuid  the device's UUID, for the sample
     * @return a sample taken now (called under the inventory's read lock)
     */
    GpuSample sample(int index, String uuid) {
        Instant takenAt = Instant.now();
        Memory out = OUT.get();
        OptionalInt gpuUtil = OptionalInt.empty();
        OptionalInt memUtil = OptionalInt.empty();
        if (fns.utilizationRates.isPresent()
                && calls.ok(fns.utilizationRates.call().call(handle, out), fns.utilizationRates.name())) {
            gpuUtil = OptionalInt.of(out.getInt(Layouts.UTIL_GPU));
            memUtil = OptionalInt.of(out.getInt(Layouts.UTIL_MEMORY));
        }
        Optional<GpuMemory> memory = readMemory(out);
        OptionalInt temperature = readTemperature(out);
        OptionalLong power = unsignedInt(fns.powerUsage, out);
        OptionalLong enforced = unsignedInt(fns.enforcedPowerLimit, out);
        OptionalLong management = unsignedInt(fns.powerManagementLimit, out);
        OptionalLong energy = counter(fns.totalEnergyConsumption, out);
        OptionalInt graphicsClock = clock(fns.clockInfo, NvmlNative.NVML_CLOCK_GRAPHICS, out);
        OptionalInt smClock = clock(fns.clockInfo, NvmlNative.NVML_CLOCK_SM, out);
        OptionalInt memClock = clock(fns.clockInfo, NvmlNative.NVML_CLOCK_MEM, out);
        OptionalInt maxSmClock = clock(fns.maxClockInfo, NvmlNative.NVML_CLOCK_SM, out);
        OptionalInt maxMemClock = clock(fns.maxClockInfo, NvmlNative.NVML_CLOCK_MEM, out);
        OptionalInt pstate = uintOut(fns.performanceState, out);
        if (pstate.isPresent() && (pstate.getAsInt() < 0 || pstate.getAsInt() > 15)) {
            pstate = OptionalInt.empty(); // NVML_PSTATE_UNKNOWN
        }
        OptionalInt fan = uintOut(fns.fanSpeed, out);
        OptionalLong reasons = OptionalLong.empty();
        if (fns.clocksEventReasons.isPresent()
                && calls.ok(fns.clocksEventReasons.call().call(handle, out), fns.clocksEventReasons.name())) {
            reasons = OptionalLong.of(out.getLong(0));
        }
        return new GpuSample(index, uuid, takenAt, gpuUtil, memUtil, memory, temperature, power, enforced,
                management, energy, graphicsClock, smClock, memClock, maxSmClock, maxMemClock, pstate, fan,
                reasons, readEcc(out));
    }

    /** @return the device's memory now; empty if the driver withholds it */
    Optional<GpuMemory> memory() {
        return readMemory(OUT.get());
    }

    /** Offsets in the structures a sample passes as plain memory, taken once from their JNA layouts. */
    private static final class Layouts {
        static final int UTIL_GPU;
        static final int UTIL_MEMORY;
        static final int MEM_TOTAL;
        static final int MEM_FREE;
        static final int MEM_USED;
        static final int MEM2_SIZE;
        static final int MEM2_VERSION_VALUE;
        static final int MEM2_TOTAL;
        static final int MEM2_RESERVED;
        static final int MEM2_FREE;
        static final int MEM2_USED;
        static final int TEMP_VERSION_VALUE;
        static final int TEMP_SENSOR;
        static final int TEMP_VALUE;

        static {
            NvmlStructs.Utilization u = new NvmlStructs.Utilization();
            UTIL_GPU = u.offsetOf("gpu");
            UTIL_MEMORY = u.offsetOf("memory");
            NvmlStructs.Memory m = new NvmlStructs.Memory();
            MEM_TOTAL = m.offsetOf("total");
            MEM_FREE = m.offsetOf("free");
            MEM_USED = m.offsetOf("used");
            NvmlStructs.MemoryV2 m2 = new NvmlStructs.MemoryV2();
            MEM2_SIZE = m2.size();
            MEM2_VERSION_VALUE = m2.version;
            MEM2_TOTAL = m2.offsetOf("total");
            MEM2_RESERVED = m2.offsetOf("reserved");
            MEM2_FREE = m2.offsetOf("free");
            MEM2_USED = m2.offsetOf("used");
            NvmlStructs.TemperatureV1 t = new NvmlStructs.TemperatureV1();
            TEMP_VERSION_VALUE = t.version;
            TEMP_SENSOR = t.offsetOf("sensorType");
            TEMP_VALUE = t.offsetOf("temperature");
            if (Math.max(MEM2_SIZE, t.size()) > 64) {
                throw new AssertionError("the sample's out-parameter block is too small");
            }
        }

        private Layouts() {
        }
    }

    private OptionalInt uintOut(NvmlFunction<NvmlFunctions.DeviceOut> function, Memory out) {
        if (!function.isPresent()) {
            return OptionalInt.empty();
        }
        return calls.ok(function.call().call(handle, out), function.name()) ? OptionalInt.of(out.getInt(0))
                : OptionalInt.empty();
    }

    private OptionalLong unsignedInt(NvmlFunction<NvmlFunctions.DeviceOut> function, Memory out) {
        OptionalInt v = uintOut(function, out);
        return v.isPresent() ? OptionalLong.of(Integer.toUnsignedLong(v.getAsInt())) : OptionalLong.empty();
    }

    private OptionalLong counter(NvmlFunction<NvmlFunctions.DeviceOut> function, Memory out) {
        if (!function.isPresent()) {
            return OptionalLong.empty();
        }
        return calls.ok(function.call().call(handle, out), function.name()) && out.getLong(0) >= 0
                ? OptionalLong.of(out.getLong(0)) : OptionalLong.empty();
    }

    private OptionalInt clock(NvmlFunction<NvmlFunctions.DeviceKindOut> function, int type, Memory out) {
        if (!function.isPresent()) {
            return OptionalInt.empty();
        }
        return calls.ok(function.call().call(handle, type, out), function.name()) ? OptionalInt.of(out.getInt(0))
                : OptionalInt.empty();
    }

    /**
     * The memory family: {@code nvmlDeviceGetMemoryInfo_v2} ({@code nvmlMemory_v2_t}, reserved memory apart),
     * else v1 ({@code nvmlMemory_t}). A driver that exports {@code _v2} but refuses its structure version falls
     * back to v1.
     */
    private Optional<GpuMemory> readMemory(Memory out) {
        for (NvmlFunction<NvmlFunctions.DeviceOut> f = fns.memoryInfo; f.isPresent(); f = f.older()) {
            if (f.version() >= 2) {
                out.clear(Layouts.MEM2_SIZE);
                out.setInt(0, Layouts.MEM2_VERSION_VALUE);
                int rc = f.call().call(handle, out);
                if (rc == RC_SUCCESS) {
                    return Optional.of(memory(out.getLong(Layouts.MEM2_TOTAL), out.getLong(Layouts.MEM2_USED),
                            out.getLong(Layouts.MEM2_FREE), OptionalLong.of(out.getLong(Layouts.MEM2_RESERVED)),
                            false, f.name()));
                }
                if (rc != RC_ARGUMENT_VERSION_MISMATCH && rc != RC_FUNCTION_NOT_FOUND && !calls.ok(rc, f.name())) {
                    return Optional.empty();
                }
            } else if (calls.ok(f.call().call(handle, out), f.name())) {
                return Optional.of(memory(out.getLong(Layouts.MEM_TOTAL), out.getLong(Layouts.MEM_USED),
                        out.getLong(Layouts.MEM_FREE), OptionalLong.empty(), true, f.name()));
            } else {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private GpuMemory memory(long total, long used, long free, OptionalLong reserved, boolean v1, String function) {
        if (total < 0 || used < 0 || free < 0 || (reserved.isPresent() && reserved.getAsLong() < 0)) {
            throw new ProcscopeException(function + " on " + calls.label() + " reported memory figures that cannot"
                    + " be (total " + Long.toUnsignedString(total) + ", used " + Long.toUnsignedString(used)
                    + ", free " + Long.toUnsignedString(free)
                    + reserved.stream().mapToObj(r -> ", reserved " + Long.toUnsignedString(r)).findFirst().orElse("")
                    + " bytes): the driver's answer is not believable");
        }
        return new GpuMemory(total, used, free, reserved, v1);
    }

    /**
     * {@code nvmlDeviceGetTemperatureV} ({@code nvmlTemperature_v1_t}), else the older
     * {@code nvmlDeviceGetTemperature}: a newer signature, so two handles rather than one family.
     */
    private OptionalInt readTemperature(Memory out) {
        if (fns.temperatureV.isPresent()) {
            out.setInt(0, Layouts.TEMP_VERSION_VALUE);
            out.setInt(Layouts.TEMP_SENSOR, NvmlNative.NVML_TEMPERATURE_GPU);
            out.setInt(Layouts.TEMP_VALUE, 0);
            int rc = fns.temperatureV.call().call(handle, out);
            if (rc == RC_SUCCESS) {
                return OptionalInt.of(out.getInt(Layouts.TEMP_VALUE));
            }
            if (rc != RC_ARGUMENT_VERSION_MISMATCH && rc != RC_FUNCTION_NOT_FOUND) {
                calls.ok(rc, fns.temperatureV.name());
                return OptionalInt.empty();
            }
        }
        if (fns.temperature.isPresent() && calls.ok(fns.temperature.call().call(handle,
                NvmlNative.NVML_TEMPERATURE_GPU, out), fns.temperature.name())) {
            return OptionalInt.of(out.getInt(0));
        }
        return OptionalInt.empty();
    }

    private Optional<EccErrorCounts> readEcc(Memory out) {
        if (!fns.totalEccErrors.isPresent()) {
            return Optional.empty();
        }
        EccErrorCounts counts = new EccErrorCounts(
                ecc(NvmlNative.NVML_MEMORY_ERROR_TYPE_CORRECTED, NvmlNative.NVML_VOLATILE_ECC, out),
                ecc(NvmlNative.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NvmlNative.NVML_VOLATILE_ECC, out),
                ecc(NvmlNative.NVML_MEMORY_ERROR_TYPE_CORRECTED, NvmlNative.NVML_AGGREGATE_ECC, out),
                ecc(NvmlNative.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NvmlNative.NVML_AGGREGATE_ECC, out));
        return counts.isEmpty() ? Optional.empty() : Optional.of(counts);
    }

    private OptionalLong ecc(int errorType, int counterType, Memory out) {
        NvmlFunction<NvmlFunctions.EccCount> f = fns.totalEccErrors;
        return calls.ok(f.call().call(handle, errorType, counterType, out), f.name()) && out.getLong(0) >= 0
                ? OptionalLong.of(out.getLong(0)) : OptionalLong.empty();
    }
}
