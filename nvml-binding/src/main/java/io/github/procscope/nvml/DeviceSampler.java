package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.github.procscope.api.core.ProcscopeException;
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
 * performance state, fan, clock event reasons, ECC counts, memory temperature, encoder and decoder utilization,
 * NVLink counters, vGPU licence) and its {@link GpuModes}. A function the driver lacks or withholds leaves its
 * field empty. Thread-safe: each thread passes its own out-parameter block.
 */
final class DeviceSampler {
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int RC_ARGUMENT_VERSION_MISMATCH = NvmlReturn.ARGUMENT_VERSION_MISMATCH.code();
    private static final int RC_FUNCTION_NOT_FOUND = NvmlReturn.FUNCTION_NOT_FOUND.code();
    private static final int RC_INVALID_ARGUMENT = NvmlReturn.INVALID_ARGUMENT.code();

    /**
     * Memory for the out-parameters of one sample's calls, one block per thread: JNA's structures and
     * {@code ByReference}s allocate and register native memory per call, which cost more than the calls.
     * Each call's result is read before the next call.
     */
    private static final ThreadLocal<Memory> OUT = ThreadLocal.withInitial(() -> new Memory(Layouts.BLOCK_SIZE));
    /** The highest memory temperature DCGM accepts as a reading (it drops higher ones as bogus). */
    private static final int MAX_MEMORY_TEMPERATURE = 200;

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
        Optional<EccErrorCounts> ecc = readEcc(out);
        OptionalInt encoder = utilization(fns.encoderUtilization, out);
        OptionalInt decoder = utilization(fns.decoderUtilization, out);
        FieldReadings fields = readFields(out);
        Optional<Boolean> vgpuLicensed = readVgpuLicense(out);
        return new GpuSample(index, uuid, takenAt, gpuUtil, memUtil, memory, temperature, power, enforced,
                management, energy, graphicsClock, smClock, memClock, maxSmClock, maxMemClock, pstate, fan,
                reasons, ecc, fields.memoryTemperature(), encoder, decoder, fields.nvlinkTx(), fields.nvlinkRx(),
                vgpuLicensed);
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
        static final int FIELD_SIZE;
        static final int FIELD_ID;
        static final int FIELD_SCOPE;
        static final int FIELD_TYPE;
        static final int FIELD_RETURN;
        static final int FIELD_VALUE;
        static final int GRID_V4_SIZE;
        static final int GRID_V3_SIZE;
        static final int GRID_SUPPORTED;
        static final int GRID_COUNT;
        static final int GRID_ENTRIES;
        static final int GRID_V4_ENTRY;
        static final int GRID_V3_ENTRY;
        static final int GRID_CODE;
        static final int GRID_STATE;
        /** The out-parameter block: room for the largest structure a sample passes. */
        static final int BLOCK_SIZE;

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
            NvmlStructs.FieldValue f = new NvmlStructs.FieldValue();
            FIELD_SIZE = f.size();
            FIELD_ID = f.offsetOf("fieldId");
            FIELD_SCOPE = f.offsetOf("scopeId");
            FIELD_TYPE = f.offsetOf("valueType");
            FIELD_RETURN = f.offsetOf("nvmlReturn");
            FIELD_VALUE = f.offsetOf("value");
            NvmlStructs.GridLicensableFeaturesV4 g4 = new NvmlStructs.GridLicensableFeaturesV4();
            GRID_V4_SIZE = g4.size();
            GRID_V3_SIZE = new NvmlStructs.GridLicensableFeaturesV3().size();
            GRID_SUPPORTED = g4.offsetOf("isGridLicenseSupported");
            GRID_COUNT = g4.offsetOf("licensableFeaturesCount");
            GRID_ENTRIES = g4.offsetOf("gridLicensableFeatures");
            NvmlStructs.GridLicensableFeatureV4 e4 = new NvmlStructs.GridLicensableFeatureV4();
            GRID_V4_ENTRY = e4.size();
            GRID_V3_ENTRY = new NvmlStructs.GridLicensableFeatureV3().size();
            GRID_CODE = e4.offsetOf("featureCode");
            GRID_STATE = e4.offsetOf("featureState");
            BLOCK_SIZE = Math.max(Math.max(MEM2_SIZE, t.size()), Math.max(FieldReadings.COUNT * FIELD_SIZE,
                    Math.max(GRID_V4_SIZE, GRID_V3_SIZE)));
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

