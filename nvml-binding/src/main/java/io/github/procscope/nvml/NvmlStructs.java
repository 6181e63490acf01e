package io.github.procscope.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * The structures of {@code nvml.h} the raw binding passes, field for field in the header's order (JNA lays
 * them out with the platform's C alignment, as the compiler does). The tests compare every size with the
 * C {@code sizeof} the test double reports. Versioned structures carry their version as
 * {@code NVML_STRUCT_VERSION(name, ver) = sizeof(struct) | ver << 24}.
 */
final class NvmlStructs {
    private NvmlStructs() {
    }

    /** {@code NVML_STRUCT_VERSION}: the structure's size with the version number in the top byte. */
    static int structVersion(Structure s, int version) {
        return s.size() | (version << 24);
    }

    /** {@code nvmlPciInfo_t}, filled by {@code nvmlDeviceGetPciInfo_v3}. */
    @Structure.FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
    public static final class PciInfo extends Structure {
        public byte[] busIdLegacy = new byte[NvmlNative.NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
        public int domain;
        public int bus;
        public int device;
        public int pciDeviceId;
        public int pciSubSystemId;
        public byte[] busId = new byte[NvmlNative.NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    }

    /** {@code nvmlMemory_t} (v1): {@code used} includes the reserved memory. */
    @Structure.FieldOrder({"total", "free", "used"})
    public static final class Memory extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public long total;
        public long free;
        public long used;
    }

    /** {@code nvmlMemory_v2_t}: version 2 reports reserved memory apart from {@code used}. */
    @Structure.FieldOrder({"version", "total", "reserved", "free", "used"})
    public static final class MemoryV2 extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int version;
        public long total;
        public long reserved;
        public long free;
        public long used;

        MemoryV2() {
            version = structVersion(this, 2);
        }
    }

