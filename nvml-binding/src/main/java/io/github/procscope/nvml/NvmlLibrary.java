package io.github.procscope.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.github.procscope.api.gpu.GpuUnavailableException.Reason;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loaded NVML library: its functions as typed handles ({@link NvmlFunctions}, resolved once, when it is
 * loaded), and the reference count of {@code nvmlInit_v2}/{@code nvmlShutdown} calls made through it. A
 * library named by a path is checked before it is loaded: only a readable regular file is handed to the
 * dynamic loader, so a FIFO, a device or a directory is refused at once instead of blocking the caller. Instances are
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

    private static final Map<String, NvmlLibrary> LOADED = new ConcurrentHashMap<>();

    private final String name;
    private final NvmlFunctions functions;
    private final Object initLock = new Object();
    private int references;

    private NvmlLibrary(String name, NvmlFunctions functions) {
        this.name = name;
        this.functions = functions;
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
            requireLibraryFile(file, location);
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

    /**
     * Checks what a named library path is before the dynamic loader opens it: the loader opens whatever it is
     * given and blocks forever on a FIFO, and reads a device such as {@code /dev/zero} as if it were a file.
     * Only a regular file (links followed) that this user may read goes on to be loaded.
     *
     * @throws GpuUnavailableException naming the path and what it is instead
     */
    static void requireLibraryFile(Path file, Location location) {
        String named = "the NVML library " + file + ", named by " + location.origin() + ",";
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_FOUND, named + " does not exist: correct the"
                    + " path, or unset it to use the driver's " + DEFAULT_NAME);
        } catch (IOException e) {
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_LOADABLE, named + " cannot be examined ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + "): check the permissions of the directories on its path", e);
        }
        if (attributes.isDirectory()) {
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_FOUND, named + " is a directory: name the file "
                    + DEFAULT_NAME + " itself");
        }
        if (!attributes.isRegularFile()) {
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_LOADABLE, named + " is " + specialKind(file)
                    + ", not a shared library file: name the driver's " + DEFAULT_NAME);
        }
        if (!Files.isReadable(file)) {
            throw new GpuUnavailableException(Reason.LIBRARY_NOT_LOADABLE, named + " cannot be read by this user:"
                    + " check its permissions");
        }
    }

    /** @return what a file that is neither regular nor a directory is, in words */
    private static String specialKind(Path file) {
        try {
            int type = (Integer) Files.getAttribute(file, "unix:mode") & 0170000;
            return switch (type) {
                case 0010000 -> "a FIFO (named pipe)";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "a special file";
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
        NvmlFunctions functions = new NvmlFunctions(api, symbol -> exports(lib, symbol));
        List<String> missing = functions.missingRequired();
        if (!missing.isEmpty()) {
            throw new GpuUnavailableException(Reason.LIBRARY_TOO_OLD, "the NVML library " + location.describe()
                    + " lacks " + String.join(", ", missing) + ": it is older than any driver procscope"
                    + " supports (NVML 5.319); install a current NVIDIA driver");
        }
        return new NvmlLibrary(key, functions);
    }

    private static boolean exports(NativeLibrary lib, String symbol) {
        try {
            lib.getFunction(symbol);
            return true;
        } catch (UnsatisfiedLinkError absent) {
            return false; // not in this driver: the function counts as not supported
        }
    }

    /** @return the typed handles on this library's functions, resolved when it was loaded */
    NvmlFunctions functions() {
        return functions;
    }

    /** @return the file or name the library was loaded from */
    String name() {
        return name;
    }

    /**
     * Initializes NVML if no open inventory of this library has.
     *
     * @throws GpuUnavailableException if {@code nvmlInit_v2} fails, with the reason
     */
    void acquire() {
        synchronized (initLock) {
            if (references == 0) {
                int rc = functions.init.call().call();
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
                int rc = functions.shutdown.call().call();
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
        Pointer p = functions.errorString.call().call(rc);
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
}