    /** {@code nvmlDevice{En,De}coderUtilization}: the percentage, then the sampling period (not kept). */
    private OptionalInt utilization(NvmlFunction<NvmlFunctions.DeviceOutPair> function, Memory out) {
        if (!function.isPresent()) {
            return OptionalInt.empty();
        }
        out.clear(8);
        return calls.ok(function.call().call(handle, out, out.share(4)), function.name())
                ? OptionalInt.of(out.getInt(0)) : OptionalInt.empty();
    }

    /** What one {@code nvmlDeviceGetFieldValues} call gives: the memory temperature and the NVLink counters. */
    private record FieldReadings(OptionalInt memoryTemperature, OptionalLong nvlinkTx, OptionalLong nvlinkRx) {
        /** How many fields the call asks for. */
        static final int COUNT = 3;
        static final FieldReadings NONE = new FieldReadings(OptionalInt.empty(), OptionalLong.empty(),
                OptionalLong.empty());
    }

    /**
     * One {@code nvmlDeviceGetFieldValues} call for {@code NVML_FI_DEV_MEMORY_TEMP} and the NVLink data throughput
     * counters of all links (scope {@code UINT_MAX}). Each field carries its own return code: a field the device
     * does not offer is empty, the others are kept.
     */
    private FieldReadings readFields(Memory out) {
        NvmlFunction<NvmlFunctions.FieldValues> f = fns.fieldValues;
        if (!f.isPresent()) {
            return FieldReadings.NONE;
        }
        out.clear((long) FieldReadings.COUNT * Layouts.FIELD_SIZE);
        request(out, 0, NvmlNative.NVML_FI_DEV_MEMORY_TEMP, 0);
        request(out, 1, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NvmlNative.NVLINK_SCOPE_ALL_LINKS);
        request(out, 2, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NvmlNative.NVLINK_SCOPE_ALL_LINKS);
        if (!calls.ok(f.call().call(handle, FieldReadings.COUNT, out), f.name())) {
            return FieldReadings.NONE;
        }
        OptionalInt memoryTemperature = OptionalInt.empty();
        OptionalLong t = fieldValue(out, 0, f.name() + " (NVML_FI_DEV_MEMORY_TEMP)");
        if (t.isPresent() && t.getAsLong() >= 0 && t.getAsLong() <= MAX_MEMORY_TEMPERATURE) {
            memoryTemperature = OptionalInt.of((int) t.getAsLong());
        }
        return new FieldReadings(memoryTemperature,
                kibToBytes(fieldValue(out, 1, f.name() + " (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX)")),
                kibToBytes(fieldValue(out, 2, f.name() + " (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX)")));
    }

    private static void request(Memory out, int slot, int fieldId, int scopeId) {
        long at = (long) slot * Layouts.FIELD_SIZE;
        out.setInt(at + Layouts.FIELD_ID, fieldId);
        out.setInt(at + Layouts.FIELD_SCOPE, scopeId);
    }

