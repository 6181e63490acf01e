package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.GpuUnavailableException.Reason;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.gpu.InaccessibleGpu;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Finding and loading the library, and every reason a machine has no usable GPU. */
class NvmlLoadingTest {

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount(), "NVML left initialized");
        System.clearProperty(NvmlLibrary.PROPERTY);
    }

    private static GpuUnavailableException unavailable(NvmlGpus.Builder b) {
        return assertThrows(GpuUnavailableException.class, b::open);
    }

    @Test
    void aMissingFileNamedByThePropertyIsLibraryNotFound(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-libnvidia-ml.so.1");
        System.setProperty(NvmlLibrary.PROPERTY, missing.toString());
        GpuUnavailableException e = assertThrows(GpuUnavailableException.class, () -> Procscope.system().openGpus());
        assertEquals(Reason.LIBRARY_NOT_FOUND, e.reason());
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("system property procscope.nvml.library"), e.getMessage());
        assertTrue(e.nvmlReturn().isEmpty());
    }

    @Test
    void aDirectoryIsNotALibrary(@TempDir Path dir) {
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(dir));
        assertEquals(Reason.LIBRARY_NOT_FOUND, e.reason());
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
    }

    @Test
    void aFileThatIsNoSharedLibraryIsNotLoadable(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("libnvidia-ml.so.1"), "not an ELF file\n");
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(text));
        assertEquals(Reason.LIBRARY_NOT_LOADABLE, e.reason());
        assertTrue(e.getMessage().contains(text.toString()), e.getMessage());
    }

    private static Path fifo(Path dir) throws IOException, InterruptedException {
        Path fifo = dir.resolve("libnvidia-ml.so.1");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo " + fifo);
        return fifo;
    }

    /** Opens with the library named, within 2 s, and returns the one-line refusal. */
    private static GpuUnavailableException refusedAtOnce(Path library) {
        GpuUnavailableException e = assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> unavailable(NvmlGpus.builder().library(library)), library + " blocked the caller");
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains(library.toString()), e.getMessage());
        return e;
    }

    @Test
    void aFifoIsRefusedAtOnceAndNeverOpened(@TempDir Path dir) throws Exception {
        GpuUnavailableException e = refusedAtOnce(fifo(dir));
        assertEquals(Reason.LIBRARY_NOT_LOADABLE, e.reason());
        assertTrue(e.getMessage().contains("is a FIFO (named pipe), not a shared library file"), e.getMessage());
    }

    @Test
    void aDeviceIsRefusedAtOnceEvenBehindALink(@TempDir Path dir) throws Exception {
        GpuUnavailableException e = refusedAtOnce(Path.of("/dev/zero"));
        assertEquals(Reason.LIBRARY_NOT_LOADABLE, e.reason());
        assertTrue(e.getMessage().contains("is a character device"), e.getMessage());
        Path link = Files.createSymbolicLink(dir.resolve("libnvidia-ml.so.1"), Path.of("/dev/zero"));
        assertTrue(refusedAtOnce(link).getMessage().contains("is a character device"));
    }

    @Test
    void aDirectoryIsRefusedAtOnce(@TempDir Path dir) {
        assertTrue(refusedAtOnce(dir).getMessage().contains("is a directory"));
    }

    @Test
    void aFifoNamedByTheEnvironmentVariableIsRefusedWithOneLine(@TempDir Path dir) throws Exception {
        Path fifo = fifo(dir);
        String line = probe(Map.of(NvmlLibrary.ENVIRONMENT, fifo.toString()));
        assertTrue(line.startsWith("UNAVAILABLE LIBRARY_NOT_LOADABLE "), line);
        assertTrue(line.contains("the NVML library " + fifo + ", named by the environment variable"
                + " PROCSCOPE_NVML_LIBRARY, is a FIFO"), line);
    }

    @Test
    void aLibraryWithoutNvmlInitV2IsTooOld() {
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.NO_INIT_V2)));
        assertEquals(Reason.LIBRARY_TOO_OLD, e.reason());
        assertTrue(e.getMessage().contains("nvmlInit_v2"), e.getMessage());
    }

    @Test
    void theBuilderPathWinsOverTheProperty(@TempDir Path dir) {
        NvmlDouble.reset(NvmlDouble.FULL);
        System.setProperty(NvmlLibrary.PROPERTY, dir.resolve("missing.so").toString());
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(NvmlDouble.library(NvmlDouble.FULL).toString(), gpus.libraryName());
        }
    }

    @Test
    void thePropertyIsUsedByGpusOpen() {
        NvmlDouble.reset(NvmlDouble.FULL);
        System.setProperty(NvmlLibrary.PROPERTY, NvmlDouble.library(NvmlDouble.FULL).toString());
        try (Gpus gpus = Procscope.system().openGpus()) {
            assertTrue(gpus instanceof NvmlGpus);
            assertEquals(2, gpus.devices().size());
        }
    }

    @Test
    void driverNotLoaded() {
        assertInitFailure(9, Reason.DRIVER_NOT_LOADED, NvmlReturn.DRIVER_NOT_LOADED, "kernel module");
    }

    @Test
    void driverAndLibraryVersionsDiffer() {
        assertInitFailure(18, Reason.DRIVER_LIBRARY_MISMATCH, NvmlReturn.LIB_RM_VERSION_MISMATCH, "reboot");
    }

    @Test
    void noPermissionToTalkToTheDriver() {
        assertInitFailure(4, Reason.NO_PERMISSION, NvmlReturn.NO_PERMISSION, "/dev/nvidiactl");
    }

    @Test
    void anyOtherInitFailureKeepsItsCode() {
        assertInitFailure(999, Reason.INIT_FAILED, NvmlReturn.UNKNOWN, "NVML_ERROR_UNKNOWN");
    }

    private static void assertInitFailure(int rc, Reason reason, NvmlReturn code, String advice) {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        c.ndSetInitResult(rc);
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)));
        assertEquals(reason, e.reason());
        assertEquals(code, e.nvmlReturn().orElseThrow());
        assertTrue(e.getMessage().contains("nvmlInit_v2"), e.getMessage());
        assertTrue(e.getMessage().contains(advice), e.getMessage());
        assertEquals(0, c.ndInitCount());
        c.ndSetInitResult(0);
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(2, gpus.devices().size(), "a failed init leaves nothing behind");
        }
    }

    @Test
    void noDevicesShutsNvmlDownAndSaysSo() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        c.ndSetDeviceCount(0);
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)));
        assertEquals(Reason.NO_DEVICES, e.reason());
        assertEquals(0, c.ndInitCount(), "nvmlShutdown after the failed open");
        assertEquals(1, c.ndCallCount("nvmlShutdown"));
    }

    @Test
    void everyDeviceRefusingThisUserIsNoPermission() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetHandleByIndex_v2", 4));
        NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetHandleByIndex_v2", 4));
        GpuUnavailableException e = unavailable(NvmlGpus.builder().library(NvmlDouble.library(NvmlDouble.FULL)));
        assertEquals(Reason.NO_PERMISSION, e.reason());
        assertTrue(e.getMessage().contains("2 GPU(s)"), e.getMessage());
        assertEquals(0, c.ndInitCount());
    }

    @Test
    void oneRefusingDeviceLeavesTheOthersUsable() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(0, "nvmlDeviceGetHandleByIndex_v2", 4));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(1, gpus.devices().size());
            assertEquals(1, gpus.devices().get(0).index());
            List<InaccessibleGpu> refused = gpus.inaccessibleDevices();
            assertEquals(1, refused.size());
            assertEquals(0, refused.get(0).index());
            assertEquals(NvmlReturn.NO_PERMISSION, refused.get(0).nvmlReturn());
            assertTrue(refused.get(0).message().contains("Insufficient Permissions"), refused.get(0).message());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> gpus.device(0));
            assertTrue(e.getMessage().contains("inaccessible: [0]"), e.getMessage());
        }
    }

    @Test
    void aDeviceLostWhileOpeningIsListedAsInaccessible() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlDouble.ok(c.ndFail(1, "nvmlDeviceGetUUID", 15));
        try (NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(List.of(0), gpus.devices().stream().map(d -> d.index()).toList());
            assertEquals(NvmlReturn.GPU_IS_LOST, gpus.inaccessibleDevices().get(0).nvmlReturn());
        }
    }

    // ---- a fresh JVM: the environment variable, the dynamic loader, and the default on this machine ----

    /**
     * Whether the dynamic loader finds the driver's library here, asked of JNA directly in a fresh JVM (in
     * this one the double, whose soname is libnvidia-ml.so.1, is already loaded and would answer).
     */
    private static boolean driverLibraryLoads() {
        ProcessBuilder pb = Spawned.javaCommand(List.of(), LoaderOracle.class).redirectError(ProcessBuilder.Redirect.INHERIT);
        try (Spawned spawned = new Spawned()) {
            return Spawned.readLine(spawned.start(pb), Duration.ofSeconds(60)).equals("FOUND");
        }
    }

    /** Prints FOUND or ABSENT: whether plain JNA can load libnvidia-ml.so.1 by name. */
    public static final class LoaderOracle {
        private LoaderOracle() {
        }

        public static void main(String[] args) {
            try {
                com.sun.jna.NativeLibrary.getInstance("libnvidia-ml.so.1");
                System.out.println("FOUND");
            } catch (UnsatisfiedLinkError e) {
                System.out.println("ABSENT");
            }
        }
    }

    private static String probe(Map<String, String> env) {
        ProcessBuilder pb = Spawned.javaCommand(List.of(), GpusProbe.class).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().remove(NvmlLibrary.ENVIRONMENT);
        pb.environment().putAll(env);
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(pb);
            return Spawned.readLine(p, Duration.ofSeconds(60));
        }
    }

    @Test
    void theEnvironmentVariableNamesTheLibrary() {
        NvmlDouble.reset(NvmlDouble.FULL);
        String line = probe(Map.of(NvmlLibrary.ENVIRONMENT, NvmlDouble.library(NvmlDouble.FULL).toString()));
        assertTrue(line.startsWith("OPEN 550.54.15 GPU-"), line);
    }

    @Test
    void theEnvironmentVariableNamingNothingIsLibraryNotFound(@TempDir Path dir) {
        String line = probe(Map.of(NvmlLibrary.ENVIRONMENT, dir.resolve("gone.so.1").toString()));
        assertTrue(line.startsWith("UNAVAILABLE LIBRARY_NOT_FOUND"), line);
        assertTrue(line.contains("environment variable PROCSCOPE_NVML_LIBRARY"), line);
    }

    @Test
    void theDefaultNameIsFoundByTheDynamicLoader() {
        String dir = NvmlDouble.library(NvmlDouble.FULL).getParent().toString();
        String line = probe(Map.of("LD_LIBRARY_PATH", dir));
        assertTrue(line.startsWith("OPEN 550.54.15 GPU-"), line);
    }

    @Test
    void aMachineWithoutNvmlGetsTheClearReason() {
        assumeFalse(driverLibraryLoads(), "this machine has an NVIDIA driver library");
        String line = probe(Map.of());
        assertTrue(line.startsWith("UNAVAILABLE LIBRARY_NOT_FOUND "), line);
        assertTrue(line.contains("libnvidia-ml.so.1 was not found by the dynamic loader"), line);
        assertTrue(line.contains("Install the driver"), line);
    }
}
