package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.ProcscopeException;
import io.github.procscope.api.gpu.EccErrorCounts;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuModes;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcessType;
import io.github.procscope.api.gpu.GpuProcessUtilization;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/** A GPU or MIG device of an {@link NvmlGpus} inventory. */
final class NvmlDevice implements GpuDevice {
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int RC_NOT_FOUND = NvmlReturn.NOT_FOUND.code();
    private static final int RC_INSUFFICIENT_SIZE = NvmlReturn.INSUFFICIENT_SIZE.code();
    private static final int RC_GPU_IS_LOST = NvmlReturn.GPU_IS_LOST.code();
    private static final int RC_ARGUMENT_VERSION_MISMATCH = NvmlReturn.ARGUMENT_VERSION_MISMATCH.code();
    private static final Duration GPM_MIN_INTERVAL = Duration.ofMillis(100);

    private final NvmlGpus owner;
    private final NvmlLibrary library;
    private final NvmlNative api;
    private final Pointer handle;
    private final int index;
    private final String uuid;
    private final String name;
    private final Optional<String> pciBusId;
    private final OptionalInt minorNumber;
    private final Optional<String> serial;
    private final Optional<NvmlDevice> parent;
    private final OptionalInt gpuInstanceId;
    private final OptionalInt computeInstanceId;
    private final Optional<Long> totalMemory;
    private volatile boolean lost;

    private NvmlDevice(NvmlGpus owner, Pointer handle, int index, Optional<NvmlDevice> parent,
                       OptionalInt gpuInstanceId, OptionalInt computeInstanceId) {
        this.owner = owner;
        this.library = owner.library();
        this.api = library.api();
        this.handle = handle;
        this.parent = parent;
        this.gpuInstanceId = gpuInstanceId;
        this.computeInstanceId = computeInstanceId;
        String label = parent.map(p -> "MIG device " + index + " of " + p.label()).orElse("GPU " + index);
        this.uuid = requiredString("nvmlDeviceGetUUID", NvmlNative.NVML_DEVICE_UUID_V2_BUFFER_SIZE,
                api::nvmlDeviceGetUUID, label);
        this.name = requiredString("nvmlDeviceGetName", NvmlNative.NVML_DEVICE_NAME_V2_BUFFER_SIZE,
                api::nvmlDeviceGetName, label);
        if (parent.isPresent()) {
            this.index = index;
            this.pciBusId = Optional.empty();
            this.minorNumber = OptionalInt.empty();
            this.serial = Optional.empty();
        } else {
            OptionalInt nvmlIndex = uint("nvmlDeviceGetIndex", api::nvmlDeviceGetIndex);
            this.index = nvmlIndex.orElse(index);
            this.pciBusId = readPciBusId();
            this.minorNumber = uint("nvmlDeviceGetMinorNumber", api::nvmlDeviceGetMinorNumber);
            this.serial = optionalString("nvmlDeviceGetSerial", NvmlNative.NVML_DEVICE_SERIAL_BUFFER_SIZE,
                    api::nvmlDeviceGetSerial).filter(s -> !s.isEmpty());
        }
        this.totalMemory = readMemory(OUT.get()).map(GpuMemory::totalBytes);
    }

    /** Reads a GPU's identity (called while the inventory opens, before it is shared). */
    static NvmlDevice open(NvmlGpus owner, Pointer handle, int enumerationIndex) {
        return new NvmlDevice(owner, handle, enumerationIndex, Optional.empty(), OptionalInt.empty(), OptionalInt.empty());
    }

    // ---- identity ----

    @Override
    public int index() {
        return index;
    }

