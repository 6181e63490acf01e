package io.github.procscope.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The raw binding: the NVML functions procscope uses, with the C signatures of {@code nvml.h} (NVML API
 * version 13, checked against the header NVIDIA publishes). Type mapping: {@code nvmlReturn_t} and every
 * other enum are {@code int}; {@code unsigned int} is {@code int} (read unsigned); {@code unsigned long long}
 * is {@code long}; {@code nvmlDevice_t} and {@code nvmlGpmSample_t} are opaque pointers; out-parameters are
 * {@code ...ByReference}; {@code char*} buffers are {@code byte[]}. The process lists take a plain
 * {@link Pointer} because the entry size is decided at run time ({@link ProcessListReader}).
 *
 * <p>Optional functions may be missing from an older driver's library: {@link NvmlLibrary} probes every
 * symbol once and never calls one that is absent. Nothing here is called before {@code nvmlInit_v2}
 * succeeded, except {@code nvmlInit_v2} and {@code nvmlErrorString}.
 */
interface NvmlNative extends Library {
    // ---- constants of nvml.h ----
    int NVML_SUCCESS = 0;
    /** {@code NVML_VALUE_NOT_AVAILABLE}: -1, seen as all ones in unsigned fields. */
    long NVML_VALUE_NOT_AVAILABLE = -1L;
    /** A MIG instance id of a process when MIG is off. */
    int NO_INSTANCE_ID = 0xFFFF_FFFF;
    int NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
    int NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
    int NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
    int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
    int NVML_DEVICE_SERIAL_BUFFER_SIZE = 30;
    int NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
    int NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;
    // nvmlTemperatureSensors_t
    int NVML_TEMPERATURE_GPU = 0;
    // nvmlClockType_t
    int NVML_CLOCK_GRAPHICS = 0;
    int NVML_CLOCK_SM = 1;
    int NVML_CLOCK_MEM = 2;
    int NVML_CLOCK_VIDEO = 3;
    // nvmlPstates_t
    int NVML_PSTATE_UNKNOWN = 32;
    // nvmlEnableState_t
    int NVML_FEATURE_DISABLED = 0;
    int NVML_FEATURE_ENABLED = 1;
    // nvmlMemoryErrorType_t
    int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
    int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
    // nvmlEccCounterType_t
    int NVML_VOLATILE_ECC = 0;
    int NVML_AGGREGATE_ECC = 1;
    // MIG modes
    int NVML_DEVICE_MIG_DISABLE = 0;
    int NVML_DEVICE_MIG_ENABLE = 1;
    // nvmlEventType
    long NVML_EVENT_TYPE_XID_CRITICAL_ERROR = 0x0000000000000008L;
    /** {@code sizeof(nvmlEventData_t)} on 64-bit: device pointer, eventType, eventData, two instance ids. */
    int NVML_EVENT_DATA_SIZE = 32;
    int NVML_EVENT_DATA_EVENT_TYPE_OFFSET = 8;
    int NVML_EVENT_DATA_EVENT_DATA_OFFSET = 16;
    // GPM
    int NVML_GPM_METRICS_GET_VERSION = 1;
    int NVML_GPM_SUPPORT_VERSION = 1;
    int NVML_GPM_METRIC_MAX = 333;
    int NVML_GPM_METRIC_GRAPHICS_UTIL = 1;
    int NVML_GPM_METRIC_SM_UTIL = 2;
    int NVML_GPM_METRIC_SM_OCCUPANCY = 3;
    int NVML_GPM_METRIC_INTEGER_UTIL = 4;
    int NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5;
    int NVML_GPM_METRIC_DRAM_BW_UTIL = 10;
    int NVML_GPM_METRIC_FP64_UTIL = 11;
    int NVML_GPM_METRIC_FP32_UTIL = 12;
    int NVML_GPM_METRIC_FP16_UTIL = 13;
    int NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20;
    int NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21;
    // field values (nvmlFieldValue_t.fieldId)
    int NVML_FI_DEV_MEMORY_TEMP = 82;
    int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;
    int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
    /** The {@code scopeId} of an NVLink throughput field that sums every link: {@code UINT_MAX}. */
    int NVLINK_SCOPE_ALL_LINKS = 0xFFFF_FFFF;
    // nvmlValueType_t
    int NVML_VALUE_TYPE_DOUBLE = 0;
    int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
    int NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
    int NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
    int NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
    int NVML_VALUE_TYPE_SIGNED_INT = 5;
    int NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;
    // vGPU software licensing
    int NVML_GRID_LICENSE_BUFFER_SIZE = 128;
    int NVML_GRID_LICENSE_FEATURE_MAX_COUNT = 3;
    int NVML_GRID_LICENSE_FEATURE_CODE_VGPU = 1;

    // ---- initialization and errors ----
    int nvmlInit_v2();

    int nvmlShutdown();

    Pointer nvmlErrorString(int result);

    // ---- system ----
    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlSystemGetNVMLVersion(byte[] version, int length);

    int nvmlSystemGetCudaDriverVersion_v2(IntByReference cudaDriverVersion);

    int nvmlSystemGetCudaDriverVersion(IntByReference cudaDriverVersion);

