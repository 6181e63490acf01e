package io.github.procscope.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUnavailableException.Reason;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loaded NVML library: the raw binding, the symbols it has (probed once, when it is loaded), and the
 * reference count of {@code nvmlInit_v2}/{@code nvmlShutdown} calls made through it. Instances are
 * cached per library file for the life of the JVM (a shared library is never unloaded); loading happens
 * on the first {@link #load(Location)}, never in a static initializer.
 */
final class NvmlLibrary {
    /** The system property naming the library file. */
    static final String PROPERTY = "procscope.nvml.library";
    /** The environment variable naming the library file. */
    static final String ENVIRONMENT = "PROCSCOPE_NVML_LIBRARY";
    /** The name the driver installs, searched by the dynamic loader. */
    static final String DEFAULT_NAME = "libnvidia-ml.so.1";

    /** Functions every NVML since 5.319 has; without them the library is unusable. */
    static final List<String> REQUIRED = List.of("nvmlInit_v2", "nvmlShutdown", "nvmlErrorString",
            "nvmlSystemGetDriverVersion", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
            "nvmlDeviceGetName", "nvmlDeviceGetUUID");

    private static final Map<String, NvmlLibrary> LOADED = new ConcurrentHashMap<>();

    private final String name;
    private final NvmlNative api;
    private final Set<String> symbols;
    private final Object initLock = new Object();
    private int references;

    private NvmlLibrary(String name, NvmlNative api, Set<String> symbols) {
        this.name = name;
        this.api = api;
        this.symbols = symbols;
    }

    /**
     * Where the library comes from.
     *
     * @param file   the library file, or empty for {@link #DEFAULT_NAME} through the dynamic loader
     * @param origin where the file was named, for messages
     */
    record Location(Optional<Path> file, String origin) {
        /** @return the location chosen by the builder's path, the system property, the environment, or the default */
        static Location choose(Optional<Path> explicit) {
            if (explicit.isPresent()) {
                return new Location(explicit, "the path given to NvmlGpus.builder().library(...)");
            }
            String property = System.getProperty(PROPERTY, "").strip();
            if (!property.isEmpty()) {
                return new Location(Optional.of(Path.of(property)), "the system property " + PROPERTY);
            }
            String env = Optional.ofNullable(System.getenv(ENVIRONMENT)).orElse("").strip();
            if (!env.isEmpty()) {
                return new Location(Optional.of(Path.of(env)), "the environment variable " + ENVIRONMENT);
            }
            return new Location(Optional.empty(), "the default name " + DEFAULT_NAME);
        }

        String describe() {
            return file.map(f -> f + " (named by " + origin + ")").orElse(DEFAULT_NAME + " (searched by the dynamic loader)");
        }
    }

    /**
     * @param location where the library is
     * @return the loaded library, probed
     * @throws GpuUnavailableException if it cannot be found or loaded, or lacks a required function
     */
    static NvmlLibrary load(Location location) {
        String key;
        if (location.file().isPresent()) {
            Path file = location.file().get().toAbsolutePath().normalize();
            if (!Files.exists(file)) {
                throw new GpuUnavailableException(Reason.LIBRARY_NOT_FOUND, "the NVML library " + file
                        + ", named by " + location.origin() + ", does not exist: correct the path, or unset it"
                        + " to use the driver's " + DEFAULT_NAME);
            }
            if (Files.isDirectory(file)) {
                throw new GpuUnavailableException(Reason.LIBRARY_NOT_FOUND, "the NVML library " + file
                        + ", named by " + location.origin() + ", is a directory: name the file "
                        + DEFAULT_NAME + " itself");
            }
            key = file.toString();
        } else {
            key = DEFAULT_NAME;
        }
        NvmlLibrary cached = LOADED.get(key);
        if (cached != null) {
            return cached;
        }
        synchronized (LOADED) {
            cached = LOADED.get(key);
            if (cached == null) {
                cached = open(key, location);
                LOADED.put(key, cached);
            }
            return cached;
        }
    }

    private static NvmlLibrary open(String key, Location location) {
        NvmlNative api;
        try {
            api = Native.load(key, NvmlNative.class);
        } catch (UnsatisfiedLinkError e) {
            if (location.file().isPresent()) {
                throw new GpuUnavailableException(Reason.LIBRARY_NOT_LOADABLE, "the NVML library " + key
                        + ", named by " + location.origin() + ", cannot be loaded as a shared library ("
                        + e.getMessage() + "): name the driver's " + DEFAULT_NAME, e);
            }
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_FOUND, DEFAULT_NAME + " was not found by the"
                    + " dynamic loader: the NVIDIA driver is not installed on this machine (or its library"
                    + " directory is not in the loader's path). Install the driver, or name the library with"
                    + " -D" + PROPERTY + "=/path/to/" + DEFAULT_NAME + " or " + ENVIRONMENT, e);
        }
        NativeLibrary lib = ((Library.Handler) Proxy.getInvocationHandler(api)).getNativeLibrary();
        Set<String> present = new HashSet<>();
        for (String symbol : Symbols.ALL) {
            try {
                lib.getFunction(symbol);
                present.add(symbol);
            } catch (UnsatisfiedLinkError absent) {
                // Not in this driver: the function counts as not supported.
            }
        }
        List<String> missing = new ArrayList<>();
        for (String symbol : REQUIRED) {
            if (!present.contains(symbol)) {
                missing.add(symbol);
            }
        }
        if (!missing.isEmpty()) {
            throw new GpuUnavailableException(Reason.LIBRARY_TOO_OLD, "the NVML library " + location.describe()
                    + " lacks " + String.join(", ", missing) + ": it is older than any driver procscope"
                    + " supports (NVML 5.319); install a current NVIDIA driver");
        }
        return new NvmlLibrary(key, api, Collections.unmodifiableSet(present));
    }

    /** @return the raw binding */
    NvmlNative api() {
        return api;
    }

    /** @return the file or name the library was loaded from */
    String name() {
        return name;
    }

    /**
     * @param symbol a function name
     * @return whether this library exports it
     */
    boolean has(String symbol) {
        return symbols.contains(symbol);
    }

    /**
     * @param candidates function names, newest first
     * @return the first one this library exports
     */
    Optional<String> newest(String... candidates) {
        for (String c : candidates) {
            if (symbols.contains(c)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /**
     * Initializes NVML if no open inventory of this library has.
     *
     * @throws GpuUnavailableException if {@code nvmlInit_v2} fails, with the reason
     */
    void acquire() {
        synchronized (initLock) {
            if (references == 0) {
                int rc = api.nvmlInit_v2();
                if (rc != NvmlNative.NVML_SUCCESS) {
                    throw initFailure(rc);
                }
            }
            references++;
        }
    }

    /**
     * Shuts NVML down when the last open inventory of this library releases it.
     *
     * @throws NvmlException if {@code nvmlShutdown} fails
     */
    void release() {
        synchronized (initLock) {
            if (references <= 0) {
                throw new IllegalStateException("NVML released more often than acquired");
            }
            references--;
            if (references == 0) {
                int rc = api.nvmlShutdown();
                if (rc != NvmlNative.NVML_SUCCESS) {
                    throw new NvmlException("nvmlShutdown", rc, errorString(rc), Optional.empty());
                }
            }
        }
    }

    /** @return how many open inventories hold NVML initialized through this library */
    int references() {
        synchronized (initLock) {
            return references;
        }
    }

    private GpuUnavailableException initFailure(int rc) {
        NvmlReturn r = NvmlReturn.of(rc);
        String text = "nvmlInit_v2 of " + name + " returned " + r.cName() + " (" + rc + ") \"" + errorString(rc) + "\"";
        return switch (r) {
            case DRIVER_NOT_LOADED -> new GpuUnavailableException(Reason.DRIVER_NOT_LOADED, text
                    + ": the nvidia kernel module is not loaded (no GPU, or the driver failed to load:"
                    + " check the kernel log)", r);
            case LIB_RM_VERSION_MISMATCH -> new GpuUnavailableException(Reason.DRIVER_LIBRARY_MISMATCH, text
                    + ": the library and the loaded kernel module come from different driver versions;"
                    + " reboot after a driver upgrade, or reload the nvidia module", r);
            case NO_PERMISSION -> new GpuUnavailableException(Reason.NO_PERMISSION, text
                    + ": this user may not talk to the driver; check the permissions of /dev/nvidiactl", r);
            default -> new GpuUnavailableException(Reason.INIT_FAILED, text
                    + (r.hint().isEmpty() ? "" : ": " + r.hint()), r);
        };
    }

    /**
     * @param rc an NVML return code
     * @return NVML's text for it ({@code nvmlErrorString}); empty if NVML gives none
     */
    String errorString(int rc) {
        Pointer p = api.nvmlErrorString(rc);
        if (p == null) {
            return "";
        }
        byte[] bytes = p.getByteArray(0, 256);
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "NVML library " + name;
    }

    /** Every function the binding may call, probed once per library. */
    static final class Symbols {
        static final List<String> ALL = List.of(
                "nvmlInit_v2", "nvmlShutdown", "nvmlErrorString",
                "nvmlSystemGetDriverVersion", "nvmlSystemGetNVMLVersion",
                "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion",
                "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
                "nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetSerial", "nvmlDeviceGetPciInfo_v3",
                "nvmlDeviceGetIndex", "nvmlDeviceGetMinorNumber",
                "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetEccMode", "nvmlDeviceGetMigMode",
                "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetUtilizationRates",
                "nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature",
                "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit",
                "nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo",
                "nvmlDeviceGetPerformanceState", "nvmlDeviceGetFanSpeed",
                "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
                "nvmlDeviceGetTotalEccErrors",
                "nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex",
                "nvmlDeviceIsMigDeviceHandle", "nvmlDeviceGetGpuInstanceId", "nvmlDeviceGetComputeInstanceId",
                "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
                "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses_v2",
                "nvmlDeviceGetMPSComputeRunningProcesses_v2",
                "nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
                "nvmlDeviceGetMPSComputeRunningProcesses",
                "nvmlDeviceGetProcessesUtilizationInfo", "nvmlDeviceGetProcessUtilization",
                "nvmlGpmQueryDeviceSupport", "nvmlGpmSampleAlloc", "nvmlGpmSampleFree", "nvmlGpmSampleGet",
                "nvmlGpmMetricsGet");

        private Symbols() {
        }
    }
}