    @Override
    public String uuid() {
        return uuid;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<String> pciBusId() {
        return pciBusId;
    }

    @Override
    public OptionalInt minorNumber() {
        return minorNumber;
    }

    @Override
    public Optional<String> serial() {
        return serial;
    }

    @Override
    public boolean isMigDevice() {
        return parent.isPresent();
    }

    @Override
    public OptionalInt parentIndex() {
        return parent.isPresent() ? OptionalInt.of(parent.get().index()) : OptionalInt.empty();
    }

    @Override
    public OptionalInt gpuInstanceId() {
        return gpuInstanceId;
    }

    @Override
    public OptionalInt computeInstanceId() {
        return computeInstanceId;
    }

    @Override
    public boolean isLost() {
        return lost || parent.map(NvmlDevice::isLost).orElse(false);
    }

    String label() {
        return parent.map(p -> "MIG device " + index + " of " + p.label() + " (" + uuid + ")")
                .orElseGet(() -> "GPU " + index + " (" + uuid + ")");
    }

    private void markLost() {
        if (parent.isPresent()) {
            parent.get().markLost();
        } else {
            lost = true;
        }
    }

    // ---- the call discipline ----

    private <T> T guarded(String function, Supplier<T> body) {
        try (NvmlGpus.Guard g = owner.enter()) {
            if (isLost()) {
                throw new NvmlException(function, RC_GPU_IS_LOST, library.errorString(RC_GPU_IS_LOST),
                        Optional.of(label() + ", reported lost earlier"));
            }
            return body.get();
        }
    }

    /**
     * @return whether the call succeeded; false when the metric is unavailable here
     * @throws NvmlException for any other code (marking the device lost for GPU_IS_LOST)
     */
    private boolean ok(int rc, String function) {
        if (rc == RC_SUCCESS) {
            return true;
        }
        if (NvmlGpus.isUnavailable(rc)) {
            return false;
        }
        throw failure(rc, function);
    }

    private NvmlException failure(int rc, String function) {
        if (rc == RC_GPU_IS_LOST) {
            markLost();
        }
        return new NvmlException(function, rc, library.errorString(rc), Optional.of(label()));
    }

    @FunctionalInterface
    interface UintCall {
        int call(Pointer device, IntByReference out);
    }

    @FunctionalInterface
    interface StringCall {
        int call(Pointer device, byte[] buffer, int length);
    }

    private OptionalInt uint(String function, UintCall call) {
        if (!library.has(function)) {
            return OptionalInt.empty();
        }
        IntByReference v = new IntByReference();
        return ok(call.call(handle, v), function) ? OptionalInt.of(v.getValue()) : OptionalInt.empty();
    }

    private Optional<String> optionalString(String function, int size, StringCall call) {
        if (!library.has(function)) {
            return Optional.empty();
        }
        byte[] buffer = new byte[size];
        return ok(call.call(handle, buffer, size), function) ? Optional.of(NvmlGpus.cString(buffer)) : Optional.empty();
    }

    private String requiredString(String function, int size, StringCall call, String label) {
        byte[] buffer = new byte[size];
        int rc = call.call(handle, buffer, size);
        if (rc != RC_SUCCESS) {
            throw new NvmlException(function, rc, library.errorString(rc), Optional.of(label));
        }
        return NvmlGpus.cString(buffer);
    }

    private Optional<String> readPciBusId() {
        if (!library.has("nvmlDeviceGetPciInfo_v3")) {
            return Optional.empty();
        }
        NvmlStructs.PciInfo pci = new NvmlStructs.PciInfo();
        if (!ok(api.nvmlDeviceGetPciInfo_v3(handle, pci), "nvmlDeviceGetPciInfo_v3")) {
            return Optional.empty();
        }
        String busId = NvmlGpus.cString(pci.busId);
        return busId.isEmpty() ? Optional.empty() : Optional.of(busId);
    }

    // ---- modes ----

    @Override
    public GpuModes modes() {
        return guarded("nvmlDeviceGetPersistenceMode", () -> {
            Optional<Boolean> persistence = flag(uint("nvmlDeviceGetPersistenceMode", api::nvmlDeviceGetPersistenceMode));
            Optional<Boolean> ecc = Optional.empty();
            Optional<Boolean> eccPending = Optional.empty();
            if (library.has("nvmlDeviceGetEccMode")) {
                IntByReference current = new IntByReference();
                IntByReference pending = new IntByReference();
                if (ok(api.nvmlDeviceGetEccMode(handle, current, pending), "nvmlDeviceGetEccMode")) {
                    ecc = Optional.of(current.getValue() == NvmlNative.NVML_FEATURE_ENABLED);
                    eccPending = Optional.of(pending.getValue() == NvmlNative.NVML_FEATURE_ENABLED);
                }
            }
            Optional<Boolean> mig = Optional.empty();
            Optional<Boolean> migPending = Optional.empty();
            if (library.has("nvmlDeviceGetMigMode")) {
                IntByReference current = new IntByReference();
                IntByReference pending = new IntByReference();
                if (ok(api.nvmlDeviceGetMigMode(handle, current, pending), "nvmlDeviceGetMigMode")) {
                    mig = Optional.of(current.getValue() == NvmlNative.NVML_DEVICE_MIG_ENABLE);
                    migPending = Optional.of(pending.getValue() == NvmlNative.NVML_DEVICE_MIG_ENABLE);
                }
            }
            return new GpuModes(persistence, ecc, eccPending, mig, migPending);
        });
    }

    private static Optional<Boolean> flag(OptionalInt v) {
        return v.isPresent() ? Optional.of(v.getAsInt() == NvmlNative.NVML_FEATURE_ENABLED) : Optional.empty();
    }

    // ---- sample ----

    @Override
    public GpuSample sample() {
        return guarded("nvmlDeviceGetUtilizationRates", () -> {
            Instant takenAt = Instant.now();
            OptionalInt gpuUtil = OptionalInt.empty();
            OptionalInt memUtil = OptionalInt.empty();
            Memory out = OUT.get();
            if (library.has("nvmlDeviceGetUtilizationRates")) {
                if (ok(api.nvmlDeviceGetUtilizationRates(handle, out), "nvmlDeviceGetUtilizationRates")) {
                    gpuUtil = OptionalInt.of(out.getInt(Layouts.UTIL_GPU));
                    memUtil = OptionalInt.of(out.getInt(Layouts.UTIL_MEMORY));
                }
            }
            Optional<GpuMemory> memory = readMemory(out);
            OptionalInt temperature = readTemperature(out);
            OptionalLong power = unsignedInt("nvmlDeviceGetPowerUsage", api::nvmlDeviceGetPowerUsage, out);
            OptionalLong enforced = unsignedInt("nvmlDeviceGetEnforcedPowerLimit", api::nvmlDeviceGetEnforcedPowerLimit,
                    out);
            OptionalLong management = unsignedInt("nvmlDeviceGetPowerManagementLimit",
                    api::nvmlDeviceGetPowerManagementLimit, out);
            OptionalLong energy = counter("nvmlDeviceGetTotalEnergyConsumption", api::nvmlDeviceGetTotalEnergyConsumption,
                    out);
            OptionalInt graphicsClock = clock("nvmlDeviceGetClockInfo", NvmlNative.NVML_CLOCK_GRAPHICS, out);
            OptionalInt smClock = clock("nvmlDeviceGetClockInfo", NvmlNative.NVML_CLOCK_SM, out);
            OptionalInt memClock = clock("nvmlDeviceGetClockInfo", NvmlNative.NVML_CLOCK_MEM, out);
            OptionalInt maxSmClock = clock("nvmlDeviceGetMaxClockInfo", NvmlNative.NVML_CLOCK_SM, out);
            OptionalInt maxMemClock = clock("nvmlDeviceGetMaxClockInfo", NvmlNative.NVML_CLOCK_MEM, out);
            OptionalInt pstate = uintOut("nvmlDeviceGetPerformanceState", api::nvmlDeviceGetPerformanceState, out);
            if (pstate.isPresent() && (pstate.getAsInt() < 0 || pstate.getAsInt() > 15)) {
                pstate = OptionalInt.empty(); // NVML_PSTATE_UNKNOWN
            }
            OptionalInt fan = uintOut("nvmlDeviceGetFanSpeed", api::nvmlDeviceGetFanSpeed, out);
            OptionalLong reasons = OptionalLong.empty();
            Optional<String> reasonsFn = library.newest("nvmlDeviceGetCurrentClocksEventReasons",
                    "nvmlDeviceGetCurrentClocksThrottleReasons");
            if (reasonsFn.isPresent()) {
                int rc = reasonsFn.get().contains("Event") ? api.nvmlDeviceGetCurrentClocksEventReasons(handle, out)
                        : api.nvmlDeviceGetCurrentClocksThrottleReasons(handle, out);
                if (ok(rc, reasonsFn.get())) {
                    reasons = OptionalLong.of(out.getLong(0));
                }
            }
            return new GpuSample(index, uuid, takenAt, gpuUtil, memUtil, memory, temperature, power, enforced,
                    management, energy, graphicsClock, smClock, memClock, maxSmClock, maxMemClock, pstate, fan,
                    reasons, readEcc(out));
        });
    }

    /**
     * Memory for the out-parameters of one sample's calls, one block per thread: JNA's structures and
     * {@code ByReference}s allocate and register native memory per call, which cost more than the calls.
     * Each call's result is read before the next call.
     */
    private static final ThreadLocal<Memory> OUT = ThreadLocal.withInitial(() -> new Memory(64));

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

    /** A function of the sample that writes one value through its last argument. */
    @FunctionalInterface
    interface OutCall {
        int call(Pointer device, Pointer out);
    }

    private OptionalInt uintOut(String function, OutCall call, Memory out) {
        if (!library.has(function)) {
            return OptionalInt.empty();
        }
        return ok(call.call(handle, out), function) ? OptionalInt.of(out.getInt(0)) : OptionalInt.empty();
    }

    private OptionalLong unsignedInt(String function, OutCall call, Memory out) {
        OptionalInt v = uintOut(function, call, out);
        return v.isPresent() ? OptionalLong.of(Integer.toUnsignedLong(v.getAsInt())) : OptionalLong.empty();
    }

    private OptionalLong counter(String function, OutCall call, Memory out) {
        if (!library.has(function)) {
            return OptionalLong.empty();
        }
        return ok(call.call(handle, out), function) && out.getLong(0) >= 0 ? OptionalLong.of(out.getLong(0))
                : OptionalLong.empty();
    }

    private OptionalInt clock(String function, int type, Memory out) {
        if (!library.has(function)) {
            return OptionalInt.empty();
        }
        int rc = function.equals("nvmlDeviceGetClockInfo") ? api.nvmlDeviceGetClockInfo(handle, type, out)
                : api.nvmlDeviceGetMaxClockInfo(handle, type, out);
        return ok(rc, function) ? OptionalInt.of(out.getInt(0)) : OptionalInt.empty();
    }

    private Optional<GpuMemory> readMemory(Memory out) {
        if (library.has("nvmlDeviceGetMemoryInfo_v2")) {
            out.clear(Layouts.MEM2_SIZE);
            out.setInt(0, Layouts.MEM2_VERSION_VALUE);
            int rc = api.nvmlDeviceGetMemoryInfo_v2(handle, out);
            if (rc == RC_SUCCESS) {
                return Optional.of(memory(out.getLong(Layouts.MEM2_TOTAL), out.getLong(Layouts.MEM2_USED),
                        out.getLong(Layouts.MEM2_FREE), OptionalLong.of(out.getLong(Layouts.MEM2_RESERVED)), false,
                        "nvmlDeviceGetMemoryInfo_v2"));
            }
            if (rc != RC_ARGUMENT_VERSION_MISMATCH && rc != NvmlReturn.FUNCTION_NOT_FOUND.code()) {
                if (!ok(rc, "nvmlDeviceGetMemoryInfo_v2")) {
                    return Optional.empty();
                }
            }
        }
        if (library.has("nvmlDeviceGetMemoryInfo")) {
            if (ok(api.nvmlDeviceGetMemoryInfo(handle, out), "nvmlDeviceGetMemoryInfo")) {
                return Optional.of(memory(out.getLong(Layouts.MEM_TOTAL), out.getLong(Layouts.MEM_USED),
                        out.getLong(Layouts.MEM_FREE), OptionalLong.empty(), true, "nvmlDeviceGetMemoryInfo"));
            }
        }
        return Optional.empty();
    }

    private GpuMemory memory(long total, long used, long free, OptionalLong reserved, boolean v1, String function) {
        if (total < 0 || used < 0 || free < 0 || (reserved.isPresent() && reserved.getAsLong() < 0)) {
            throw new ProcscopeException(function + " on " + label() + " reported memory figures that cannot be"
                    + " (total " + Long.toUnsignedString(total) + ", used " + Long.toUnsignedString(used)
                    + ", free " + Long.toUnsignedString(free)
                    + reserved.stream().mapToObj(r -> ", reserved " + Long.toUnsignedString(r)).findFirst().orElse("")
                    + " bytes): the driver's answer is not believable");
        }
        return new GpuMemory(total, used, free, reserved, v1);
    }

    private OptionalInt readTemperature(Memory out) {
        if (library.has("nvmlDeviceGetTemperatureV")) {
            out.setInt(0, Layouts.TEMP_VERSION_VALUE);
            out.setInt(Layouts.TEMP_SENSOR, NvmlNative.NVML_TEMPERATURE_GPU);
            out.setInt(Layouts.TEMP_VALUE, 0);
            int rc = api.nvmlDeviceGetTemperatureV(handle, out);
            if (rc == RC_SUCCESS) {
                return OptionalInt.of(out.getInt(Layouts.TEMP_VALUE));
            }
            if (rc != RC_ARGUMENT_VERSION_MISMATCH && rc != NvmlReturn.FUNCTION_NOT_FOUND.code()) {
                ok(rc, "nvmlDeviceGetTemperatureV");
                return OptionalInt.empty();
            }
        }
        if (library.has("nvmlDeviceGetTemperature")) {
            if (ok(api.nvmlDeviceGetTemperature(handle, NvmlNative.NVML_TEMPERATURE_GPU, out),
                    "nvmlDeviceGetTemperature")) {
                return OptionalInt.of(out.getInt(0));
            }
        }
        return OptionalInt.empty();
    }

    private Optional<EccErrorCounts> readEcc(Memory out) {
        if (!library.has("nvmlDeviceGetTotalEccErrors")) {
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
        return ok(api.nvmlDeviceGetTotalEccErrors(handle, errorType, counterType, out), "nvmlDeviceGetTotalEccErrors")
                && out.getLong(0) >= 0 ? OptionalLong.of(out.getLong(0)) : OptionalLong.empty();
    }

    // ---- processes ----

    private static final Map<GpuProcessType, String[]> PROCESS_FUNCTIONS = Map.of(
            GpuProcessType.COMPUTE, new String[] {"nvmlDeviceGetComputeRunningProcesses_v3",
                    "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses"},
            GpuProcessType.GRAPHICS, new String[] {"nvmlDeviceGetGraphicsRunningProcesses_v3",
                    "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses"},
            GpuProcessType.MPS_COMPUTE, new String[] {"nvmlDeviceGetMPSComputeRunningProcesses_v3",
                    "nvmlDeviceGetMPSComputeRunningProcesses_v2", "nvmlDeviceGetMPSComputeRunningProcesses"});

    private ProcessListReader.ListCall listCall(String function) {
        return switch (function) {
            case "nvmlDeviceGetComputeRunningProcesses_v3" -> api::nvmlDeviceGetComputeRunningProcesses_v3;
            case "nvmlDeviceGetComputeRunningProcesses_v2" -> api::nvmlDeviceGetComputeRunningProcesses_v2;
            case "nvmlDeviceGetComputeRunningProcesses" -> api::nvmlDeviceGetComputeRunningProcesses;
            case "nvmlDeviceGetGraphicsRunningProcesses_v3" -> api::nvmlDeviceGetGraphicsRunningProcesses_v3;
            case "nvmlDeviceGetGraphicsRunningProcesses_v2" -> api::nvmlDeviceGetGraphicsRunningProcesses_v2;
            case "nvmlDeviceGetGraphicsRunningProcesses" -> api::nvmlDeviceGetGraphicsRunningProcesses;
            case "nvmlDeviceGetMPSComputeRunningProcesses_v3" -> api::nvmlDeviceGetMPSComputeRunningProcesses_v3;
            case "nvmlDeviceGetMPSComputeRunningProcesses_v2" -> api::nvmlDeviceGetMPSComputeRunningProcesses_v2;
            case "nvmlDeviceGetMPSComputeRunningProcesses" -> api::nvmlDeviceGetMPSComputeRunningProcesses;
            default -> throw new IllegalArgumentException(function);
        };
    }

    private record Key(long pid, int gpuInstanceId, int computeInstanceId) {
    }

    private static final Comparator<Key> KEY_ORDER = Comparator.comparingLong(Key::pid)
            .thenComparingLong(k -> Integer.toUnsignedLong(k.gpuInstanceId()))
            .thenComparingLong(k -> Integer.toUnsignedLong(k.computeInstanceId()));

    @Override
    public GpuProcesses processes() {
        return guarded("nvmlDeviceGetComputeRunningProcesses_v3", () -> {
            Map<Key, Set<GpuProcessType>> types = new TreeMap<>(KEY_ORDER);
            Map<Key, Long> memory = new TreeMap<>(KEY_ORDER);
            Map<GpuProcessType, NvmlReturn> withheld = new EnumMap<>(GpuProcessType.class);
            for (GpuProcessType type : GpuProcessType.values()) {
                Optional<String> function = library.newest(PROCESS_FUNCTIONS.get(type));
                if (function.isEmpty()) {
                    withheld.put(type, NvmlReturn.FUNCTION_NOT_FOUND);
                    continue;
                }
                String fn = function.get();
                int version = fn.endsWith("_v3") ? 3 : fn.endsWith("_v2") ? 2 : 1;
                ProcessListReader.Result result = ProcessListReader.read(listCall(fn), fn, version,
                        owner.parsedDriverVersion(), handle, totalMemory, label());
                if (!ok(result.returnCode(), fn)) {
                    withheld.put(type, NvmlReturn.of(result.returnCode()));
                    continue;
                }
                for (ProcessListReader.RawProcess raw : result.processes()) {
                    Key key = new Key(raw.pid(), raw.gpuInstanceId(), raw.computeInstanceId());
                    types.computeIfAbsent(key, k -> EnumSet.noneOf(GpuProcessType.class)).add(type);
                    long used = raw.usedGpuMemory();
                    if (used != NvmlNative.NVML_VALUE_NOT_AVAILABLE) {
                        memory.merge(key, used, Math::max);
                    }
                }
            }
            List<GpuProcess> out = new ArrayList<>(types.size());
            for (Map.Entry<Key, Set<GpuProcessType>> e : types.entrySet()) {
                Key k = e.getKey();
                Long used = memory.get(k);
                out.add(new GpuProcess(index, uuid, k.pid(), e.getValue(),
                        used == null ? OptionalLong.empty() : OptionalLong.of(used),
                        instanceId(k.gpuInstanceId()), instanceId(k.computeInstanceId())));
            }
            return new GpuProcesses(out, withheld);
        });
    }

    private static OptionalInt instanceId(int raw) {
        return raw == NvmlNative.NO_INSTANCE_ID ? OptionalInt.empty() : OptionalInt.of(raw);
    }

    // ---- per-process utilization ----

    @Override
    public Optional<List<GpuProcessUtilization>> processUtilization(Instant since) {
        Objects.requireNonNull(since, "since");
        long lastSeen = since.isBefore(Instant.EPOCH) ? 0
                : Math.addExact(Math.multiplyExact(since.getEpochSecond(), 1_000_000L), since.getNano() / 1000);
        return guarded("nvmlDeviceGetProcessesUtilizationInfo", () -> {
            if (library.has("nvmlDeviceGetProcessesUtilizationInfo")) {
                Optional<Optional<List<GpuProcessUtilization>>> r = utilizationInfo(lastSeen);
                if (r.isPresent()) {
                    return r.get();
                }
            }
            if (library.has("nvmlDeviceGetProcessUtilization")) {
                return utilizationSamples(lastSeen);
            }
            return Optional.empty();
        });
    }

    /** @return the answer of the newer query, or empty to fall back to the older one */
    private Optional<Optional<List<GpuProcessUtilization>>> utilizationInfo(long lastSeen) {
        String fn = "nvmlDeviceGetProcessesUtilizationInfo";
        int capacity = 0;
        for (int attempt = 0; attempt < ProcessListReader.MAX_ATTEMPTS; attempt++) {
            NvmlStructs.ProcessesUtilizationInfoV1 info = new NvmlStructs.ProcessesUtilizationInfoV1();
            int entrySize = new NvmlStructs.ProcessUtilizationInfoV1().size();
            Memory array = capacity == 0 ? null : new Memory((long) capacity * entrySize);
            info.lastSeenTimeStamp = lastSeen;
            info.processSamplesCount = capacity;
            info.procUtilArray = array;
            int rc = api.nvmlDeviceGetProcessesUtilizationInfo(handle, info);
            if (rc == RC_ARGUMENT_VERSION_MISMATCH) {
                return Optional.empty();
            }
            if (rc == RC_NOT_FOUND) {
                return Optional.of(Optional.of(List.of()));
            }
            if (rc == RC_INSUFFICIENT_SIZE) {
                capacity = Math.max(capacity, info.processSamplesCount) + 4;
                continue;
            }
            if (!ok(rc, fn)) {
                return Optional.of(Optional.empty());
            }
            int n = Math.min(info.processSamplesCount, capacity);
            List<GpuProcessUtilization> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                NvmlStructs.ProcessUtilizationInfoV1 e = new NvmlStructs.ProcessUtilizationInfoV1(array.share((long) i * entrySize));
                e.read();
                out.add(new GpuProcessUtilization(uuid, Integer.toUnsignedLong(e.pid), micros(e.timeStamp), e.smUtil,
                        e.memUtil, e.encUtil, e.decUtil, OptionalInt.of(e.jpgUtil), OptionalInt.of(e.ofaUtil)));
            }
            return Optional.of(Optional.of(sortByPid(out)));
        }
        throw new ProcscopeException(fn + " on " + label() + " kept asking for a larger buffer; try again");
    }

    private Optional<List<GpuProcessUtilization>> utilizationSamples(long lastSeen) {
        String fn = "nvmlDeviceGetProcessUtilization";
        int entrySize = new NvmlStructs.ProcessUtilizationSample().size();
        int capacity = 0;
        for (int attempt = 0; attempt < ProcessListReader.MAX_ATTEMPTS; attempt++) {
            Memory array = capacity == 0 ? null : new Memory((long) capacity * entrySize);
            IntByReference count = new IntByReference(capacity);
            int rc = api.nvmlDeviceGetProcessUtilization(handle, array, count, lastSeen);
            if (rc == RC_NOT_FOUND) {
                return Optional.of(List.of());
            }
            if (rc == RC_INSUFFICIENT_SIZE) {
                capacity = Math.max(capacity, count.getValue()) + 4;
                continue;
            }
            if (!ok(rc, fn)) {
                return Optional.empty();
            }
            if (array == null) {
                return Optional.of(List.of());
            }
            int n = Math.min(count.getValue(), capacity);
            List<GpuProcessUtilization> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                NvmlStructs.ProcessUtilizationSample e = new NvmlStructs.ProcessUtilizationSample(array.share((long) i * entrySize));
                e.read();
                out.add(new GpuProcessUtilization(uuid, Integer.toUnsignedLong(e.pid), micros(e.timeStamp), e.smUtil,
                        e.memUtil, e.encUtil, e.decUtil, OptionalInt.empty(), OptionalInt.empty()));
            }
            return Optional.of(sortByPid(out));
        }
        throw new ProcscopeException(fn + " on " + label() + " kept asking for a larger buffer; try again");
    }

