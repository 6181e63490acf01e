package io.github.procscope.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.gpu.GpuProcessType;
import io.github.procscope.nvml.NvmlFunction.Candidate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

/**
 * Every NVML function the binding calls, as typed handles resolved once per loaded library (NVIDIA's Go
 * binding probes its versioned symbols the same way when it loads the library). Each family lists its
 * symbols newest first, and the handle takes the newest the library exports: {@code _v3} process lists, then
 * {@code _v2}, then v1; {@code nvmlDeviceGetMemoryInfo_v2}, then v1; clock event reasons, then the older
 * throttle reasons; {@code nvmlSystemGetCudaDriverVersion_v2}, then v1;
 * {@code nvmlDeviceGetGridLicensableFeatures_v4}, then {@code _v3} (the older symbols wrote entry layouts this
 * binding does not read). Where a newer function changed the C signature ({@code nvmlDeviceGetTemperatureV},
 * {@code nvmlDeviceGetProcessesUtilizationInfo}) it is a handle of its own, and the caller falls back to the older
 * handle itself.
 *
 * <p>The calls are the raw binding's methods ({@link NvmlNative}), so this class adds no behaviour: it only
 * decides, once, which of them may be called. Immutable and thread-safe.
 */
final class NvmlFunctions {

    // ---- the C signatures, one functional interface per shape ----

    /** {@code nvmlReturn_t f(void)}. */
    @FunctionalInterface
    interface NoArguments {
        int call();
    }

    /** {@code const char* nvmlErrorString(nvmlReturn_t)}. */
    @FunctionalInterface
    interface ErrorText {
        Pointer call(int result);
    }

    /** {@code nvmlReturn_t f(char* buffer, unsigned int length)}. */
    @FunctionalInterface
    interface SystemString {
        int call(byte[] buffer, int length);
    }

    /** {@code nvmlReturn_t f(unsigned int* value)} (or {@code int*}). */
    @FunctionalInterface
    interface SystemInt {
        int call(IntByReference value);
    }

