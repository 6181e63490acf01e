package io.github.procscope.nvml;

import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.CudaVersion;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuFdScan;
import io.github.procscope.api.gpu.GpuMonitor;
import io.github.procscope.api.gpu.GpuMonitorOptions;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuUnavailableException.Reason;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.GpuUsers;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.InaccessibleGpu;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessTable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The {@link Gpus} inventory through NVML, loaded with JNA.
 *
 * <p><b>Which library.</b> In order: the path given to {@link Builder#library(Path)}; the system property
 * {@code procscope.nvml.library}; the environment variable {@code PROCSCOPE_NVML_LIBRARY} (both a file
 * path; blank values are ignored); else {@code libnvidia-ml.so.1} found by the dynamic loader, as the
 * driver installs it. A named path must be a readable regular file (links followed): a FIFO, a device or a
 * directory is refused at once with {@link GpuUnavailableException}, never handed to the loader. The
 * library is loaded on the first {@code open}, once per file for the life of the JVM, and its functions are
 * resolved then into typed handles, one per versioned family: a function the driver lacks makes its metric
 * empty, it never raises {@link UnsatisfiedLinkError}. Newer versions are preferred, older ones are the
 * fallback: {@code _v3} process lists, then {@code _v2}, then v1; {@code nvmlDeviceGetMemoryInfo_v2}, then
 * v1; clock event reasons, then throttle reasons; {@code nvmlDeviceGetTemperatureV}, then
 * {@code nvmlDeviceGetTemperature}; {@code nvmlDeviceGetProcessesUtilizationInfo}, then
 * {@code nvmlDeviceGetProcessUtilization}.
 *
 * <p><b>Open device files.</b> {@link #users(ProcessTable, Set)} also names processes that hold
 * {@code /dev/nvidia*} open without NVML listing them; it asks the {@link OpenFiles} reader given to
 * {@link Builder#openFiles(OpenFiles)} (the front door's, {@code Procscope.openGpus()} gives its own; else the
 * live system's, which needs an implementation such as {@code procfs-impl-linux} at run time).
 *
 * <p><b>Lifetime.</b> {@code open} initializes NVML ({@code nvmlInit_v2}) unless another open inventory of
 * the same library already did; {@link #close()} waits until calls in flight return, then shuts NVML down
 * when no other inventory holds it. Calls take a read lock and close takes the write lock, so NVML is
 * never shut down under a running call. Thread-safe.
 *
 * <p><b>XID errors.</b> The first {@link GpuDevice#xidErrors()} call starts one daemon thread that waits on an
 * NVML event set for the XID errors of every GPU (see {@link XidWatcher}); it ends when the inventory closes.
 *
 * <p><b>Errors.</b> {@code NVML_ERROR_NOT_SUPPORTED}, {@code NVML_ERROR_NO_PERMISSION} and
 * {@code NVML_ERROR_FUNCTION_NOT_FOUND} make a metric empty. Other codes throw {@link NvmlException}
 * naming the function, the GPU, the code and {@code nvmlErrorString}. {@code NVML_ERROR_GPU_IS_LOST} marks
 * that one device lost.
 */
public final class NvmlGpus implements Gpus {
    private final NvmlLibrary library;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String driverVersion;
    private final Optional<DriverVersion> parsedDriverVersion;
    private final String nvmlVersion;
    private final Optional<CudaVersion> cudaVersion;
    private final List<GpuDevice> devices;
    private final List<InaccessibleGpu> inaccessible;
    private final Supplier<OpenFiles> openFiles;
    /** Started by the first {@link GpuDevice#xidErrors()} call (guarded by this). */
    private XidWatcher xidWatcher;

    private NvmlGpus(NvmlLibrary library, Supplier<OpenFiles> openFiles) {
        this.library = library;
        this.openFiles = openFiles;
        NvmlFunctions fns = library.functions();
        byte[] driver = new byte[NvmlNative.NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        checkSystem(fns.driverVersion.call().call(driver, driver.length), fns.driverVersion.name());
        this.driverVersion = cString(driver);
        this.parsedDriverVersion = DriverVersion.parse(driverVersion);
        this.nvmlVersion = systemString(fns.nvmlVersion, NvmlNative.NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE).orElse("");
        this.cudaVersion = readCudaVersion(fns.cudaDriverVersion);

        IntByReference count = new IntByReference();
        checkSystem(fns.deviceCount.call().call(count), fns.deviceCount.name());
        List<GpuDevice> found = new ArrayList<>();
        List<InaccessibleGpu> refused = new ArrayList<>();
        for (int i = 0; i < count.getValue(); i++) {
            PointerByReference handle = new PointerByReference();
            int rc = fns.handleByIndex.call().call(i, handle);
            if (rc != NvmlNative.NVML_SUCCESS) {
                refused.add(inaccessible(i, rc, fns.handleByIndex.name()));
                continue;
            }
            try {
                found.add(NvmlDevice.open(this, handle.getValue(), i));
            } catch (NvmlException e) {
                refused.add(new InaccessibleGpu(i, e.nvmlReturn(), e.getMessage()));
            }
        }
        this.devices = List.copyOf(found);
        this.inaccessible = List.copyOf(refused);
    }

    /**
     * Opens the GPUs with the library chosen as described above and the system's open-file reader.
     *
     * @return the open inventory
     * @throws GpuUnavailableException if there is no usable GPU, with the reason
     */
    static NvmlGpus open() {
        return builder().open();
    }

    /** @return a builder to choose the library file or the open-file reader */
    static Builder builder() {
        return new Builder();
    }

    private static NvmlGpus open(Builder b) {
        NvmlLibrary library = NvmlLibrary.load(NvmlLibrary.Location.choose(b.library));
        library.acquire();
        NvmlGpus gpus;
        try {
            gpus = new NvmlGpus(library, b.openFiles.map(f -> (Supplier<OpenFiles>) () -> f)
                    .orElse(SystemOpenFiles::get));
        } catch (RuntimeException | Error e) {
            releaseAfterFailure(library, e);
            throw e;
        }
        if (gpus.devices.isEmpty()) {
            GpuUnavailableException e = gpus.noDevices();
            releaseAfterFailure(library, e);
            throw e;
        }
        return gpus;
    }

    private static void releaseAfterFailure(NvmlLibrary library, Throwable failure) {
        try {
            library.release();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private GpuUnavailableException noDevices() {
        if (inaccessible.isEmpty()) {
            return new GpuUnavailableException(Reason.NO_DEVICES, "NVML (" + library.name() + ", driver "
                    + driverVersion + ") reports no GPU: check that the GPUs are visible to this machine or"
                    + " container (lspci, the container's device list)");
        }
        boolean allPermission = inaccessible.stream().allMatch(g -> g.nvmlReturn() == NvmlReturn.NO_PERMISSION);
        StringBuilder detail = new StringBuilder();
        for (InaccessibleGpu g : inaccessible) {
            detail.append("; GPU ").append(g.index()).append(": ").append(g.nvmlReturn().cName());
        }
        if (allPermission) {
            return new GpuUnavailableException(Reason.NO_PERMISSION, "NVML counts " + inaccessible.size()
                    + " GPU(s) but this user may open none of them" + detail
                    + ": check the permissions of /dev/nvidia* and the container's or cgroup's device list",
                    NvmlReturn.NO_PERMISSION);
        }
        return new GpuUnavailableException(Reason.NO_DEVICES, "NVML counts " + inaccessible.size()
                + " GPU(s) but none can be used" + detail, inaccessible.get(0).nvmlReturn());
    }

    private InaccessibleGpu inaccessible(int index, int rc, String function) {
        NvmlReturn r = NvmlReturn.of(rc);
        String message = function + " failed for GPU " + index + ": " + r.cName() + " (" + rc + ") \""
                + library.errorString(rc) + "\"" + (r.hint().isEmpty() ? "" : ": " + r.hint());
        return new InaccessibleGpu(index, r, message);
    }

    private Optional<String> systemString(NvmlFunction<NvmlFunctions.SystemString> function, int size) {
        if (!function.isPresent()) {
            return Optional.empty();
        }
        byte[] buffer = new byte[size];
        int rc = function.call().call(buffer, size);
        if (isUnavailable(rc)) {
            return Optional.empty();
        }
        checkSystem(rc, function.name());
        return Optional.of(cString(buffer));
    }

    private Optional<CudaVersion> readCudaVersion(NvmlFunction<NvmlFunctions.SystemInt> function) {
        if (!function.isPresent()) {
            return Optional.empty();
        }
        IntByReference v = new IntByReference();
        int rc = function.call().call(v);
        NvmlReturn r = NvmlReturn.of(rc);
        if (isUnavailable(rc) || r == NvmlReturn.LIBRARY_NOT_FOUND) {
            return Optional.empty(); // no libcuda.so.1 on this machine
        }
        checkSystem(rc, function.name());
        return v.getValue() < 0 ? Optional.empty() : Optional.of(CudaVersion.fromNvml(v.getValue()));
    }

    private void checkSystem(int rc, String function) {
        if (rc != NvmlNative.NVML_SUCCESS) {
            throw new NvmlException(function, rc, library.errorString(rc), Optional.empty());
        }
    }

    /** @return whether the code means "this metric is not available here" */
    static boolean isUnavailable(int rc) {
        return rc == NvmlReturn.NOT_SUPPORTED.code() || rc == NvmlReturn.NO_PERMISSION.code()
                || rc == NvmlReturn.FUNCTION_NOT_FOUND.code();
    }

    /** @return the NUL-terminated text at the start of the buffer */
    static String cString(byte[] buffer) {
        int n = 0;
        while (n < buffer.length && buffer[n] != 0) {
            n++;
        }
        return new String(buffer, 0, n, java.nio.charset.StandardCharsets.UTF_8);
    }

    // ---- used by the devices ----

    NvmlLibrary library() {
        return library;
    }

    Optional<DriverVersion> parsedDriverVersion() {
        return parsedDriverVersion;
    }

    /** A held read lock. */
    interface Guard extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * @return the read lock, held until the guard is closed
     * @throws IllegalStateException if the inventory is closed
     */
    Guard enter() {
        Lock read = lock.readLock();
        read.lock();
        if (closed.get()) {
            read.unlock();
            throw closedException();
        }
        return read::unlock;
    }

    /**
     * @return the XID watcher, started on the first call (under the read lock, which the caller holds)
     * @throws NvmlException if setting it up fails (see {@link XidWatcher#start})
     */
    synchronized XidWatcher xidWatcher() {
        if (xidWatcher == null) {
            List<java.util.Map.Entry<com.sun.jna.Pointer, String>> gpus = new ArrayList<>();
            for (GpuDevice d : devices) {
                NvmlDevice n = (NvmlDevice) d;
                gpus.add(java.util.Map.entry(n.handle(), n.label()));
            }
            xidWatcher = XidWatcher.start(this, gpus);
        }
        return xidWatcher;
    }

    IllegalStateException closedException() {
        return new IllegalStateException("the GPU inventory of " + library.name() + " is closed");
    }

    /**
     * Waits, as long as the inventory stays open.
     *
     * @return true if the inventory began closing during the wait
     */
    boolean awaitClosing(Duration wait) {
        try {
            return closing.await(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting between GPM samples", e);
        }
    }

    // ---- Gpus ----

    @Override
    public String driverVersion() {
        ensureOpen();
        return driverVersion;
    }

    @Override
    public String nvmlVersion() {
        ensureOpen();
        return nvmlVersion;
    }

    @Override
    public Optional<CudaVersion> cudaDriverVersion() {
        ensureOpen();
        return cudaVersion;
    }

    @Override
    public List<GpuDevice> devices() {
        ensureOpen();
        return devices;
    }

    @Override
    public GpuDevice device(int index) {
        ensureOpen();
        for (GpuDevice d : devices) {
            if (d.index() == index) {
                return d;
            }
        }
        throw new IllegalArgumentException("no accessible GPU with index " + index + "; accessible: "
                + devices.stream().map(GpuDevice::index).toList()
                + (inaccessible.isEmpty() ? "" : "; inaccessible: " + inaccessible.stream().map(InaccessibleGpu::index).toList()));
    }

    @Override
    public Optional<GpuDevice> deviceByUuid(String uuid) {
        Objects.requireNonNull(uuid, "uuid");
        ensureOpen();
        for (GpuDevice d : devices) {
            if (d.uuid().equals(uuid)) {
                return Optional.of(d);
            }
        }
        for (GpuDevice d : devices) {
            if (!d.isLost()) {
                for (GpuDevice m : d.migDevices()) {
                    if (m.uuid().equals(uuid)) {
                        return Optional.of(m);
                    }
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public List<InaccessibleGpu> inaccessibleDevices() {
        ensureOpen();
        return inaccessible;
    }

    @Override
    public GpuMonitor monitor(List<GpuDevice> monitored, GpuMonitorOptions options) {
        ensureOpen();
        return new WindowedGpuMonitor(monitored, Objects.requireNonNull(options, "options"));
    }

    @Override
    public List<GpuUser> users(ProcessTable table, Set<Long> subreapers) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(subreapers, "subreapers");
        ensureOpen();
        List<GpuProcess> all = new ArrayList<>();
        for (GpuDevice d : devices) {
            try {
                GpuProcesses listed = d.processes();
                all.addAll(listed.processes());
                if (!listed.isComplete()) {
                    for (GpuDevice mig : d.migDevices()) {
                        all.addAll(mig.processes().processes());
                    }
                }
            } catch (NvmlException e) {
                if (e.nvmlReturn() != NvmlReturn.GPU_IS_LOST) {
                    throw e;
                }
            }
        }
        GpuFdScan scan = new DeviceFileScanner(openFiles.get()).scan();
        return GpuUsers.join(all, scan.users(), table.snapshot(Set.of(Facet.CGROUP)), subreapers);
    }

    /** @return the library file (or name) NVML was loaded from */
    public String libraryName() {
        return library.name();
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return closed.get();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw closedException();
        }
    }

    /**
     * Waits until calls in flight return, then shuts NVML down ({@code nvmlShutdown}) unless another open
     * inventory of the same library still holds it. Idempotent.
     *
     * @throws NvmlException if {@code nvmlShutdown} fails
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closing.countDown();
        Lock write = lock.writeLock();
        write.lock();
        try {
            synchronized (this) {
                if (xidWatcher != null) {
                    xidWatcher.free();
                }
            }
            library.release();
        } finally {
            write.unlock();
        }
    }

    @Override
    public String toString() {
        return "NvmlGpus[" + library.name() + ", driver " + driverVersion + ", " + devices.size() + " GPU(s)"
                + (closed.get() ? ", closed" : "") + "]";
    }

    /** Chooses the library file and the open-file reader before opening. */
    static final class Builder {
        private Optional<Path> library = Optional.empty();
        private Optional<OpenFiles> openFiles = Optional.empty();

        private Builder() {
        }

        /**
         * @param file the NVML library file to load, instead of the system property, environment variable
         *             or default name
         * @return this builder
         */
        public Builder library(Path file) {
            this.library = Optional.of(Objects.requireNonNull(file, "file"));
            return this;
        }

        /**
         * @param files the reader {@link NvmlGpus#users(ProcessTable)} asks for the holders of open
         *              {@code /dev/nvidia*} files: one rooted at a fixture tree or at a host's {@code /proc}
         *              mounted into a container. Default: the live system's, looked up on the first
         *              call of {@code users}
         * @return this builder
         */
        public Builder openFiles(OpenFiles files) {
            this.openFiles = Optional.of(Objects.requireNonNull(files, "files"));
            return this;
        }

        /**
         * @return the open inventory
         * @throws GpuUnavailableException if there is no usable GPU, with the reason
         */
        public NvmlGpus open() {
            return NvmlGpus.open(this);
        }
    }

    /** The live system's {@link OpenFiles}, looked up once it is first needed; a failed lookup is not remembered. */
    private static final class SystemOpenFiles {
        private static volatile OpenFiles system;

        private SystemOpenFiles() {
        }

        static OpenFiles get() {
            OpenFiles f = system;
            if (f == null) {
                f = Procscope.system().openFiles();
                system = f;
            }
            return f;
        }
    }
}