    private static List<GpuProcessUtilization> sortByPid(List<GpuProcessUtilization> list) {
        list.sort(Comparator.comparingLong(GpuProcessUtilization::pid).thenComparing(GpuProcessUtilization::timestamp));
        return Collections.unmodifiableList(list);
    }

    private static Instant micros(long micros) {
        return Instant.ofEpochSecond(Long.divideUnsigned(micros, 1_000_000L),
                Long.remainderUnsigned(micros, 1_000_000L) * 1000);
    }

    // ---- MIG ----

    @Override
    public List<GpuDevice> migDevices() {
        if (parent.isPresent()) {
            return List.of();
        }
        return guarded("nvmlDeviceGetMaxMigDeviceCount", () -> {
            if (!library.has("nvmlDeviceGetMaxMigDeviceCount") || !library.has("nvmlDeviceGetMigDeviceHandleByIndex")) {
                return List.of();
            }
            OptionalInt max = uint("nvmlDeviceGetMaxMigDeviceCount", api::nvmlDeviceGetMaxMigDeviceCount);
            if (max.isEmpty() || max.getAsInt() <= 0) {
                return List.of();
            }
            List<GpuDevice> out = new ArrayList<>();
            for (int slot = 0; slot < max.getAsInt(); slot++) {
                PointerByReference mig = new PointerByReference();
                int rc = api.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot, mig);
                if (rc == RC_NOT_FOUND || !ok(rc, "nvmlDeviceGetMigDeviceHandleByIndex")) {
                    continue; // an empty slot
                }
                Pointer h = mig.getValue();
                OptionalInt gi = migUint("nvmlDeviceGetGpuInstanceId", h, api::nvmlDeviceGetGpuInstanceId);
                OptionalInt ci = migUint("nvmlDeviceGetComputeInstanceId", h, api::nvmlDeviceGetComputeInstanceId);
                out.add(new NvmlDevice(owner, h, slot, Optional.of(this), gi, ci));
            }
            return Collections.unmodifiableList(out);
        });
    }

    private OptionalInt migUint(String function, Pointer h, UintCall call) {
        if (!library.has(function)) {
            return OptionalInt.empty();
        }
        IntByReference v = new IntByReference();
        return ok(call.call(h, v), function) ? OptionalInt.of(v.getValue()) : OptionalInt.empty();
    }

    // ---- GPM ----

    @Override
    public boolean gpmSupported() {
        return guarded("nvmlGpmQueryDeviceSupport", this::queryGpmSupport);
    }

    private boolean queryGpmSupport() {
        if (!library.has("nvmlGpmQueryDeviceSupport") || !library.has("nvmlGpmSampleAlloc")
                || !library.has("nvmlGpmSampleGet") || !library.has("nvmlGpmMetricsGet")) {
            return false;
        }
        NvmlStructs.GpmSupport support = new NvmlStructs.GpmSupport();
        return ok(api.nvmlGpmQueryDeviceSupport(handle, support), "nvmlGpmQueryDeviceSupport")
                && support.isSupportedDevice != 0;
    }

    private static final int[] GPM_METRICS = {NvmlNative.NVML_GPM_METRIC_GRAPHICS_UTIL, NvmlNative.NVML_GPM_METRIC_SM_UTIL,
        NvmlNative.NVML_GPM_METRIC_SM_OCCUPANCY, NvmlNative.NVML_GPM_METRIC_ANY_TENSOR_UTIL,
        NvmlNative.NVML_GPM_METRIC_DRAM_BW_UTIL, NvmlNative.NVML_GPM_METRIC_FP64_UTIL, NvmlNative.NVML_GPM_METRIC_FP32_UTIL,
        NvmlNative.NVML_GPM_METRIC_FP16_UTIL, NvmlNative.NVML_GPM_METRIC_INTEGER_UTIL};

    @Override
    public Optional<GpmMetrics> gpmMetrics(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(GPM_MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("GPM samples must be at least 100 ms apart (NVML's refresh period): "
                    + interval);
        }
        return guarded("nvmlGpmSampleGet", () -> {
            if (!queryGpmSupport()) {
                return Optional.empty();
            }
            Pointer first = allocateGpmSample();
            Pointer second;
            try {
                second = allocateGpmSample();
            } catch (RuntimeException e) {
                freeGpmSample(first, e);
                throw e;
            }
            RuntimeException failure = null;
            try {
                if (!ok(api.nvmlGpmSampleGet(handle, first), "nvmlGpmSampleGet")) {
                    return Optional.empty();
                }
                long start = System.nanoTime();
                if (owner.awaitClosing(interval)) {
                    throw owner.closedException();
                }
                if (!ok(api.nvmlGpmSampleGet(handle, second), "nvmlGpmSampleGet")) {
                    return Optional.empty();
                }
                Duration measured = Duration.ofNanos(System.nanoTime() - start);
                NvmlStructs.GpmMetricsGet get = new NvmlStructs.GpmMetricsGet();
                get.sample1 = first;
                get.sample2 = second;
                get.numMetrics = GPM_METRICS.length;
                for (int i = 0; i < GPM_METRICS.length; i++) {
                    get.metrics[i].metricId = GPM_METRICS[i];
                }
                if (!ok(api.nvmlGpmMetricsGet(get), "nvmlGpmMetricsGet")) {
                    return Optional.empty();
                }
                OptionalDouble[] v = new OptionalDouble[GPM_METRICS.length];
                for (int i = 0; i < GPM_METRICS.length; i++) {
                    NvmlStructs.GpmMetric m = get.metrics[i];
                    v[i] = m.nvmlReturn == RC_SUCCESS && !Double.isNaN(m.value) ? OptionalDouble.of(m.value)
                            : OptionalDouble.empty();
                }
                return Optional.of(new GpmMetrics(uuid, measured, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]));
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            } finally {
                freeGpmSample(second, failure);
                freeGpmSample(first, failure);
            }
        });
    }

    private Pointer allocateGpmSample() {
        PointerByReference sample = new PointerByReference();
        int rc = api.nvmlGpmSampleAlloc(sample);
        if (rc != RC_SUCCESS) {
            throw failure(rc, "nvmlGpmSampleAlloc");
        }
        return sample.getValue();
    }

    private void freeGpmSample(Pointer sample, RuntimeException pending) {
        int rc = api.nvmlGpmSampleFree(sample);
        if (rc != RC_SUCCESS) {
            NvmlException e = failure(rc, "nvmlGpmSampleFree");
            if (pending != null) {
                pending.addSuppressed(e);
            } else {
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return label() + " " + name;
    }
}
