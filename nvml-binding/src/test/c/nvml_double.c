/*
 * A test double of NVIDIA's NVML library (libnvidia-ml.so.1) for machines without a GPU.
 *
 * It exports the NVML functions the binding uses, with the C signatures, structure layouts, constants
 * and return codes documented in nvml.h, and answers with values the tests configure through the
 * exported nd* control functions. The binding under test loads it exactly as it loads the driver's
 * library. Build variants (see the module's pom.xml) leave out newer symbols:
 *
 *   (default)       every function the binding knows
 *   -DND_LEGACY     no _v3 process lists, nvmlDeviceGetMemoryInfo_v2, clock event reasons,
 *                   nvmlDeviceGetTemperatureV, nvmlSystemGetCudaDriverVersion_v2,
 *                   nvmlDeviceGetProcessesUtilizationInfo, nvmlDeviceGetRemappedRows, GPM or
 *                   nvmlDeviceGetGridLicensableFeatures_v4 (drivers of the R450 era)
 *   -DND_ANCIENT    as ND_LEGACY, and no _v2 process lists, PCI info v3, energy, MIG,
 *                   per-process utilization, nvmlDeviceGetFieldValues or
 *                   nvmlDeviceGetGridLicensableFeatures_v3 either
 *   -DND_NO_INIT_V2 no nvmlInit_v2 at all (an NVML older than 5.319)
 *
 * Every function takes one global lock, so the double is thread-safe. All state is global: tests reset
 * it with ndReset() and must close what they open (ndInitCount() returns to 0).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ND_ANCIENT
#ifndef ND_LEGACY
#define ND_LEGACY
#endif
#endif

#define EXPORT __attribute__((visibility("default")))

/* ---- nvml.h facts: return codes ---- */
typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NO_PERMISSION = 4, NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18, NVML_ERROR_MEMORY = 20,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25, NVML_ERROR_UNKNOWN = 999
};

/* ---- nvml.h facts: structure layouts (written from the documented fields) ---- */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nd_pci_info_t; /* nvmlPciInfo_t */

typedef struct { unsigned long long total, free, used; } nd_memory_t; /* nvmlMemory_t (v1) */

typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nd_memory_v2_t; /* nvmlMemory_v2_t */

typedef struct { unsigned int gpu, memory; } nd_utilization_t; /* nvmlUtilization_t */

typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nd_process_info_v1_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nd_process_info_v2_t; /* nvmlProcessInfo_v2_t == nvmlProcessInfo_t */

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nd_process_detail_v1_t; /* nvmlProcessDetail_v1_t: the 32-byte entry R535.43-535.86 wrote from _v3 */

typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nd_process_utilization_sample_t; /* nvmlProcessUtilizationSample_t */

typedef struct {
    unsigned long long timeStamp;
    unsigned int pid, smUtil, memUtil, encUtil, decUtil, jpgUtil, ofaUtil;
} nd_process_utilization_info_v1_t; /* nvmlProcessUtilizationInfo_v1_t */

typedef struct {
    unsigned int version;
    unsigned int processSamplesCount;
    unsigned long long lastSeenTimeStamp;
    nd_process_utilization_info_v1_t *procUtilArray;
} nd_processes_utilization_info_v1_t; /* nvmlProcessesUtilizationInfo_v1_t */

typedef struct {
    unsigned int version;
    int sensorType;
    int temperature;
} nd_temperature_v1_t; /* nvmlTemperature_v1_t */

typedef struct { unsigned int version; unsigned int isSupportedDevice; } nd_gpm_support_t; /* nvmlGpmSupport_t */

typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct { char *shortName; char *longName; char *unit; } metricInfo;
} nd_gpm_metric_t; /* nvmlGpmMetric_t */

#define ND_GPM_METRIC_MAX 333 /* NVML_GPM_METRIC_MAX */
typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    void *sample1;
    void *sample2;
    nd_gpm_metric_t metrics[ND_GPM_METRIC_MAX];
} nd_gpm_metrics_get_t; /* nvmlGpmMetricsGet_t */

typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nd_value_t; /* nvmlValue_t */

typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nd_value_t value;
} nd_field_value_t; /* nvmlFieldValue_t */

/* nvmlValueType_t */
enum { ND_VALUE_DOUBLE = 0, ND_VALUE_UINT = 1, ND_VALUE_ULONGLONG = 3 };
/* field ids (NVML_FI_DEV_*) */
#define ND_FI_MEMORY_TEMP 82
#define ND_FI_NVLINK_DATA_TX 138
#define ND_FI_NVLINK_DATA_RX 139
#define ND_FIELD_IDS 256

#define ND_GRID_LICENSE_BUFFER_SIZE 128 /* NVML_GRID_LICENSE_BUFFER_SIZE */
#define ND_GRID_FEATURE_MAX 3             /* NVML_GRID_LICENSE_FEATURE_MAX_COUNT */
#define ND_GRID_CODE_VGPU 1               /* NVML_GRID_LICENSE_FEATURE_CODE_VGPU */
#define ND_GRID_CODE_COMPUTE 4            /* NVML_GRID_LICENSE_FEATURE_CODE_COMPUTE */

typedef struct {
    unsigned int year;
    unsigned short month, day, hour, min, sec;
    unsigned char status;
} nd_grid_license_expiry_t; /* nvmlGridLicenseExpiry_t */

typedef struct {
    int featureCode;
    unsigned int featureState;
    char licenseInfo[ND_GRID_LICENSE_BUFFER_SIZE];
    char productName[ND_GRID_LICENSE_BUFFER_SIZE];
    unsigned int featureEnabled;
    nd_grid_license_expiry_t licenseExpiry;
} nd_grid_feature_v4_t; /* nvmlGridLicensableFeature_t (NVML 11.4 and later, _v4) */

typedef struct {
    int featureCode;
    unsigned int featureState;
    char licenseInfo[ND_GRID_LICENSE_BUFFER_SIZE];
    char productName[ND_GRID_LICENSE_BUFFER_SIZE];
    unsigned int featureEnabled;
} nd_grid_feature_v3_t; /* nvmlGridLicensableFeature_t as NVML 11.0 to 11.3 laid it out (_v3) */

typedef struct {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    nd_grid_feature_v4_t gridLicensableFeatures[ND_GRID_FEATURE_MAX];
} nd_grid_features_v4_t; /* nvmlGridLicensableFeatures_t */

typedef struct {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    nd_grid_feature_v3_t gridLicensableFeatures[ND_GRID_FEATURE_MAX];
} nd_grid_features_v3_t; /* nvmlGridLicensableFeatures_t with _v3 entries */