    /** {@code nvmlReturn_t f(unsigned int index, nvmlDevice_t* device)}. */
    @FunctionalInterface
    interface HandleByIndex {
        int call(int index, PointerByReference device);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, char* buffer, unsigned int length)}. */
    @FunctionalInterface
    interface DeviceString {
        int call(Pointer device, byte[] buffer, int length);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, unsigned int* value)} (or an enum out-parameter). */
    @FunctionalInterface
    interface DeviceInt {
        int call(Pointer device, IntByReference value);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, T* current, T* pending)}: a mode now and after the next reset. */
    @FunctionalInterface
    interface DeviceIntPair {
        int call(Pointer device, IntByReference current, IntByReference pending);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, T* out)}, with {@code out} in memory the caller owns. */
    @FunctionalInterface
    interface DeviceOut {
        int call(Pointer device, Pointer out);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, enum kind, T* out)}: a sensor or clock chosen by an enum. */
    @FunctionalInterface
    interface DeviceKindOut {
        int call(Pointer device, int kind, Pointer out);
    }

    /** {@code nvmlDeviceGetTotalEccErrors(nvmlDevice_t, errorType, counterType, unsigned long long*)}. */
    @FunctionalInterface
    interface EccCount {
        int call(Pointer device, int errorType, int counterType, Pointer out);
    }

    /** {@code nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned int* x4)}: corrected, uncorrected, pending, failed. */
    @FunctionalInterface
    interface RemappedRows {
        int call(Pointer device, IntByReference corrRows, IntByReference uncRows, IntByReference isPending,
                 IntByReference failureOccurred);
    }

    /** {@code nvmlReturn_t f(nvmlDevice_t, unsigned int* first, unsigned int* second)}, in memory the caller owns. */
    @FunctionalInterface
    interface DeviceOutPair {
        int call(Pointer device, Pointer first, Pointer second);
    }

    /** {@code nvmlDeviceGetFieldValues(nvmlDevice_t, int valuesCount, nvmlFieldValue_t* values)}. */
    @FunctionalInterface
    interface FieldValues {
        int call(Pointer device, int valuesCount, Pointer values);
    }

    /** {@code nvmlEventSetCreate(nvmlEventSet_t*)}. */
    @FunctionalInterface
    interface EventSetCreate {
        int call(PointerByReference set);
    }

    /** {@code nvmlDeviceGetSupportedEventTypes(nvmlDevice_t, unsigned long long*)}. */
    @FunctionalInterface
    interface SupportedEvents {
        int call(Pointer device, com.sun.jna.ptr.LongByReference eventTypes);
    }

    /** {@code nvmlDeviceRegisterEvents(nvmlDevice_t, unsigned long long eventTypes, nvmlEventSet_t)}. */
    @FunctionalInterface
    interface RegisterEvents {
        int call(Pointer device, long eventTypes, Pointer set);
    }

    /** {@code nvmlEventSetWait_v2(nvmlEventSet_t, nvmlEventData_t*, unsigned int timeoutms)}. */
    @FunctionalInterface
    interface EventSetWait {
        int call(Pointer set, Pointer data, int timeoutms);
    }

    /** {@code nvmlEventSetFree(nvmlEventSet_t)}. */
    @FunctionalInterface
    interface EventSetFree {
        int call(Pointer set);
    }

    /** {@code nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t*)}. */
    @FunctionalInterface
    interface PciInfo {
        int call(Pointer device, NvmlStructs.PciInfo pci);
    }

    /** {@code nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t, unsigned int, nvmlDevice_t*)}. */
    @FunctionalInterface
    interface MigHandle {
        int call(Pointer device, int index, PointerByReference migDevice);
    }

    /** {@code nvmlDeviceGet*RunningProcesses*(nvmlDevice_t, unsigned int* infoCount, nvmlProcessInfo*_t* infos)}. */
    @FunctionalInterface
    interface ProcessList {
        int call(Pointer device, IntByReference infoCount, Pointer infos);
    }

    /** {@code nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t, nvmlProcessesUtilizationInfo_t*)}. */
    @FunctionalInterface
    interface UtilizationInfo {
        int call(Pointer device, NvmlStructs.ProcessesUtilizationInfoV1 info);
    }

    /** {@code nvmlDeviceGetProcessUtilization(nvmlDevice_t, samples*, unsigned int* count, unsigned long long)}. */
    @FunctionalInterface
    interface UtilizationSamples {
        int call(Pointer device, Pointer samples, IntByReference count, long lastSeenTimeStamp);
    }

    /** {@code nvmlGpmQueryDeviceSupport(nvmlDevice_t, nvmlGpmSupport_t*)}. */
    @FunctionalInterface
    interface GpmSupport {
        int call(Pointer device, NvmlStructs.GpmSupport support);
    }

    /** {@code nvmlGpmSampleAlloc(nvmlGpmSample_t*)}. */
    @FunctionalInterface
    interface GpmAlloc {
        int call(PointerByReference sample);
    }

    /** {@code nvmlGpmSampleFree(nvmlGpmSample_t)}. */
    @FunctionalInterface
    interface GpmFree {
        int call(Pointer sample);
    }

    /** {@code nvmlGpmMetricsGet(nvmlGpmMetricsGet_t*)}. */
    @FunctionalInterface
    interface GpmMetrics {
        int call(NvmlStructs.GpmMetricsGet metricsGet);
    }

    private final Predicate<String> exported;
    private final List<NvmlFunction<?>> all = new ArrayList<>();
    private final List<NvmlFunction<?>> required = new ArrayList<>();

    // ---- initialization, errors, system ----
    final NvmlFunction<NoArguments> init;
    final NvmlFunction<NoArguments> shutdown;
    final NvmlFunction<ErrorText> errorString;
    final NvmlFunction<SystemString> driverVersion;
    final NvmlFunction<SystemString> nvmlVersion;
    final NvmlFunction<SystemInt> cudaDriverVersion;
    final NvmlFunction<SystemInt> deviceCount;
    final NvmlFunction<HandleByIndex> handleByIndex;
    // ---- identity ----
    final NvmlFunction<DeviceString> name;
    final NvmlFunction<DeviceString> uuid;
    final NvmlFunction<DeviceString> serial;
    final NvmlFunction<PciInfo> pciInfo;
    final NvmlFunction<DeviceInt> index;
    final NvmlFunction<DeviceInt> minorNumber;
    // ---- modes ----
    final NvmlFunction<DeviceInt> persistenceMode;
    final NvmlFunction<DeviceIntPair> eccMode;
    final NvmlFunction<DeviceIntPair> migMode;
    // ---- metrics ----
    final NvmlFunction<DeviceOut> memoryInfo;
    final NvmlFunction<DeviceOut> utilizationRates;
    final NvmlFunction<DeviceOut> temperatureV;
    final NvmlFunction<DeviceKindOut> temperature;
    final NvmlFunction<DeviceOut> powerUsage;
    final NvmlFunction<DeviceOut> enforcedPowerLimit;
    final NvmlFunction<DeviceOut> powerManagementLimit;
    final NvmlFunction<DeviceOut> totalEnergyConsumption;
    final NvmlFunction<DeviceKindOut> clockInfo;
    final NvmlFunction<DeviceKindOut> maxClockInfo;
    final NvmlFunction<DeviceOut> performanceState;
    final NvmlFunction<DeviceOut> fanSpeed;
    final NvmlFunction<DeviceOut> clocksEventReasons;
    final NvmlFunction<EccCount> totalEccErrors;
    final NvmlFunction<DeviceInt> pcieReplayCounter;
    final NvmlFunction<RemappedRows> remappedRows;
    final NvmlFunction<FieldValues> fieldValues;
    final NvmlFunction<DeviceOutPair> encoderUtilization;
    final NvmlFunction<DeviceOutPair> decoderUtilization;
    final NvmlFunction<DeviceOut> gridLicensableFeatures;
    // ---- events ----
    final NvmlFunction<EventSetCreate> eventSetCreate;
    final NvmlFunction<SupportedEvents> supportedEventTypes;
    final NvmlFunction<RegisterEvents> registerEvents;
    final NvmlFunction<EventSetWait> eventSetWait;
    final NvmlFunction<EventSetFree> eventSetFree;
    // ---- MIG ----
    final NvmlFunction<DeviceInt> maxMigDeviceCount;
    final NvmlFunction<MigHandle> migDeviceHandleByIndex;
    final NvmlFunction<DeviceInt> isMigDeviceHandle;
    final NvmlFunction<DeviceInt> gpuInstanceId;
    final NvmlFunction<DeviceInt> computeInstanceId;
    // ---- processes ----
    final NvmlFunction<ProcessList> computeRunningProcesses;
    final NvmlFunction<ProcessList> graphicsRunningProcesses;
    final NvmlFunction<ProcessList> mpsComputeRunningProcesses;
    final NvmlFunction<UtilizationInfo> processesUtilizationInfo;
    final NvmlFunction<UtilizationSamples> processUtilization;
    // ---- GPM ----
    final NvmlFunction<GpmSupport> gpmQueryDeviceSupport;
    final NvmlFunction<GpmAlloc> gpmSampleAlloc;
    final NvmlFunction<GpmFree> gpmSampleFree;
    final NvmlFunction<DeviceOut> gpmSampleGet;
    final NvmlFunction<GpmMetrics> gpmMetricsGet;

    /**
     * Resolves every family against one library.
     *
     * @param api      the raw binding of the library
     * @param exported whether the library exports a symbol (probed once per symbol)
     */
    NvmlFunctions(NvmlNative api, Predicate<String> exported) {
        this.exported = exported;
        init = required(one("nvmlInit_v2", api::nvmlInit_v2));
        shutdown = required(one("nvmlShutdown", api::nvmlShutdown));
        errorString = required(one("nvmlErrorString", api::nvmlErrorString));
        driverVersion = required(one("nvmlSystemGetDriverVersion", api::nvmlSystemGetDriverVersion));
        nvmlVersion = one("nvmlSystemGetNVMLVersion", api::nvmlSystemGetNVMLVersion);
        cudaDriverVersion = family("nvmlSystemGetCudaDriverVersion",
                v("nvmlSystemGetCudaDriverVersion_v2", api::nvmlSystemGetCudaDriverVersion_v2),
                v("nvmlSystemGetCudaDriverVersion", api::nvmlSystemGetCudaDriverVersion));
        deviceCount = required(one("nvmlDeviceGetCount_v2", api::nvmlDeviceGetCount_v2));
        handleByIndex = required(one("nvmlDeviceGetHandleByIndex_v2", api::nvmlDeviceGetHandleByIndex_v2));

        name = required(one("nvmlDeviceGetName", api::nvmlDeviceGetName));
        uuid = required(one("nvmlDeviceGetUUID", api::nvmlDeviceGetUUID));
        serial = one("nvmlDeviceGetSerial", api::nvmlDeviceGetSerial);
        pciInfo = one("nvmlDeviceGetPciInfo_v3", api::nvmlDeviceGetPciInfo_v3);
        index = one("nvmlDeviceGetIndex", api::nvmlDeviceGetIndex);
        minorNumber = one("nvmlDeviceGetMinorNumber", api::nvmlDeviceGetMinorNumber);

        persistenceMode = one("nvmlDeviceGetPersistenceMode", api::nvmlDeviceGetPersistenceMode);
        eccMode = one("nvmlDeviceGetEccMode", api::nvmlDeviceGetEccMode);
        migMode = one("nvmlDeviceGetMigMode", api::nvmlDeviceGetMigMode);

        memoryInfo = family("nvmlDeviceGetMemoryInfo",
                v("nvmlDeviceGetMemoryInfo_v2", api::nvmlDeviceGetMemoryInfo_v2),
                v("nvmlDeviceGetMemoryInfo", api::nvmlDeviceGetMemoryInfo));
        utilizationRates = one("nvmlDeviceGetUtilizationRates", api::nvmlDeviceGetUtilizationRates);
        temperatureV = one("nvmlDeviceGetTemperatureV", api::nvmlDeviceGetTemperatureV);
        temperature = one("nvmlDeviceGetTemperature", api::nvmlDeviceGetTemperature);
        powerUsage = one("nvmlDeviceGetPowerUsage", api::nvmlDeviceGetPowerUsage);
        enforcedPowerLimit = one("nvmlDeviceGetEnforcedPowerLimit", api::nvmlDeviceGetEnforcedPowerLimit);
        powerManagementLimit = one("nvmlDeviceGetPowerManagementLimit", api::nvmlDeviceGetPowerManagementLimit);
        totalEnergyConsumption = one("nvmlDeviceGetTotalEnergyConsumption", api::nvmlDeviceGetTotalEnergyConsumption);
        clockInfo = one("nvmlDeviceGetClockInfo", api::nvmlDeviceGetClockInfo);
        maxClockInfo = one("nvmlDeviceGetMaxClockInfo", api::nvmlDeviceGetMaxClockInfo);
        performanceState = one("nvmlDeviceGetPerformanceState", api::nvmlDeviceGetPerformanceState);
        fanSpeed = one("nvmlDeviceGetFanSpeed", api::nvmlDeviceGetFanSpeed);
        clocksEventReasons = family("nvmlDeviceGetCurrentClocksEventReasons",
                new Candidate<>("nvmlDeviceGetCurrentClocksEventReasons", 2,
                        api::nvmlDeviceGetCurrentClocksEventReasons),
                new Candidate<>("nvmlDeviceGetCurrentClocksThrottleReasons", 1,
                        api::nvmlDeviceGetCurrentClocksThrottleReasons));
        totalEccErrors = one("nvmlDeviceGetTotalEccErrors", api::nvmlDeviceGetTotalEccErrors);
        pcieReplayCounter = one("nvmlDeviceGetPcieReplayCounter", api::nvmlDeviceGetPcieReplayCounter);
        remappedRows = one("nvmlDeviceGetRemappedRows", api::nvmlDeviceGetRemappedRows);
        fieldValues = one("nvmlDeviceGetFieldValues", api::nvmlDeviceGetFieldValues);
        encoderUtilization = one("nvmlDeviceGetEncoderUtilization", api::nvmlDeviceGetEncoderUtilization);
        decoderUtilization = one("nvmlDeviceGetDecoderUtilization", api::nvmlDeviceGetDecoderUtilization);
        gridLicensableFeatures = family("nvmlDeviceGetGridLicensableFeatures",
                v("nvmlDeviceGetGridLicensableFeatures_v4", api::nvmlDeviceGetGridLicensableFeatures_v4),
                v("nvmlDeviceGetGridLicensableFeatures_v3", api::nvmlDeviceGetGridLicensableFeatures_v3));

        eventSetCreate = one("nvmlEventSetCreate", api::nvmlEventSetCreate);
        supportedEventTypes = one("nvmlDeviceGetSupportedEventTypes", api::nvmlDeviceGetSupportedEventTypes);
        registerEvents = one("nvmlDeviceRegisterEvents", api::nvmlDeviceRegisterEvents);
        eventSetWait = one("nvmlEventSetWait_v2", api::nvmlEventSetWait_v2);
        eventSetFree = one("nvmlEventSetFree", api::nvmlEventSetFree);

        maxMigDeviceCount = one("nvmlDeviceGetMaxMigDeviceCount", api::nvmlDeviceGetMaxMigDeviceCount);
        migDeviceHandleByIndex = one("nvmlDeviceGetMigDeviceHandleByIndex", api::nvmlDeviceGetMigDeviceHandleByIndex);
        isMigDeviceHandle = one("nvmlDeviceIsMigDeviceHandle", api::nvmlDeviceIsMigDeviceHandle);
        gpuInstanceId = one("nvmlDeviceGetGpuInstanceId", api::nvmlDeviceGetGpuInstanceId);
        computeInstanceId = one("nvmlDeviceGetComputeInstanceId", api::nvmlDeviceGetComputeInstanceId);

        computeRunningProcesses = family("nvmlDeviceGetComputeRunningProcesses",
                v("nvmlDeviceGetComputeRunningProcesses_v3", api::nvmlDeviceGetComputeRunningProcesses_v3),
                v("nvmlDeviceGetComputeRunningProcesses_v2", api::nvmlDeviceGetComputeRunningProcesses_v2),
                v("nvmlDeviceGetComputeRunningProcesses", api::nvmlDeviceGetComputeRunningProcesses));
        graphicsRunningProcesses = family("nvmlDeviceGetGraphicsRunningProcesses",
                v("nvmlDeviceGetGraphicsRunningProcesses_v3", api::nvmlDeviceGetGraphicsRunningProcesses_v3),
                v("nvmlDeviceGetGraphicsRunningProcesses_v2", api::nvmlDeviceGetGraphicsRunningProcesses_v2),
                v("nvmlDeviceGetGraphicsRunningProcesses", api::nvmlDeviceGetGraphicsRunningProcesses));
        mpsComputeRunningProcesses = family("nvmlDeviceGetMPSComputeRunningProcesses",
                v("nvmlDeviceGetMPSComputeRunningProcesses_v3", api::nvmlDeviceGetMPSComputeRunningProcesses_v3),
                v("nvmlDeviceGetMPSComputeRunningProcesses_v2", api::nvmlDeviceGetMPSComputeRunningProcesses_v2),
                v("nvmlDeviceGetMPSComputeRunningProcesses", api::nvmlDeviceGetMPSComputeRunningProcesses));
        processesUtilizationInfo = one("nvmlDeviceGetProcessesUtilizationInfo",
                api::nvmlDeviceGetProcessesUtilizationInfo);
        processUtilization = one("nvmlDeviceGetProcessUtilization", api::nvmlDeviceGetProcessUtilization);

        gpmQueryDeviceSupport = one("nvmlGpmQueryDeviceSupport", api::nvmlGpmQueryDeviceSupport);
        gpmSampleAlloc = one("nvmlGpmSampleAlloc", api::nvmlGpmSampleAlloc);
        gpmSampleFree = one("nvmlGpmSampleFree", api::nvmlGpmSampleFree);
        gpmSampleGet = one("nvmlGpmSampleGet", api::nvmlGpmSampleGet);
        gpmMetricsGet = one("nvmlGpmMetricsGet", api::nvmlGpmMetricsGet);
    }

    /**
     * @param type a kind of GPU process
     * @return the handle on its running-process list
     */
    NvmlFunction<ProcessList> runningProcesses(GpuProcessType type) {
        return switch (type) {
            case COMPUTE -> computeRunningProcesses;
            case GRAPHICS -> graphicsRunningProcesses;
            case MPS_COMPUTE -> mpsComputeRunningProcesses;
        };
    }

    /** @return whether every GPM function is exported (GPM needs them all: query, two samples, metrics, free) */
    boolean gpm() {
        return gpmQueryDeviceSupport.isPresent() && gpmSampleAlloc.isPresent() && gpmSampleFree.isPresent()
                && gpmSampleGet.isPresent() && gpmMetricsGet.isPresent();
    }

    /** @return whether the XID event functions are all exported (create, register, wait, free) */
    boolean events() {
        return eventSetCreate.isPresent() && registerEvents.isPresent() && eventSetWait.isPresent()
                && eventSetFree.isPresent();
    }

    /** @return every handle, in the order of {@code nvml.h}'s sections as this class lists them */
    List<NvmlFunction<?>> all() {
        return Collections.unmodifiableList(all);
    }

    /**
     * @return the newest symbol of each family every NVML since 5.319 exports that this library lacks; without
     *         them the library is unusable
     */
    List<String> missingRequired() {
        return required.stream().filter(f -> !f.isPresent()).map(NvmlFunction::name).toList();
    }

    private <F> NvmlFunction<F> required(NvmlFunction<F> f) {
        required.add(f);
        return f;
    }

    private <F> NvmlFunction<F> one(String symbol, F call) {
        return family(symbol, v(symbol, call));
    }

    @SafeVarargs
    private <F> NvmlFunction<F> family(String family, Candidate<F>... newestFirst) {
        List<Candidate<F>> candidates = new ArrayList<>(newestFirst.length);
        for (Candidate<F> c : newestFirst) {
            candidates.add(c);
        }
        NvmlFunction<F> f = NvmlFunction.resolve(family, candidates, exported);
        all.add(f);
        return f;
    }

    /** @return a candidate whose version is its {@code _vN} suffix, 1 without one */
    private static <F> Candidate<F> v(String symbol, F call) {
        int at = symbol.lastIndexOf("_v");
        int version = 1;
        if (at > 0 && at + 2 < symbol.length() && symbol.substring(at + 2).chars().allMatch(Character::isDigit)) {
            version = Integer.parseInt(symbol.substring(at + 2));
        }
        return new Candidate<>(symbol, version, call);
    }
}