    /**
     * @return a field's value as a whole number; empty when its own return code says it is unavailable here (or
     *         that the driver does not know the field), when its type is unknown, or when it is a count of 2^63 or
     *         more
     * @throws io.github.procscope.api.gpu.NvmlException for any other return code of the field
     */
    private OptionalLong fieldValue(Memory out, int slot, String function) {
        long at = (long) slot * Layouts.FIELD_SIZE;
        int rc = out.getInt(at + Layouts.FIELD_RETURN);
        if (rc == RC_INVALID_ARGUMENT || !calls.ok(rc, function)) {
            return OptionalLong.empty(); // a field id older drivers do not know may come back as an invalid argument
        }
        long value = out.getLong(at + Layouts.FIELD_VALUE);
        return switch (out.getInt(at + Layouts.FIELD_TYPE)) {
            case NvmlNative.NVML_VALUE_TYPE_UNSIGNED_INT -> OptionalLong.of(Integer.toUnsignedLong((int) value));
            case NvmlNative.NVML_VALUE_TYPE_SIGNED_INT -> OptionalLong.of((int) value);
            case NvmlNative.NVML_VALUE_TYPE_UNSIGNED_SHORT -> OptionalLong.of(value & 0xFFFF);
            case NvmlNative.NVML_VALUE_TYPE_UNSIGNED_LONG, NvmlNative.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG,
                 NvmlNative.NVML_VALUE_TYPE_SIGNED_LONG_LONG -> value >= 0 ? OptionalLong.of(value) : OptionalLong.empty();
            // R545 drivers label the memory temperature a double but write it as an unsigned int (DCGM reads the
            // union as one for that reason): with the upper half clear the bits are an integer, not a double.
            case NvmlNative.NVML_VALUE_TYPE_DOUBLE -> (value >>> 32) == 0 ? OptionalLong.of(value)
                    : wholeNumber(Double.longBitsToDouble(value));
            default -> OptionalLong.empty();
        };
    }

    private static OptionalLong wholeNumber(double d) {
        return d >= 0 && d < 0x1p62 ? OptionalLong.of(Math.round(d)) : OptionalLong.empty();
    }

    /** NVML counts NVLink traffic in KiB; a count too large to be bytes in a {@code long} is empty. */
    private static OptionalLong kibToBytes(OptionalLong kib) {
        return kib.isPresent() && kib.getAsLong() <= Long.MAX_VALUE / 1024 ? OptionalLong.of(kib.getAsLong() * 1024)
                : OptionalLong.empty();
    }

    /**
     * The vGPU licence as DCGM reads it: {@code nvmlDeviceGetGridLicensableFeatures_v4} (else {@code _v3}, whose
     * entries lack the expiry); false when vGPU software licensing is not supported here, else the state of the
     * vGPU feature, empty when none is listed.
     */
    private Optional<Boolean> readVgpuLicense(Memory out) {
        for (NvmlFunction<NvmlFunctions.DeviceOut> f = fns.gridLicensableFeatures; f.isPresent(); f = f.older()) {
            boolean v4 = f.version() >= 4;
            out.clear(v4 ? Layouts.GRID_V4_SIZE : Layouts.GRID_V3_SIZE);
            int rc = f.call().call(handle, out);
            if (rc == RC_SUCCESS) {
                if (out.getInt(Layouts.GRID_SUPPORTED) == 0) {
                    return Optional.of(false);
                }
                int count = (int) Math.min(Integer.toUnsignedLong(out.getInt(Layouts.GRID_COUNT)),
                        NvmlNative.NVML_GRID_LICENSE_FEATURE_MAX_COUNT);
                int stride = v4 ? Layouts.GRID_V4_ENTRY : Layouts.GRID_V3_ENTRY;
                for (int i = 0; i < count; i++) {
                    long entry = Layouts.GRID_ENTRIES + (long) i * stride;
                    if (out.getInt(entry + Layouts.GRID_CODE) == NvmlNative.NVML_GRID_LICENSE_FEATURE_CODE_VGPU) {
                        return Optional.of(out.getInt(entry + Layouts.GRID_STATE) != 0);
                    }
                }
                return Optional.empty();
            }
            if (rc != RC_ARGUMENT_VERSION_MISMATCH && rc != RC_FUNCTION_NOT_FOUND && !calls.ok(rc, f.name())) {
                return Optional.empty();
            }
        }
        return Optional.empty();
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