typedef struct {
    void *device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nd_event_data_t; /* nvmlEventData_t */

#define ND_EVENT_XID_CRITICAL_ERROR 0x0000000000000008ULL /* nvmlEventTypeXidCriticalError */

#define ND_STRUCT_VERSION(type, ver) ((unsigned int) (sizeof(type) | ((ver) << 24U)))

/* ---- the double's state ---- */
#define ND_MAX_DEVICES 8
#define ND_MAX_MIG 7
#define ND_MAX_PROCS 512
#define ND_MAX_OVERRIDES 48
#define ND_MAX_SAMPLES 64
#define ND_KINDS 3 /* 0 compute, 1 graphics, 2 MPS compute */

typedef struct { char fn[64]; int rc; } nd_override_t;
typedef struct { unsigned int pid; unsigned long long mem; unsigned int gi, ci; } nd_proc_t;
typedef struct { unsigned int pid; unsigned long long ts; unsigned int sm, mem, enc, dec; } nd_util_sample_t;

typedef struct nd_device {
    unsigned int magic;
    int id;
    int is_mig;
    struct nd_device *parent;
    int present; /* MIG slots: whether a MIG device exists at this slot */
    char name[96], uuid[96], serial[32], busId[32];
    unsigned int domain, bus, dev, pciDeviceId, pciSubSystemId, minor, index;
    unsigned long long memTotal, memReserved, memUsed;
    unsigned int utilGpu, utilMem;
    int temperature;
    unsigned int powerMw, enforcedMw, managementMw;
    unsigned long long energyMj;
    unsigned int clock[4], maxClock[4];
    int pstate;
    unsigned int fan;
    unsigned long long clockReasons;
    int eccCurrent, eccPending, persistence, migCurrent, migPending;
    unsigned long long ecc[2][2]; /* [errorType corrected/uncorrected][counter volatile/aggregate] */
    unsigned int pcieReplays;
    unsigned int remapCorrectable, remapUncorrectable, remapPending, remapFailure;
    unsigned long long supportedEvents; /* nvmlEventType* bits nvmlDeviceRegisterEvents accepts */
    unsigned int memTemp;
    int memTempEncoding; /* 0: unsigned int; 1: a double in dVal; 2: labelled double, written as uiVal (R545) */
    unsigned long long nvlinkTxKib, nvlinkRxKib;
    unsigned int nvlinkLinks; /* 0: no NVLink */
    unsigned int encUtil, decUtil;
    int vgpuSupported;        /* isGridLicenseSupported */
    unsigned int vgpuCount;   /* licensableFeaturesCount */
    unsigned int vgpuSlot;    /* the entry that holds the vGPU feature; the others hold the compute feature */
    unsigned int vgpuLicensed;
    nvmlReturn_t fieldRc[ND_FIELD_IDS]; /* per-field return codes of nvmlDeviceGetFieldValues; 0: answer */
    unsigned int gi, ci;
    nd_proc_t procs[ND_KINDS][ND_MAX_PROCS];
    int procCount[ND_KINDS];
    int growth[ND_KINDS];
    unsigned int nextGrowthPid;
    nd_util_sample_t samples[ND_MAX_SAMPLES];
    int sampleCount;
    int gpmSupported;
    double gpmValue[ND_GPM_METRIC_MAX + 1];
    int gpmHas[ND_GPM_METRIC_MAX + 1];
    long long lostAfter; /* GPU_IS_LOST once more than this many calls were made; -1: never */
    long long calls;
    nd_override_t overrides[ND_MAX_OVERRIDES];
    int overrideCount;
    unsigned int maxMig;
    struct nd_device *mig[ND_MAX_MIG];
} nd_device;

#define ND_MAGIC 0x4e564d4cU
#define ND_SAMPLE_MAGIC 0x47504d53U

typedef struct {
    unsigned int magic;
    nd_device *device;
    struct timespec taken;
    int filled;
} nd_gpm_sample;

typedef struct { char fn[64]; long long count; } nd_call_count_t;

#define ND_MAX_EVENT_SETS 16
#define ND_MAX_EVENTS 64
#define ND_EVENT_SET_MAGIC 0x45564e54U
typedef struct {
    unsigned int magic;
    unsigned long long registered[ND_MAX_DEVICES]; /* event types registered per physical device */
    struct { int dev; unsigned long long type, data; } queue[ND_MAX_EVENTS];
    int head, count;
} nd_event_set; /* what an nvmlEventSet_t points to */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initCount;
static int initResult;
static char driverVersion[80];
static char nvmlVersion[80];
static int cudaVersion;
static int cudaResult;
static int deviceCount;
static int v3EntrySize = 24;
static nd_device devices[ND_MAX_DEVICES];
static nd_device migDevices[ND_MAX_DEVICES][ND_MAX_MIG];
static nd_override_t systemOverrides[ND_MAX_OVERRIDES];
static int systemOverrideCount;
static nd_call_count_t callCounts[128];
static int callCountN;
static int gpmOutstanding;
static long long lastGpmIntervalMs = -1;
static nd_event_set eventSets[ND_MAX_EVENT_SETS];
static pthread_cond_t eventArrived = PTHREAD_COND_INITIALIZER;

static void count_call(const char *fn) {
    for (int i = 0; i < callCountN; i++) {
        if (strcmp(callCounts[i].fn, fn) == 0) {
            callCounts[i].count++;
            return;
        }
    }
    if (callCountN < 128) {
        snprintf(callCounts[callCountN].fn, sizeof callCounts[callCountN].fn, "%s", fn);
        callCounts[callCountN].count = 1;
        callCountN++;
    }
}

static int find_override(nd_override_t *table, int n, const char *fn) {
    for (int i = 0; i < n; i++) {
        if (strcmp(table[i].fn, fn) == 0) {
            return table[i].rc;
        }
    }
    return 0;
}

static void set_override(nd_override_t *table, int *n, const char *fn, int rc) {
    for (int i = 0; i < *n; i++) {
        if (strcmp(table[i].fn, fn) == 0) {
            table[i].rc = rc;
            return;
        }
    }
    if (*n < ND_MAX_OVERRIDES) {
        snprintf(table[*n].fn, sizeof table[*n].fn, "%s", fn);
        table[*n].rc = rc;
        (*n)++;
    }
}

static nd_device *resolve(void *handle) {
    for (int i = 0; i < ND_MAX_DEVICES; i++) {
        if (handle == &devices[i] && i < deviceCount) {
            return &devices[i];
        }
        for (int j = 0; j < ND_MAX_MIG; j++) {
            if (handle == &migDevices[i][j] && migDevices[i][j].present && i < deviceCount) {
                return &migDevices[i][j];
            }
        }
    }
    return NULL;
}

static nd_device *by_id(int id) {
    if (id >= 0 && id < ND_MAX_DEVICES) {
        return &devices[id];
    }
    int m = id - ND_MAX_DEVICES;
    if (m >= 0 && m < ND_MAX_DEVICES * ND_MAX_MIG) {
        return &migDevices[m / ND_MAX_MIG][m % ND_MAX_MIG];
    }
    return NULL;
}

/* Locks, counts, and checks initialization. The caller must end with leave(). */
static nvmlReturn_t enter_system(const char *fn) {
    pthread_mutex_lock(&lock);
    count_call(fn);
    if (initCount <= 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    return find_override(systemOverrides, systemOverrideCount, fn);
}

/* Locks, counts, checks initialization, the handle, loss and overrides. */
static nvmlReturn_t enter_device(const char *fn, void *handle, nd_device **out) {
    pthread_mutex_lock(&lock);
    count_call(fn);
    *out = NULL;
    if (initCount <= 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    nd_device *d = resolve(handle);
    if (d == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nd_device *physical = d->is_mig ? d->parent : d;
    physical->calls++;
    if (physical->lostAfter >= 0 && physical->calls > physical->lostAfter) {
        return NVML_ERROR_GPU_IS_LOST;
    }
    int rc = find_override(d->overrides, d->overrideCount, fn);
    if (rc != 0) {
        return rc;
    }
    *out = d;
    return NVML_SUCCESS;
}

static nvmlReturn_t leave(nvmlReturn_t rc) {
    pthread_mutex_unlock(&lock);
    return rc;
}

static void copy_string(char *dst, unsigned int length, const char *src, nvmlReturn_t *rc) {
    if (dst == NULL) {
        *rc = NVML_ERROR_INVALID_ARGUMENT;
    } else if (strlen(src) + 1 > length) {
        *rc = NVML_ERROR_INSUFFICIENT_SIZE;
    } else {
        memcpy(dst, src, strlen(src) + 1);
    }
}

static void init_device(nd_device *d, int id) {
    memset(d, 0, sizeof *d);
    d->magic = ND_MAGIC;
    d->id = id;
    d->present = 1;
    d->lostAfter = -1;
    d->pstate = 0;
}

static void default_device(int i) {
    nd_device *d = &devices[i];
    init_device(d, i);
    d->index = (unsigned) i;
    d->minor = (unsigned) i;
    d->domain = 0;
    d->bus = 7 + (unsigned) i * 8;
    d->dev = 0;
    d->pciDeviceId = i == 0 ? 0x233010deU : 0x20b010deU;
    d->pciSubSystemId = 0x16c110deU;
    snprintf(d->busId, sizeof d->busId, "%08X:%02X:%02X.0", d->domain, d->bus, d->dev);
    snprintf(d->uuid, sizeof d->uuid, "GPU-%08x-1111-2222-3333-%012x", 0xabc00000U + (unsigned) i, 0x444444U + (unsigned) i);
    snprintf(d->serial, sizeof d->serial, "165012345678%d", i);
    if (i == 0) {
        snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
        d->memTotal = 85520809984ULL;            /* 81559 MiB */
        d->memReserved = 536870912ULL;           /* 512 MiB */
        d->memUsed = 31994150912ULL;             /* 30512 MiB */
        d->utilGpu = 98;
        d->utilMem = 45;
        d->temperature = 71;
        d->powerMw = 245300;
        d->enforcedMw = 700000;
        d->managementMw = 700000;
        d->energyMj = 987654321ULL;
        d->clock[0] = 1980; d->clock[1] = 1980; d->clock[2] = 2619; d->clock[3] = 1545;
        d->maxClock[0] = 1980; d->maxClock[1] = 1980; d->maxClock[2] = 2619; d->maxClock[3] = 1545;
        d->clockReasons = 0x4ULL;                /* SW power cap */
        d->gpmSupported = 1;
        d->gpmHas[1] = 1; d->gpmValue[1] = 97.5;   /* GRAPHICS_UTIL */
        d->gpmHas[2] = 1; d->gpmValue[2] = 61.25;  /* SM_UTIL */
        d->gpmHas[3] = 1; d->gpmValue[3] = 33.5;   /* SM_OCCUPANCY */
        d->gpmHas[5] = 1; d->gpmValue[5] = 42.0;   /* ANY_TENSOR_UTIL */
        d->gpmHas[10] = 1; d->gpmValue[10] = 55.0; /* DRAM_BW_UTIL */
        d->gpmHas[20] = 1; d->gpmValue[20] = 1500.0; /* PCIE_TX_PER_SEC, MiB/s */
        d->gpmHas[21] = 1; d->gpmValue[21] = 800.5;  /* PCIE_RX_PER_SEC, MiB/s */
        d->memTemp = 62;
        d->nvlinkLinks = 18;
        d->nvlinkTxKib = 123456789ULL;
        d->nvlinkRxKib = 98765432ULL;
        d->encUtil = 0;
        d->decUtil = 12;
    } else {
        snprintf(d->name, sizeof d->name, "NVIDIA A100-SXM4-40GB");
        d->memTotal = 42949672960ULL;            /* 40960 MiB */
        d->memReserved = 268435456ULL;           /* 256 MiB */
        d->memUsed = 40055603200ULL;             /* 38200 MiB */
        d->utilGpu = 0;
        d->utilMem = 0;
        d->temperature = 38;
        d->powerMw = 61200;
        d->enforcedMw = 400000;
        d->managementMw = 400000;
        d->energyMj = 123456789ULL;
        d->clock[0] = 210; d->clock[1] = 210; d->clock[2] = 1215; d->clock[3] = 585;
        d->maxClock[0] = 1410; d->maxClock[1] = 1410; d->maxClock[2] = 1215; d->maxClock[3] = 1290;
        d->clockReasons = 0x1ULL;                /* GPU idle */
        d->pstate = 0;
        d->memTemp = 41;
        d->nvlinkLinks = 12;
        d->nvlinkTxKib = 5000ULL;
        d->nvlinkRxKib = 7000ULL;
        d->encUtil = 3;
        d->decUtil = 0;
    }
    d->eccCurrent = 1;
    d->eccPending = 1;
    d->ecc[0][0] = 0; d->ecc[1][0] = 0; d->ecc[0][1] = 2; d->ecc[1][1] = 0;
    d->pcieReplays = i == 0 ? 3 : 0;
    d->remapCorrectable = i == 0 ? 1 : 0;
    d->remapUncorrectable = i == 0 ? 2 : 0;
    d->remapPending = i == 0 ? 1 : 0;
    d->remapFailure = 0;
    d->supportedEvents = ND_EVENT_XID_CRITICAL_ERROR | 0x1ULL | 0x2ULL | 0x4ULL; /* XID, SBE, DBE, P-state */
    d->vgpuSupported = 0; /* bare metal: vGPU software licensing is not supported */
    d->vgpuCount = 0;
    d->persistence = 1;
    d->migCurrent = 0;
    d->migPending = 0;
    d->nextGrowthPid = 900000;
    /* passively cooled data-centre boards have no fan */
    set_override(d->overrides, &d->overrideCount, "nvmlDeviceGetFanSpeed", NVML_ERROR_NOT_SUPPORTED);
}

/* ======================= control functions (for the tests) ======================= */

/** Resets everything to two default GPUs; returns the NVML init count it found (0 if tests closed all). */
EXPORT int ndReset(void) {
    pthread_mutex_lock(&lock);
    int found = initCount;
    initCount = 0;
    initResult = NVML_SUCCESS;
    snprintf(driverVersion, sizeof driverVersion, "550.54.15");
    snprintf(nvmlVersion, sizeof nvmlVersion, "12.550.54.15");
    cudaVersion = 12040;
    cudaResult = NVML_SUCCESS;
    deviceCount = 2;
    v3EntrySize = 24;
    memset(migDevices, 0, sizeof migDevices);
    for (int i = 0; i < ND_MAX_DEVICES; i++) {
        default_device(i);
    }
    systemOverrideCount = 0;
    callCountN = 0;
    lastGpmIntervalMs = -1;
    memset(eventSets, 0, sizeof eventSets);
    pthread_mutex_unlock(&lock);
    return found;
}

EXPORT int ndInitCount(void) {
    pthread_mutex_lock(&lock);
    int n = initCount;
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT void ndSetInitResult(int rc) {
    pthread_mutex_lock(&lock);
    initResult = rc;
    pthread_mutex_unlock(&lock);
}

EXPORT void ndSetDeviceCount(int n) {
    pthread_mutex_lock(&lock);
    deviceCount = n < 0 ? 0 : (n > ND_MAX_DEVICES ? ND_MAX_DEVICES : n);
    pthread_mutex_unlock(&lock);
}

/** Entry size (24 or 32) the _v3 process lists write: 32 imitates drivers 535.43 to 535.86. */
EXPORT void ndSetProcessEntrySize(int bytes) {
    pthread_mutex_lock(&lock);
    v3EntrySize = bytes;
    pthread_mutex_unlock(&lock);
}

EXPORT void ndSetCudaVersion(int version, int rc) {
    pthread_mutex_lock(&lock);
    cudaVersion = version;
    cudaResult = rc;
    pthread_mutex_unlock(&lock);
}

/** Sets a string: device -1 with "driver" or "nvml"; a device id with "name", "uuid", "serial", "busId". */
EXPORT int ndSetString(int id, const char *key, const char *value) {
    int ok = 0;
    pthread_mutex_lock(&lock);
    if (id < 0) {
        if (strcmp(key, "driver") == 0) {
            snprintf(driverVersion, sizeof driverVersion, "%s", value);
            ok = 1;
        } else if (strcmp(key, "nvml") == 0) {
            snprintf(nvmlVersion, sizeof nvmlVersion, "%s", value);
            ok = 1;
        }
    } else {
        nd_device *d = by_id(id);
        if (d != NULL) {
            if (strcmp(key, "name") == 0) { snprintf(d->name, sizeof d->name, "%s", value); ok = 1; }
            else if (strcmp(key, "uuid") == 0) { snprintf(d->uuid, sizeof d->uuid, "%s", value); ok = 1; }
            else if (strcmp(key, "serial") == 0) { snprintf(d->serial, sizeof d->serial, "%s", value); ok = 1; }
            else if (strcmp(key, "busId") == 0) { snprintf(d->busId, sizeof d->busId, "%s", value); ok = 1; }
        }
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/** Sets a number of a device; returns -1 for an unknown key or device so that tests notice typos. */
EXPORT int ndSetValue(int id, const char *key, long long v) {
    int ok = 1;
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    if (d == NULL) {
        ok = 0;
    } else if (strcmp(key, "memory.total") == 0) d->memTotal = (unsigned long long) v;
    else if (strcmp(key, "memory.reserved") == 0) d->memReserved = (unsigned long long) v;
    else if (strcmp(key, "memory.used") == 0) d->memUsed = (unsigned long long) v;
    else if (strcmp(key, "util.gpu") == 0) d->utilGpu = (unsigned) v;
    else if (strcmp(key, "util.memory") == 0) d->utilMem = (unsigned) v;
    else if (strcmp(key, "temperature") == 0) d->temperature = (int) v;
    else if (strcmp(key, "power.usage") == 0) d->powerMw = (unsigned) v;
    else if (strcmp(key, "power.enforced") == 0) d->enforcedMw = (unsigned) v;
    else if (strcmp(key, "power.management") == 0) d->managementMw = (unsigned) v;
    else if (strcmp(key, "energy") == 0) d->energyMj = (unsigned long long) v;
    else if (strcmp(key, "clock.graphics") == 0) d->clock[0] = (unsigned) v;
    else if (strcmp(key, "clock.sm") == 0) d->clock[1] = (unsigned) v;
    else if (strcmp(key, "clock.mem") == 0) d->clock[2] = (unsigned) v;
    else if (strcmp(key, "clock.video") == 0) d->clock[3] = (unsigned) v;
    else if (strcmp(key, "maxclock.sm") == 0) d->maxClock[1] = (unsigned) v;
    else if (strcmp(key, "maxclock.mem") == 0) d->maxClock[2] = (unsigned) v;
    else if (strcmp(key, "pstate") == 0) d->pstate = (int) v;
    else if (strcmp(key, "fan") == 0) d->fan = (unsigned) v;
    else if (strcmp(key, "clock.reasons") == 0) d->clockReasons = (unsigned long long) v;
    else if (strcmp(key, "ecc.current") == 0) d->eccCurrent = (int) v;
    else if (strcmp(key, "ecc.pending") == 0) d->eccPending = (int) v;
    else if (strcmp(key, "ecc.volatile.corrected") == 0) d->ecc[0][0] = (unsigned long long) v;
    else if (strcmp(key, "ecc.volatile.uncorrected") == 0) d->ecc[1][0] = (unsigned long long) v;
    else if (strcmp(key, "ecc.aggregate.corrected") == 0) d->ecc[0][1] = (unsigned long long) v;
    else if (strcmp(key, "ecc.aggregate.uncorrected") == 0) d->ecc[1][1] = (unsigned long long) v;
    else if (strcmp(key, "pcie.replays") == 0) d->pcieReplays = (unsigned) v;
    else if (strcmp(key, "remap.correctable") == 0) d->remapCorrectable = (unsigned) v;
    else if (strcmp(key, "remap.uncorrectable") == 0) d->remapUncorrectable = (unsigned) v;
    else if (strcmp(key, "remap.pending") == 0) d->remapPending = (unsigned) v;
    else if (strcmp(key, "remap.failure") == 0) d->remapFailure = (unsigned) v;
    else if (strcmp(key, "events.supported") == 0) d->supportedEvents = (unsigned long long) v;
    else if (strcmp(key, "persistence") == 0) d->persistence = (int) v;
    else if (strcmp(key, "mig.current") == 0) d->migCurrent = (int) v;
    else if (strcmp(key, "mig.pending") == 0) d->migPending = (int) v;
    else if (strcmp(key, "mig.max") == 0) d->maxMig = (unsigned) v;
    else if (strcmp(key, "minor") == 0) d->minor = (unsigned) v;
    else if (strcmp(key, "index") == 0) d->index = (unsigned) v;
    else if (strcmp(key, "lost.after") == 0) { d->lostAfter = v; d->calls = 0; }
    else if (strcmp(key, "gpm.supported") == 0) d->gpmSupported = (int) v;
    else if (strcmp(key, "memory.temperature") == 0) d->memTemp = (unsigned) v;
    else if (strcmp(key, "memory.temperature.encoding") == 0) d->memTempEncoding = (int) v;
    else if (strcmp(key, "nvlink.links") == 0) d->nvlinkLinks = (unsigned) v;
    else if (strcmp(key, "nvlink.tx.kib") == 0) d->nvlinkTxKib = (unsigned long long) v;
    else if (strcmp(key, "nvlink.rx.kib") == 0) d->nvlinkRxKib = (unsigned long long) v;
    else if (strcmp(key, "util.encoder") == 0) d->encUtil = (unsigned) v;
    else if (strcmp(key, "util.decoder") == 0) d->decUtil = (unsigned) v;
    else if (strcmp(key, "vgpu.supported") == 0) d->vgpuSupported = (int) v;
    else if (strcmp(key, "vgpu.count") == 0) d->vgpuCount = (unsigned) v;
    else if (strcmp(key, "vgpu.slot") == 0) d->vgpuSlot = (unsigned) v;
    else if (strcmp(key, "vgpu.licensed") == 0) d->vgpuLicensed = (unsigned) v;
    else ok = 0;
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/** Sets the value a GPM metric (by nvmlGpmMetricId_t) computes to; a NaN value removes it. */
EXPORT int ndSetGpmMetric(int id, int metricId, double value) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    int ok = d != NULL && metricId > 0 && metricId <= ND_GPM_METRIC_MAX;
    if (ok) {
        d->gpmHas[metricId] = value == value;
        d->gpmValue[metricId] = value;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/** Makes one field of nvmlDeviceGetFieldValues answer rc on a device (rc 0: answer it again). */
EXPORT int ndFailField(int id, int fieldId, int rc) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    int ok = d != NULL && fieldId >= 0 && fieldId < ND_FIELD_IDS;
    if (ok) {
        d->fieldRc[fieldId] = rc;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/** Makes a function return rc for a device (id -1: for the system-wide functions); rc 0 removes it. */
EXPORT int ndFail(int id, const char *fn, int rc) {
    int ok = 1;
    pthread_mutex_lock(&lock);
    if (id < 0) {
        set_override(systemOverrides, &systemOverrideCount, fn, rc);
    } else {
        nd_device *d = by_id(id);
        if (d == NULL) {
            ok = 0;
        } else {
            set_override(d->overrides, &d->overrideCount, fn, rc);
        }
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/** Adds a process to a device's list (kind 0 compute, 1 graphics, 2 MPS); mem ~0 is "not available". */
EXPORT int ndAddProcess(int id, int kind, unsigned int pid, unsigned long long mem, unsigned int gi,
                        unsigned int ci) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    int ok = d != NULL && kind >= 0 && kind < ND_KINDS && d->procCount[kind] < ND_MAX_PROCS;
    if (ok) {
        nd_proc_t *p = &d->procs[kind][d->procCount[kind]++];
        p->pid = pid;
        p->mem = mem;
        p->gi = gi;
        p->ci = ci;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

EXPORT int ndClearProcesses(int id) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    if (d != NULL) {
        memset(d->procCount, 0, sizeof d->procCount);
    }
    pthread_mutex_unlock(&lock);
    return d != NULL ? 0 : -1;
}

/** After each INSUFFICIENT_SIZE answer, the list of that kind grows by perCall new processes. */
EXPORT int ndSetProcessGrowth(int id, int kind, int perCall) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    int ok = d != NULL && kind >= 0 && kind < ND_KINDS;
    if (ok) {
        d->growth[kind] = perCall;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

EXPORT int ndAddUtilizationSample(int id, unsigned int pid, unsigned long long ts, unsigned int sm,
                                  unsigned int mem, unsigned int enc, unsigned int dec) {
    pthread_mutex_lock(&lock);
    nd_device *d = by_id(id);
    int ok = d != NULL && d->sampleCount < ND_MAX_SAMPLES;
    if (ok) {
        nd_util_sample_t *s = &d->samples[d->sampleCount++];
        s->pid = pid; s->ts = ts; s->sm = sm; s->mem = mem; s->enc = enc; s->dec = dec;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/**
 * Creates a MIG device at a slot of GPU dev (enables MIG on it and raises its maximum slot count to at
 * least slot + 1). Returns the id to configure it with (ndSetValue, ndAddProcess ...), or -1.
 */
EXPORT int ndAddMigDevice(int dev, int slot, const char *uuid, unsigned int gi, unsigned int ci,
                          unsigned long long memTotal, unsigned long long memUsed) {
    if (dev < 0 || dev >= ND_MAX_DEVICES || slot < 0 || slot >= ND_MAX_MIG) {
        return -1;
    }
    pthread_mutex_lock(&lock);
    nd_device *parent = &devices[dev];
    nd_device *m = &migDevices[dev][slot];
    int id = ND_MAX_DEVICES + dev * ND_MAX_MIG + slot;
    init_device(m, id);
    m->is_mig = 1;
    m->parent = parent;
    m->index = (unsigned) slot;
    snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
    snprintf(m->name, sizeof m->name, "%s MIG %uc.%ug", parent->name, ci + 1, gi + 1);
    m->gi = gi;
    m->ci = ci;
    m->memTotal = memTotal;
    m->memUsed = memUsed;
    const char *unsupported[] = {
        "nvmlDeviceGetUtilizationRates", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit",
        "nvmlDeviceGetPowerManagementLimit", "nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetClockInfo",
        "nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetPerformanceState", "nvmlDeviceGetFanSpeed",
        "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
        "nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetEccMode", "nvmlDeviceGetPersistenceMode",
        "nvmlDeviceGetMigMode", "nvmlDeviceGetMinorNumber", "nvmlDeviceGetSerial", "nvmlDeviceGetPciInfo_v3",
        "nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature", "nvmlDeviceGetProcessUtilization",
        "nvmlDeviceGetProcessesUtilizationInfo", "nvmlDeviceGetIndex", "nvmlDeviceGetMaxMigDeviceCount",
        "nvmlDeviceGetMigDeviceHandleByIndex", "nvmlDeviceGetFieldValues", "nvmlDeviceGetEncoderUtilization",
        "nvmlDeviceGetDecoderUtilization", "nvmlDeviceGetGridLicensableFeatures_v4",
        "nvmlDeviceGetGridLicensableFeatures_v3"
    };
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        set_override(m->overrides, &m->overrideCount, unsupported[i], NVML_ERROR_NOT_SUPPORTED);
    }
    parent->migCurrent = 1;
    parent->migPending = 1;
    if (parent->maxMig < (unsigned) slot + 1) {
        parent->maxMig = (unsigned) slot + 1;
    }
    parent->mig[slot] = m;
    pthread_mutex_unlock(&lock);
    return id;
}

EXPORT long long ndCallCount(const char *fn) {
    long long n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < callCountN; i++) {
        if (strcmp(callCounts[i].fn, fn) == 0) {
            n = callCounts[i].count;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}

/**
 * Raises an XID critical error on physical GPU id: queued, with the XID as event data, on every event set that
 * registered that GPU for XID events, waking their waiters. Returns how many sets received it, -1 for a bad id.
 */
EXPORT int ndInjectXid(int id, unsigned long long xid) {
    if (id < 0 || id >= ND_MAX_DEVICES) {
        return -1;
    }
    int delivered = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ND_MAX_EVENT_SETS; i++) {
        nd_event_set *e = &eventSets[i];
        if (e->magic == ND_EVENT_SET_MAGIC && (e->registered[id] & ND_EVENT_XID_CRITICAL_ERROR)
                && e->count < ND_MAX_EVENTS) {
            int at = (e->head + e->count) % ND_MAX_EVENTS;
            e->queue[at].dev = id;
            e->queue[at].type = ND_EVENT_XID_CRITICAL_ERROR;
            e->queue[at].data = xid;
            e->count++;
            delivered++;
        }
    }
    pthread_cond_broadcast(&eventArrived);
    pthread_mutex_unlock(&lock);
    return delivered;
}

/** How many event sets are created and not yet freed. */
EXPORT int ndEventSetsOutstanding(void) {
    int n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ND_MAX_EVENT_SETS; i++) {
        n += eventSets[i].magic == ND_EVENT_SET_MAGIC;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT int ndGpmOutstanding(void) {
    pthread_mutex_lock(&lock);
    int n = gpmOutstanding;
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT long long ndLastGpmIntervalMs(void) {
    pthread_mutex_lock(&lock);
    long long n = lastGpmIntervalMs;
    pthread_mutex_unlock(&lock);
    return n;
}

/** The C size of an NVML structure, by its nvml.h type name; -1 for an unknown name. */
EXPORT long ndSizeof(const char *name) {
    if (strcmp(name, "nvmlPciInfo_t") == 0) return (long) sizeof(nd_pci_info_t);
    if (strcmp(name, "nvmlMemory_t") == 0) return (long) sizeof(nd_memory_t);
    if (strcmp(name, "nvmlMemory_v2_t") == 0) return (long) sizeof(nd_memory_v2_t);
    if (strcmp(name, "nvmlUtilization_t") == 0) return (long) sizeof(nd_utilization_t);
    if (strcmp(name, "nvmlProcessInfo_v1_t") == 0) return (long) sizeof(nd_process_info_v1_t);
    if (strcmp(name, "nvmlProcessInfo_v2_t") == 0) return (long) sizeof(nd_process_info_v2_t);
    if (strcmp(name, "nvmlProcessDetail_v1_t") == 0) return (long) sizeof(nd_process_detail_v1_t);
    if (strcmp(name, "nvmlProcessUtilizationSample_t") == 0) return (long) sizeof(nd_process_utilization_sample_t);
    if (strcmp(name, "nvmlProcessUtilizationInfo_v1_t") == 0) return (long) sizeof(nd_process_utilization_info_v1_t);
    if (strcmp(name, "nvmlProcessesUtilizationInfo_v1_t") == 0) return (long) sizeof(nd_processes_utilization_info_v1_t);
    if (strcmp(name, "nvmlTemperature_v1_t") == 0) return (long) sizeof(nd_temperature_v1_t);
    if (strcmp(name, "nvmlGpmSupport_t") == 0) return (long) sizeof(nd_gpm_support_t);
    if (strcmp(name, "nvmlGpmMetric_t") == 0) return (long) sizeof(nd_gpm_metric_t);
    if (strcmp(name, "nvmlGpmMetricsGet_t") == 0) return (long) sizeof(nd_gpm_metrics_get_t);
    if (strcmp(name, "nvmlEventData_t") == 0) return (long) sizeof(nd_event_data_t);
    if (strcmp(name, "nvmlFieldValue_t") == 0) return (long) sizeof(nd_field_value_t);
    if (strcmp(name, "nvmlGridLicenseExpiry_t") == 0) return (long) sizeof(nd_grid_license_expiry_t);
    if (strcmp(name, "nvmlGridLicensableFeature_t") == 0) return (long) sizeof(nd_grid_feature_v4_t);
    if (strcmp(name, "nvmlGridLicensableFeatures_t") == 0) return (long) sizeof(nd_grid_features_v4_t);
    /* the layouts the _v3 function wrote (NVML 11.0 to 11.3), under the same type names then */
    if (strcmp(name, "nvmlGridLicensableFeature_t/v3") == 0) return (long) sizeof(nd_grid_feature_v3_t);
    if (strcmp(name, "nvmlGridLicensableFeatures_t/v3") == 0) return (long) sizeof(nd_grid_features_v3_t);
    return -1;
}

/* ======================= NVML: initialization and errors ======================= */

static nvmlReturn_t do_init(const char *fn) {
    pthread_mutex_lock(&lock);
    count_call(fn);
    nvmlReturn_t rc = initResult;
    if (rc == NVML_SUCCESS) {
        initCount++;
    }
    return leave(rc);
}

#ifndef ND_NO_INIT_V2
EXPORT nvmlReturn_t nvmlInit_v2(void) {
    return do_init("nvmlInit_v2");
}
#endif

EXPORT nvmlReturn_t nvmlInit(void) {
    return do_init("nvmlInit");
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&lock);
    count_call("nvmlShutdown");
    nvmlReturn_t rc = NVML_SUCCESS;
    if (initCount <= 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else {
        initCount--;
    }
    return leave(rc);
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
        case 0: return "Success";
        case 1: return "Uninitialized";
        case 2: return "Invalid Argument";
        case 3: return "Not Supported";
        case 4: return "Insufficient Permissions";
        case 6: return "Not Found";
        case 7: return "Insufficient Size";
        case 9: return "Driver Not Loaded";
        case 15: return "GPU is lost";
        case 18: return "RM has detected an NVML/RM version mismatch.";
        case 25: return "Argument version mismatch";
        case 999: return "Unknown Error";
        default: return "Unknown Error";
    }
}

/* ======================= NVML: system ======================= */

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    nvmlReturn_t rc = enter_system("nvmlSystemGetDriverVersion");
    if (rc == NVML_SUCCESS) {
        copy_string(version, length, driverVersion, &rc);
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    nvmlReturn_t rc = enter_system("nvmlSystemGetNVMLVersion");
    if (rc == NVML_SUCCESS) {
        copy_string(version, length, nvmlVersion, &rc);
    }
    return leave(rc);
}

static nvmlReturn_t cuda_version(const char *fn, int *v) {
    nvmlReturn_t rc = enter_system(fn);
    if (rc == NVML_SUCCESS) {
        if (v == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (cudaResult != NVML_SUCCESS) {
            rc = cudaResult;
        } else {
            *v = cudaVersion;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) {
    return cuda_version("nvmlSystemGetCudaDriverVersion", v);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
    return cuda_version("nvmlSystemGetCudaDriverVersion_v2", v);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    nvmlReturn_t rc = enter_system("nvmlDeviceGetCount_v2");
    if (rc == NVML_SUCCESS) {
        if (count == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *count = (unsigned) deviceCount;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    nvmlReturn_t rc = enter_system("nvmlDeviceGetHandleByIndex_v2");
    if (rc == NVML_SUCCESS) {
        if (device == NULL || index >= (unsigned) deviceCount) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            nd_device *d = &devices[index];
            rc = find_override(d->overrides, d->overrideCount, "nvmlDeviceGetHandleByIndex_v2");
            if (rc == NVML_SUCCESS) {
                *device = d;
            }
        }
    }
    return leave(rc);
}

/* ======================= NVML: identity ======================= */

#define STRING_GETTER(fn, field)                                          \
    EXPORT nvmlReturn_t fn(void *device, char *out, unsigned int length) { \
        nd_device *d;                                                     \
        nvmlReturn_t rc = enter_device(#fn, device, &d);                  \
        if (rc == NVML_SUCCESS) {                                         \
            copy_string(out, length, d->field, &rc);                      \
        }                                                                 \
        return leave(rc);                                                 \
    }

STRING_GETTER(nvmlDeviceGetName, name)
STRING_GETTER(nvmlDeviceGetUUID, uuid)
STRING_GETTER(nvmlDeviceGetSerial, serial)

#define UINT_GETTER(fn, expr)                                             \
    EXPORT nvmlReturn_t fn(void *device, unsigned int *out) {             \
        nd_device *d;                                                     \
        nvmlReturn_t rc = enter_device(#fn, device, &d);                  \
        if (rc == NVML_SUCCESS) {                                         \
            if (out == NULL) {                                            \
                rc = NVML_ERROR_INVALID_ARGUMENT;                         \
            } else {                                                      \
                *out = (expr);                                            \
            }                                                             \
        }                                                                 \
        return leave(rc);                                                 \
    }

UINT_GETTER(nvmlDeviceGetIndex, d->index)
UINT_GETTER(nvmlDeviceGetMinorNumber, d->minor)
UINT_GETTER(nvmlDeviceGetPowerUsage, d->powerMw)
UINT_GETTER(nvmlDeviceGetEnforcedPowerLimit, d->enforcedMw)
UINT_GETTER(nvmlDeviceGetPowerManagementLimit, d->managementMw)
UINT_GETTER(nvmlDeviceGetFanSpeed, d->fan)
UINT_GETTER(nvmlDeviceGetPersistenceMode, (unsigned) d->persistence)
UINT_GETTER(nvmlDeviceGetPerformanceState, (unsigned) d->pstate)

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(void *device, nd_pci_info_t *pci) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetPciInfo_v3", device, &d);
    if (rc == NVML_SUCCESS) {
        if (pci == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            memset(pci, 0, sizeof *pci);
            snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", d->domain, d->bus, d->dev);
            pci->domain = d->domain;
            pci->bus = d->bus;
            pci->device = d->dev;
            pci->pciDeviceId = d->pciDeviceId;
            pci->pciSubSystemId = d->pciSubSystemId;
            snprintf(pci->busId, sizeof pci->busId, "%s", d->busId);
        }
    }
    return leave(rc);
}
#endif

/* ======================= NVML: metrics ======================= */

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(void *device, nd_memory_t *m) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetMemoryInfo", device, &d);
    if (rc == NVML_SUCCESS) {
        if (m == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            m->total = d->memTotal;
            m->used = d->memReserved + d->memUsed; /* v1: reserved plus allocated */
            m->free = d->memTotal - m->used;
        }
    }
    return leave(rc);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(void *device, nd_memory_v2_t *m) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetMemoryInfo_v2", device, &d);
    if (rc == NVML_SUCCESS) {
        if (m == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (m->version != ND_STRUCT_VERSION(nd_memory_v2_t, 2)) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            m->total = d->memTotal;
            m->reserved = d->memReserved;
            m->used = d->memUsed;
            m->free = d->memTotal - d->memReserved - d->memUsed;
        }
    }
    return leave(rc);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(void *device, nd_utilization_t *u) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetUtilizationRates", device, &d);
    if (rc == NVML_SUCCESS) {
        if (u == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            u->gpu = d->utilGpu;
            u->memory = d->utilMem;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(void *device, int sensor, unsigned int *t) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetTemperature", device, &d);
    if (rc == NVML_SUCCESS) {
        if (t == NULL || sensor != 0) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *t = (unsigned) d->temperature;
        }
    }
    return leave(rc);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(void *device, nd_temperature_v1_t *t) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetTemperatureV", device, &d);
    if (rc == NVML_SUCCESS) {
        if (t == NULL || t->sensorType != 0) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (t->version != ND_STRUCT_VERSION(nd_temperature_v1_t, 1)) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            t->temperature = d->temperature;
        }
    }
    return leave(rc);
}
#endif

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *e) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetTotalEnergyConsumption", device, &d);
    if (rc == NVML_SUCCESS) {
        if (e == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *e = d->energyMj;
        }
    }
    return leave(rc);
}
#endif

static nvmlReturn_t clock_of(const char *fn, void *device, int type, unsigned int *clock, int max) {
    nd_device *d;
    nvmlReturn_t rc = enter_device(fn, device, &d);
    if (rc == NVML_SUCCESS) {
        if (clock == NULL || type < 0 || type > 3) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *clock = max ? d->maxClock[type] : d->clock[type];
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(void *device, int type, unsigned int *clock) {
    return clock_of("nvmlDeviceGetClockInfo", device, type, clock, 0);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned int *clock) {
    return clock_of("nvmlDeviceGetMaxClockInfo", device, type, clock, 1);
}

static nvmlReturn_t reasons_of(const char *fn, void *device, unsigned long long *out) {
    nd_device *d;
    nvmlReturn_t rc = enter_device(fn, device, &d);
    if (rc == NVML_SUCCESS) {
        if (out == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *out = d->clockReasons;
        }
    }
    return leave(rc);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *r) {
    return reasons_of("nvmlDeviceGetCurrentClocksEventReasons", device, r);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *r) {
    return reasons_of("nvmlDeviceGetCurrentClocksThrottleReasons", device, r);
}

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(void *device, int *current, int *pending) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetEccMode", device, &d);
    if (rc == NVML_SUCCESS) {
        if (current == NULL || pending == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *current = d->eccCurrent;
            *pending = d->eccPending;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(void *device, int errorType, int counterType,
                                                unsigned long long *count) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetTotalEccErrors", device, &d);
    if (rc == NVML_SUCCESS) {
        if (count == NULL || errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!d->eccCurrent) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            *count = d->ecc[errorType][counterType];
        }
    }
    return leave(rc);
}

/* ======================= NVML: MIG ======================= */

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(void *device, unsigned int *current, unsigned int *pending) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetMigMode", device, &d);
    if (rc == NVML_SUCCESS) {
        if (current == NULL || pending == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *current = (unsigned) d->migCurrent;
            *pending = (unsigned) d->migPending;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(void *device, unsigned int *count) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetMaxMigDeviceCount", device, &d);
    if (rc == NVML_SUCCESS) {
        if (count == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *count = d->migCurrent ? d->maxMig : 0;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(void *device, unsigned int index, void **mig) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetMigDeviceHandleByIndex", device, &d);
    if (rc == NVML_SUCCESS) {
        if (mig == NULL || index >= ND_MAX_MIG || d->is_mig) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!d->migCurrent) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else if (d->mig[index] == NULL || !d->mig[index]->present) {
            rc = NVML_ERROR_NOT_FOUND; /* an empty slot */
        } else {
            *mig = d->mig[index];
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(void *device, unsigned int *isMig) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceIsMigDeviceHandle", device, &d);
    if (rc == NVML_SUCCESS) {
        if (isMig == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *isMig = (unsigned) d->is_mig;
        }
    }
    return leave(rc);
}

static nvmlReturn_t instance_id(const char *fn, void *device, unsigned int *id, int compute) {
    nd_device *d;
    nvmlReturn_t rc = enter_device(fn, device, &d);
    if (rc == NVML_SUCCESS) {
        if (id == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!d->is_mig) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            *id = compute ? d->ci : d->gi;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(void *device, unsigned int *id) {
    return instance_id("nvmlDeviceGetGpuInstanceId", device, id, 0);
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(void *device, unsigned int *id) {
    return instance_id("nvmlDeviceGetComputeInstanceId", device, id, 1);
}

EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(void *mig, void **device) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", mig, &d);
    if (rc == NVML_SUCCESS) {
        if (device == NULL || !d->is_mig) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *device = d->parent;
        }
    }
    return leave(rc);
}
#endif

/* ======================= NVML: processes ======================= */

static void write_entry(void *infos, int i, int size, const nd_proc_t *p) {
    unsigned char *base = (unsigned char *) infos + (size_t) i * (size_t) size;
    if (size == 16) {
        nd_process_info_v1_t e;
        memset(&e, 0, sizeof e);
        e.pid = p->pid;
        e.usedGpuMemory = p->mem;
        memcpy(base, &e, sizeof e);
    } else if (size == 24) {
        nd_process_info_v2_t e;
        memset(&e, 0, sizeof e);
        e.pid = p->pid;
        e.usedGpuMemory = p->mem;
        e.gpuInstanceId = p->gi;
        e.computeInstanceId = p->ci;
        memcpy(base, &e, sizeof e);
    } else {
        nd_process_detail_v1_t e;
        memset(&e, 0, sizeof e);
        e.pid = p->pid;
        e.usedGpuMemory = p->mem;
        e.gpuInstanceId = p->gi;
        e.computeInstanceId = p->ci;
        e.usedGpuCcProtectedMemory = 0;
        memcpy(base, &e, sizeof e);
    }
}

static nvmlReturn_t list_processes(const char *fn, void *device, unsigned int *count, void *infos, int kind,
                                   int entrySize) {
    nd_device *d;
    nvmlReturn_t rc = enter_device(fn, device, &d);
    if (rc == NVML_SUCCESS) {
        if (count == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            unsigned int n = (unsigned) d->procCount[kind];
            if (*count < n) {
                *count = n;
                rc = n == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
                /* the list grows before the caller comes back with a bigger buffer */
                for (int g = 0; g < d->growth[kind] && d->procCount[kind] < ND_MAX_PROCS; g++) {
                    nd_proc_t *p = &d->procs[kind][d->procCount[kind]++];
                    p->pid = d->nextGrowthPid++;
                    p->mem = 256ULL << 20;
                    p->gi = 0xFFFFFFFFU;
                    p->ci = 0xFFFFFFFFU;
                }
            } else if (infos == NULL && n > 0) {
                rc = NVML_ERROR_INVALID_ARGUMENT;
            } else {
                for (unsigned int i = 0; i < n; i++) {
                    write_entry(infos, (int) i, entrySize, &d->procs[kind][i]);
                }
                *count = n;
            }
        }
    }
    return leave(rc);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetComputeRunningProcesses_v3", device, count, infos, 0, v3EntrySize);
}
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetGraphicsRunningProcesses_v3", device, count, infos, 1, v3EntrySize);
}
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetMPSComputeRunningProcesses_v3", device, count, infos, 2, v3EntrySize);
}
#endif

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetComputeRunningProcesses_v2", device, count, infos, 0, 24);
}
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetGraphicsRunningProcesses_v2", device, count, infos, 1, 24);
}
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetMPSComputeRunningProcesses_v2", device, count, infos, 2, 24);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetComputeRunningProcesses", device, count, infos, 0, 16);
}
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetGraphicsRunningProcesses", device, count, infos, 1, 16);
}
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(void *device, unsigned int *count, void *infos) {
    return list_processes("nvmlDeviceGetMPSComputeRunningProcesses", device, count, infos, 2, 16);
}

/* ======================= NVML: per-process utilization ======================= */

__attribute__((unused)) static unsigned int samples_after(nd_device *d, unsigned long long lastSeen) {
    unsigned int n = 0;
    for (int i = 0; i < d->sampleCount; i++) {
        if (d->samples[i].ts > lastSeen) {
            n++;
        }
    }
    return n;
}

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(void *device, nd_process_utilization_sample_t *out,
                                                    unsigned int *count, unsigned long long lastSeen) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetProcessUtilization", device, &d);
    if (rc == NVML_SUCCESS) {
        unsigned int n = samples_after(d, lastSeen);
        if (count == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (n == 0) {
            rc = NVML_ERROR_NOT_FOUND;
        } else if (out == NULL || *count < n) {
            *count = n;
            rc = NVML_ERROR_INSUFFICIENT_SIZE;
        } else {
            unsigned int k = 0;
            for (int i = 0; i < d->sampleCount; i++) {
                nd_util_sample_t *s = &d->samples[i];
                if (s->ts > lastSeen) {
                    out[k].pid = s->pid;
                    out[k].timeStamp = s->ts;
                    out[k].smUtil = s->sm;
                    out[k].memUtil = s->mem;
                    out[k].encUtil = s->enc;
                    out[k].decUtil = s->dec;
                    k++;
                }
            }
            *count = k;
        }
    }
    return leave(rc);
}
#endif

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(void *device, nd_processes_utilization_info_v1_t *info) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetProcessesUtilizationInfo", device, &d);
    if (rc == NVML_SUCCESS) {
        if (info == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (info->version != ND_STRUCT_VERSION(nd_processes_utilization_info_v1_t, 1)) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            unsigned int n = samples_after(d, info->lastSeenTimeStamp);
            if (n == 0) {
                rc = NVML_ERROR_NOT_FOUND;
            } else if (info->procUtilArray == NULL || info->processSamplesCount < n) {
                info->processSamplesCount = n;
                rc = NVML_ERROR_INSUFFICIENT_SIZE;
            } else {
                unsigned int k = 0;
                for (int i = 0; i < d->sampleCount; i++) {
                    nd_util_sample_t *s = &d->samples[i];
                    if (s->ts > info->lastSeenTimeStamp) {
                        nd_process_utilization_info_v1_t *o = &info->procUtilArray[k++];
                        o->timeStamp = s->ts;
                        o->pid = s->pid;
                        o->smUtil = s->sm;
                        o->memUtil = s->mem;
                        o->encUtil = s->enc;
                        o->decUtil = s->dec;
                        o->jpgUtil = 0;
                        o->ofaUtil = 0;
                    }
                }
                info->processSamplesCount = k;
            }
        }
    }
    return leave(rc);
}

/* ======================= NVML: GPM ======================= */

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(void *device, nd_gpm_support_t *support) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlGpmQueryDeviceSupport", device, &d);
    if (rc == NVML_SUCCESS) {
        if (support == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (support->version != 1) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            support->isSupportedDevice = (unsigned) d->gpmSupported;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlGpmSampleAlloc(void **sample) {
    nvmlReturn_t rc = enter_system("nvmlGpmSampleAlloc");
    if (rc == NVML_SUCCESS) {
        if (sample == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            nd_gpm_sample *s = calloc(1, sizeof *s);
            if (s == NULL) {
                rc = NVML_ERROR_MEMORY;
            } else {
                s->magic = ND_SAMPLE_MAGIC;
                gpmOutstanding++;
                *sample = s;
            }
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(void *sample) {
    nvmlReturn_t rc = enter_system("nvmlGpmSampleFree");
    if (rc == NVML_SUCCESS) {
        nd_gpm_sample *s = sample;
        if (s == NULL || s->magic != ND_SAMPLE_MAGIC) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            s->magic = 0;
            free(s);
            gpmOutstanding--;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(void *device, void *sample) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlGpmSampleGet", device, &d);
    if (rc == NVML_SUCCESS) {
        nd_gpm_sample *s = sample;
        if (s == NULL || s->magic != ND_SAMPLE_MAGIC) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (!d->gpmSupported) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            s->device = d;
            clock_gettime(CLOCK_MONOTONIC, &s->taken);
            s->filled = 1;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlGpmMigSampleGet(void *device, unsigned int gpuInstanceId, void *sample) {
    (void) gpuInstanceId;
    return nvmlGpmSampleGet(device, sample);
}

EXPORT nvmlReturn_t nvmlGpmMetricsGet(nd_gpm_metrics_get_t *m) {
    nvmlReturn_t rc = enter_system("nvmlGpmMetricsGet");
    if (rc == NVML_SUCCESS) {
        nd_gpm_sample *a = m == NULL ? NULL : m->sample1;
        nd_gpm_sample *b = m == NULL ? NULL : m->sample2;
        if (m == NULL || a == NULL || b == NULL || a->magic != ND_SAMPLE_MAGIC || b->magic != ND_SAMPLE_MAGIC
                || !a->filled || !b->filled || a->device != b->device || m->numMetrics > ND_GPM_METRIC_MAX) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (m->version != 1) {
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        } else {
            long long ms = (long long) (b->taken.tv_sec - a->taken.tv_sec) * 1000
                    + (b->taken.tv_nsec - a->taken.tv_nsec) / 1000000;
            lastGpmIntervalMs = ms;
            for (unsigned int i = 0; i < m->numMetrics; i++) {
                unsigned int id = m->metrics[i].metricId;
                if (id > 0 && id <= ND_GPM_METRIC_MAX && a->device->gpmHas[id]) {
                    m->metrics[i].nvmlReturn = NVML_SUCCESS;
                    m->metrics[i].value = a->device->gpmValue[id];
                } else {
                    m->metrics[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                    m->metrics[i].value = 0.0;
                }
                m->metrics[i].metricInfo.shortName = NULL;
                m->metrics[i].metricInfo.longName = NULL;
                m->metrics[i].metricInfo.unit = NULL;
            }
        }
    }
    return leave(rc);
}
#endif

/* ======================= NVML: PCIe replays, remapped rows ======================= */

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(void *device, unsigned int *value) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetPcieReplayCounter", device, &d);
    if (rc == NVML_SUCCESS) {
        if (value == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (d->is_mig) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            *value = d->pcieReplays;
        }
    }
    return leave(rc);
}

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(void *device, unsigned int *corrRows, unsigned int *uncRows,
                                              unsigned int *isPending, unsigned int *failureOccurred) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetRemappedRows", device, &d);
    if (rc == NVML_SUCCESS) {
        if (corrRows == NULL || uncRows == NULL || isPending == NULL || failureOccurred == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if (d->is_mig) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            *corrRows = d->remapCorrectable;
            *uncRows = d->remapUncorrectable;
            *isPending = d->remapPending;
            *failureOccurred = d->remapFailure;
        }
    }
    return leave(rc);
}
#endif

/* ======================= NVML: field values, encoder and decoder, vGPU licence ======================= */

#ifndef ND_ANCIENT
static void field_value(nd_device *d, nd_field_value_t *v) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    v->timestamp = (long long) now.tv_sec * 1000000LL + now.tv_nsec / 1000;
    v->latencyUsec = 0;
    memset(&v->value, 0, sizeof v->value);
    if (v->fieldId < ND_FIELD_IDS && d->fieldRc[v->fieldId] != NVML_SUCCESS) {
        v->nvmlReturn = d->fieldRc[v->fieldId];
        return;
    }
    v->nvmlReturn = NVML_SUCCESS;
    switch (v->fieldId) {
        case ND_FI_MEMORY_TEMP:
            if (d->memTempEncoding == 1) {
                v->valueType = ND_VALUE_DOUBLE;
                v->value.dVal = (double) d->memTemp;
            } else {
                v->valueType = d->memTempEncoding == 2 ? ND_VALUE_DOUBLE : ND_VALUE_UINT;
                v->value.uiVal = d->memTemp;
            }
            break;
        case ND_FI_NVLINK_DATA_TX:
        case ND_FI_NVLINK_DATA_RX: {
            unsigned long long total = v->fieldId == ND_FI_NVLINK_DATA_TX ? d->nvlinkTxKib : d->nvlinkRxKib;
            v->valueType = ND_VALUE_ULONGLONG;
            if (d->nvlinkLinks == 0) {
                v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            } else if (v->scopeId == 0xFFFFFFFFU) {
                v->value.ullVal = total; /* UINT_MAX: the sum over all links */
            } else if (v->scopeId < d->nvlinkLinks) {
                v->value.ullVal = total / d->nvlinkLinks; /* one link's share */
            } else {
                v->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
            }
            break;
        }
        default:
            v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(void *device, int valuesCount, nd_field_value_t *values) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetFieldValues", device, &d);
    if (rc == NVML_SUCCESS) {
        if (values == NULL || valuesCount < 0) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            for (int i = 0; i < valuesCount; i++) {
                field_value(d, &values[i]);
            }
        }
    }
    return leave(rc);
}
#endif

static nvmlReturn_t codec_utilization(const char *fn, void *device, unsigned int *util, unsigned int *period,
                                      int encoder) {
    nd_device *d;
    nvmlReturn_t rc = enter_device(fn, device, &d);
    if (rc == NVML_SUCCESS) {
        if (util == NULL || period == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *util = encoder ? d->encUtil : d->decUtil;
            *period = 167000; /* microseconds */
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(void *device, unsigned int *util, unsigned int *period) {
    return codec_utilization("nvmlDeviceGetEncoderUtilization", device, util, period, 1);
}

EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(void *device, unsigned int *util, unsigned int *period) {
    return codec_utilization("nvmlDeviceGetDecoderUtilization", device, util, period, 0);
}

/* Fills the common part of a licensable-features answer; the entries are written by the caller per layout. */
#define GRID_FEATURES(out, d, version)                                                              \
    do {                                                                                            \
        memset((out), 0, sizeof *(out));                                                            \
        (out)->isGridLicenseSupported = (d)->vgpuSupported;                                         \
        unsigned int n = (d)->vgpuSupported ? (d)->vgpuCount : 0;                                   \
        (out)->licensableFeaturesCount = n;                                                         \
        for (unsigned int i = 0; i < n && i < ND_GRID_FEATURE_MAX; i++) {                           \
            int vgpu = i == (d)->vgpuSlot;                                                          \
            (out)->gridLicensableFeatures[i].featureCode = vgpu ? ND_GRID_CODE_VGPU : ND_GRID_CODE_COMPUTE; \
            (out)->gridLicensableFeatures[i].featureState = vgpu ? (d)->vgpuLicensed : !(d)->vgpuLicensed; \
            (out)->gridLicensableFeatures[i].featureEnabled = 1;                                    \
            snprintf((out)->gridLicensableFeatures[i].productName, ND_GRID_LICENSE_BUFFER_SIZE, "%s (%s)", \
                     vgpu ? "NVIDIA Virtual PC" : "NVIDIA Virtual Compute Server", version);        \
        }                                                                                           \
    } while (0)

#ifndef ND_LEGACY
EXPORT nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(void *device, nd_grid_features_v4_t *features) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetGridLicensableFeatures_v4", device, &d);
    if (rc == NVML_SUCCESS) {
        if (features == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            GRID_FEATURES(features, d, "v4");
            for (unsigned int i = 0; i < features->licensableFeaturesCount && i < ND_GRID_FEATURE_MAX; i++) {
                features->gridLicensableFeatures[i].licenseExpiry.year = 2031;
                features->gridLicensableFeatures[i].licenseExpiry.month = 12;
                features->gridLicensableFeatures[i].licenseExpiry.day = 31;
                features->gridLicensableFeatures[i].licenseExpiry.status = 2; /* NVML_GRID_LICENSE_EXPIRY_VALID */
            }
        }
    }
    return leave(rc);
}
#endif

#ifndef ND_ANCIENT
EXPORT nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v3(void *device, nd_grid_features_v3_t *features) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetGridLicensableFeatures_v3", device, &d);
    if (rc == NVML_SUCCESS) {
        if (features == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            GRID_FEATURES(features, d, "v3");
        }
    }
    return leave(rc);
}
#endif

/* ======================= NVML: events ======================= */

static nd_event_set *event_set(void *set) {
    for (int i = 0; i < ND_MAX_EVENT_SETS; i++) {
        if (set == &eventSets[i] && eventSets[i].magic == ND_EVENT_SET_MAGIC) {
            return &eventSets[i];
        }
    }
    return NULL;
}

EXPORT nvmlReturn_t nvmlEventSetCreate(void **set) {
    nvmlReturn_t rc = enter_system("nvmlEventSetCreate");
    if (rc == NVML_SUCCESS) {
        if (set == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            rc = NVML_ERROR_MEMORY;
            for (int i = 0; i < ND_MAX_EVENT_SETS; i++) {
                if (eventSets[i].magic != ND_EVENT_SET_MAGIC) {
                    memset(&eventSets[i], 0, sizeof eventSets[i]);
                    eventSets[i].magic = ND_EVENT_SET_MAGIC;
                    *set = &eventSets[i];
                    rc = NVML_SUCCESS;
                    break;
                }
            }
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(void *device, unsigned long long *eventTypes) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceGetSupportedEventTypes", device, &d);
    if (rc == NVML_SUCCESS) {
        if (eventTypes == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            *eventTypes = d->is_mig ? d->parent->supportedEvents : d->supportedEvents;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(void *device, unsigned long long eventTypes, void *set) {
    nd_device *d;
    nvmlReturn_t rc = enter_device("nvmlDeviceRegisterEvents", device, &d);
    if (rc == NVML_SUCCESS) {
        nd_event_set *e = event_set(set);
        nd_device *physical = d->is_mig ? d->parent : d;
        if (e == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else if ((eventTypes & ~physical->supportedEvents) != 0 || eventTypes == 0) {
            rc = NVML_ERROR_NOT_SUPPORTED;
        } else {
            e->registered[physical->id] |= eventTypes;
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(void *set, nd_event_data_t *data, unsigned int timeoutms) {
    nvmlReturn_t rc = enter_system("nvmlEventSetWait_v2");
    if (rc == NVML_SUCCESS) {
        nd_event_set *e = event_set(set);
        if (e == NULL || data == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_sec += timeoutms / 1000;
            deadline.tv_nsec += (long) (timeoutms % 1000) * 1000000L;
            if (deadline.tv_nsec >= 1000000000L) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000L;
            }
            while (e->magic == ND_EVENT_SET_MAGIC && e->count == 0) {
                if (pthread_cond_timedwait(&eventArrived, &lock, &deadline) != 0) {
                    break;
                }
            }
            if (e->magic != ND_EVENT_SET_MAGIC) {
                rc = NVML_ERROR_INVALID_ARGUMENT; /* freed while waiting */
            } else if (e->count == 0) {
                rc = NVML_ERROR_TIMEOUT;
            } else {
                int dev = e->queue[e->head].dev;
                data->device = &devices[dev];
                data->eventType = e->queue[e->head].type;
                data->eventData = e->queue[e->head].data;
                data->gpuInstanceId = 0xFFFFFFFFU;
                data->computeInstanceId = 0xFFFFFFFFU;
                e->head = (e->head + 1) % ND_MAX_EVENTS;
                e->count--;
            }
        }
    }
    return leave(rc);
}

EXPORT nvmlReturn_t nvmlEventSetFree(void *set) {
    nvmlReturn_t rc = enter_system("nvmlEventSetFree");
    if (rc == NVML_SUCCESS) {
        nd_event_set *e = event_set(set);
        if (e == NULL) {
            rc = NVML_ERROR_INVALID_ARGUMENT;
        } else {
            e->magic = 0;
            pthread_cond_broadcast(&eventArrived);
        }
    }
    return leave(rc);
}

__attribute__((constructor)) static void nd_load(void) {
    ndReset();
}