    /** {@code nvmlUtilization_t}: percentages of the last sample period. */
    @Structure.FieldOrder({"gpu", "memory"})
    public static final class Utilization extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int gpu;
        public int memory;
    }

    /** {@code nvmlProcessInfo_v1_t}: 16 bytes, written by the unversioned process lists. */
    @Structure.FieldOrder({"pid", "usedGpuMemory"})
    public static final class ProcessInfoV1 extends Structure {
        public int pid;
        public long usedGpuMemory;

        ProcessInfoV1() {
        }

        ProcessInfoV1(Pointer p) {
            super(p);
        }
    }

    /** {@code nvmlProcessInfo_v2_t} (= {@code nvmlProcessInfo_t}): 24 bytes, written by {@code _v2} and {@code _v3}. */
    @Structure.FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId"})
    public static final class ProcessInfoV2 extends Structure {
        public int pid;
        public long usedGpuMemory;
        public int gpuInstanceId;
        public int computeInstanceId;

        ProcessInfoV2() {
        }

        ProcessInfoV2(Pointer p) {
            super(p);
        }
    }

    /**
     * {@code nvmlProcessDetail_v1_t}: 32 bytes, the layout drivers 535.43 to 535.86 wrote from the
     * {@code _v3} process lists without a version bump (with {@code usedGpuCcProtectedMemory} last).
     */
    @Structure.FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId", "usedGpuCcProtectedMemory"})
    public static final class ProcessDetailV1 extends Structure {
        public int pid;
        public long usedGpuMemory;
        public int gpuInstanceId;
        public int computeInstanceId;
        public long usedGpuCcProtectedMemory;

        ProcessDetailV1() {
        }

        ProcessDetailV1(Pointer p) {
            super(p);
        }
    }

    /** {@code nvmlProcessUtilizationSample_t}, filled by {@code nvmlDeviceGetProcessUtilization}. */
    @Structure.FieldOrder({"pid", "timeStamp", "smUtil", "memUtil", "encUtil", "decUtil"})
    public static final class ProcessUtilizationSample extends Structure {
        public int pid;
        public long timeStamp;
        public int smUtil;
        public int memUtil;
        public int encUtil;
        public int decUtil;

        ProcessUtilizationSample() {
        }

        ProcessUtilizationSample(Pointer p) {
            super(p);
        }
    }

    /** {@code nvmlProcessUtilizationInfo_v1_t}: one entry of {@link ProcessesUtilizationInfoV1}'s array. */
    @Structure.FieldOrder({"timeStamp", "pid", "smUtil", "memUtil", "encUtil", "decUtil", "jpgUtil", "ofaUtil"})
    public static final class ProcessUtilizationInfoV1 extends Structure {
        public long timeStamp;
        public int pid;
        public int smUtil;
        public int memUtil;
        public int encUtil;
        public int decUtil;
        public int jpgUtil;
        public int ofaUtil;

        ProcessUtilizationInfoV1() {
        }

        ProcessUtilizationInfoV1(Pointer p) {
            super(p);
        }
    }

    /** {@code nvmlProcessesUtilizationInfo_v1_t}, for {@code nvmlDeviceGetProcessesUtilizationInfo}. */
    @Structure.FieldOrder({"version", "processSamplesCount", "lastSeenTimeStamp", "procUtilArray"})
    public static final class ProcessesUtilizationInfoV1 extends Structure {
        public int version;
        public int processSamplesCount;
        public long lastSeenTimeStamp;
        public Pointer procUtilArray;

        ProcessesUtilizationInfoV1() {
            version = structVersion(this, 1);
        }
    }

    /** {@code nvmlTemperature_v1_t}, for {@code nvmlDeviceGetTemperatureV}. */
    @Structure.FieldOrder({"version", "sensorType", "temperature"})
    public static final class TemperatureV1 extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int version;
        public int sensorType;
        public int temperature;

        TemperatureV1() {
            version = structVersion(this, 1);
            sensorType = NvmlNative.NVML_TEMPERATURE_GPU;
        }
    }

    /** {@code nvmlFieldValue_t}: one field of {@code nvmlDeviceGetFieldValues}; {@code value} is the 8-byte union. */
    @Structure.FieldOrder({"fieldId", "scopeId", "timestamp", "latencyUsec", "valueType", "nvmlReturn", "value"})
    public static final class FieldValue extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int fieldId;
        public int scopeId;
        public long timestamp;
        public long latencyUsec;
        public int valueType;
        public int nvmlReturn;
        public long value;
    }

    /** {@code nvmlGridLicenseExpiry_t}: the licence's expiry, in the entries of {@code _v4}. */
    @Structure.FieldOrder({"year", "month", "day", "hour", "min", "sec", "status"})
    public static final class GridLicenseExpiry extends Structure {
        public int year;
        public short month;
        public short day;
        public short hour;
        public short min;
        public short sec;
        public byte status;
    }

    /** {@code nvmlGridLicensableFeature_t} as {@code nvmlDeviceGetGridLicensableFeatures_v4} writes it. */
    @Structure.FieldOrder({"featureCode", "featureState", "licenseInfo", "productName", "featureEnabled",
        "licenseExpiry"})
    public static final class GridLicensableFeatureV4 extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int featureCode;
        public int featureState;
        public byte[] licenseInfo = new byte[NvmlNative.NVML_GRID_LICENSE_BUFFER_SIZE];
        public byte[] productName = new byte[NvmlNative.NVML_GRID_LICENSE_BUFFER_SIZE];
        public int featureEnabled;
        public GridLicenseExpiry licenseExpiry = new GridLicenseExpiry();
    }

    /** {@code nvmlGridLicensableFeature_t} as {@code nvmlDeviceGetGridLicensableFeatures_v3} writes it: no expiry. */
    @Structure.FieldOrder({"featureCode", "featureState", "licenseInfo", "productName", "featureEnabled"})
    public static final class GridLicensableFeatureV3 extends Structure {
        public int featureCode;
        public int featureState;
        public byte[] licenseInfo = new byte[NvmlNative.NVML_GRID_LICENSE_BUFFER_SIZE];
        public byte[] productName = new byte[NvmlNative.NVML_GRID_LICENSE_BUFFER_SIZE];
        public int featureEnabled;
    }

    /** {@code nvmlGridLicensableFeatures_t}, filled by {@code nvmlDeviceGetGridLicensableFeatures_v4}. */
    @Structure.FieldOrder({"isGridLicenseSupported", "licensableFeaturesCount", "gridLicensableFeatures"})
    public static final class GridLicensableFeaturesV4 extends Structure {
        /** @return the offset of a field in this layout, for callers that pass plain memory */
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        public int isGridLicenseSupported;
        public int licensableFeaturesCount;
        public GridLicensableFeatureV4[] gridLicensableFeatures = (GridLicensableFeatureV4[])
                new GridLicensableFeatureV4().toArray(NvmlNative.NVML_GRID_LICENSE_FEATURE_MAX_COUNT);
    }

    /** {@code nvmlGridLicensableFeatures_t} with the entries {@code nvmlDeviceGetGridLicensableFeatures_v3} writes. */
    @Structure.FieldOrder({"isGridLicenseSupported", "licensableFeaturesCount", "gridLicensableFeatures"})
    public static final class GridLicensableFeaturesV3 extends Structure {
        public int isGridLicenseSupported;
        public int licensableFeaturesCount;
        public GridLicensableFeatureV3[] gridLicensableFeatures = (GridLicensableFeatureV3[])
                new GridLicensableFeatureV3().toArray(NvmlNative.NVML_GRID_LICENSE_FEATURE_MAX_COUNT);
    }

    /** {@code nvmlGpmSupport_t}. */
    @Structure.FieldOrder({"version", "isSupportedDevice"})
    public static final class GpmSupport extends Structure {
        public int version = NvmlNative.NVML_GPM_SUPPORT_VERSION;
        public int isSupportedDevice;
    }

    /** The anonymous {@code metricInfo} structure inside {@code nvmlGpmMetric_t}. */
    @Structure.FieldOrder({"shortName", "longName", "unit"})
    public static final class GpmMetricInfo extends Structure {
        public Pointer shortName;
        public Pointer longName;
        public Pointer unit;
    }

    /** {@code nvmlGpmMetric_t}. */
    @Structure.FieldOrder({"metricId", "nvmlReturn", "value", "metricInfo"})
    public static final class GpmMetric extends Structure {
        public int metricId;
        public int nvmlReturn;
        public double value;
        public GpmMetricInfo metricInfo = new GpmMetricInfo();
    }

    /** {@code nvmlGpmMetricsGet_t}, with room for {@code NVML_GPM_METRIC_MAX} metrics. */
    @Structure.FieldOrder({"version", "numMetrics", "sample1", "sample2", "metrics"})
    public static final class GpmMetricsGet extends Structure {
        public int version = NvmlNative.NVML_GPM_METRICS_GET_VERSION;
        public int numMetrics;
        public Pointer sample1;
        public Pointer sample2;
        public GpmMetric[] metrics = (GpmMetric[]) new GpmMetric().toArray(NvmlNative.NVML_GPM_METRIC_MAX);
    }
}