    int nvmlDeviceGetCount_v2(IntByReference deviceCount);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    // ---- identity ----
    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

    int nvmlDeviceGetSerial(Pointer device, byte[] serial, int length);

    int nvmlDeviceGetPciInfo_v3(Pointer device, NvmlStructs.PciInfo pci);

    int nvmlDeviceGetIndex(Pointer device, IntByReference index);

    int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minorNumber);

    // ---- modes ----
    int nvmlDeviceGetPersistenceMode(Pointer device, IntByReference mode);

    int nvmlDeviceGetEccMode(Pointer device, IntByReference current, IntByReference pending);

    int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

    // ---- metrics ----
    // The out-parameters of the functions a sample calls are plain pointers into memory the caller reuses
    // (nvmlMemory_v2_t*, nvmlMemory_t*, nvmlUtilization_t*, nvmlTemperature_v1_t*, unsigned int*,
    // unsigned long long*): a JNA structure or ByReference allocates and registers native memory per call,
    // which cost more than the calls themselves. The layouts are those of NvmlStructs.
    int nvmlDeviceGetMemoryInfo_v2(Pointer device, Pointer memory);

    int nvmlDeviceGetMemoryInfo(Pointer device, Pointer memory);

    int nvmlDeviceGetUtilizationRates(Pointer device, Pointer utilization);

    int nvmlDeviceGetTemperatureV(Pointer device, Pointer temperature);

    int nvmlDeviceGetTemperature(Pointer device, int sensorType, Pointer temp);

    int nvmlDeviceGetPowerUsage(Pointer device, Pointer power);

    int nvmlDeviceGetEnforcedPowerLimit(Pointer device, Pointer limit);

    int nvmlDeviceGetPowerManagementLimit(Pointer device, Pointer limit);

    int nvmlDeviceGetTotalEnergyConsumption(Pointer device, Pointer energy);

    int nvmlDeviceGetClockInfo(Pointer device, int type, Pointer clock);

    int nvmlDeviceGetMaxClockInfo(Pointer device, int type, Pointer clock);

    int nvmlDeviceGetPerformanceState(Pointer device, Pointer pState);

    int nvmlDeviceGetFanSpeed(Pointer device, Pointer speed);

    int nvmlDeviceGetCurrentClocksEventReasons(Pointer device, Pointer clocksEventReasons);

    int nvmlDeviceGetCurrentClocksThrottleReasons(Pointer device, Pointer clocksThrottleReasons);

    int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, Pointer eccCounts);

    int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value);

    int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                  IntByReference isPending, IntByReference failureOccurred);

    // (values: nvmlFieldValue_t[valuesCount]; utilization, samplingPeriodUs: unsigned int*;
    // features: nvmlGridLicensableFeatures_t*, whose entries lack licenseExpiry before _v4)
    int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, Pointer values);

    int nvmlDeviceGetEncoderUtilization(Pointer device, Pointer utilization, Pointer samplingPeriodUs);

    int nvmlDeviceGetDecoderUtilization(Pointer device, Pointer utilization, Pointer samplingPeriodUs);

    int nvmlDeviceGetGridLicensableFeatures_v4(Pointer device, Pointer features);

    int nvmlDeviceGetGridLicensableFeatures_v3(Pointer device, Pointer features);

    // ---- events (set: nvmlEventSet_t; data: nvmlEventData_t*, NVML_EVENT_DATA_SIZE bytes) ----
    int nvmlEventSetCreate(PointerByReference set);

    int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

    int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

    int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms);

    int nvmlEventSetFree(Pointer set);

    // ---- MIG ----
    int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

    int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

    int nvmlDeviceIsMigDeviceHandle(Pointer device, IntByReference isMigDevice);

    int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

    int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

    // ---- processes (infos: nvmlProcessInfo_t*, nvmlProcessInfo_v2_t*, nvmlProcessInfo_v1_t*) ----
    int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetGraphicsRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetMPSComputeRunningProcesses_v3(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetComputeRunningProcesses_v2(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetGraphicsRunningProcesses_v2(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetMPSComputeRunningProcesses_v2(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetComputeRunningProcesses(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetGraphicsRunningProcesses(Pointer device, IntByReference infoCount, Pointer infos);

    int nvmlDeviceGetMPSComputeRunningProcesses(Pointer device, IntByReference infoCount, Pointer infos);

    // ---- per-process utilization (utilization: nvmlProcessUtilizationSample_t*) ----
    int nvmlDeviceGetProcessesUtilizationInfo(Pointer device, NvmlStructs.ProcessesUtilizationInfoV1 info);

    int nvmlDeviceGetProcessUtilization(Pointer device, Pointer utilization, IntByReference processSamplesCount,
                                        long lastSeenTimeStamp);

    // ---- GPM ----
    int nvmlGpmQueryDeviceSupport(Pointer device, NvmlStructs.GpmSupport gpmSupport);

    int nvmlGpmSampleAlloc(PointerByReference gpmSample);

    int nvmlGpmSampleFree(Pointer gpmSample);

    int nvmlGpmSampleGet(Pointer device, Pointer gpmSample);

    int nvmlGpmMetricsGet(NvmlStructs.GpmMetricsGet metricsGet);
}
