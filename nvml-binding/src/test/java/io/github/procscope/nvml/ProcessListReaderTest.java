package io.github.procscope.nvml;

import com.sun.jna.Memory;
import io.github.procscope.api.core.ProcscopeException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Deciding the entry size of a process list, on buffers written by hand. */
class ProcessListReaderTest {
    private static final Optional<DriverVersion> R550 = DriverVersion.parse("550.54.15");
    private static final Optional<DriverVersion> R535_54 = DriverVersion.parse("535.54.03");

    private static Memory buffer(int entries) {
        Memory m = new Memory((long) entries * ProcessListReader.STRIDE);
        m.setMemory(0, m.size(), ProcessListReader.MARKER);
        return m;
    }

    private static void entry(Memory m, int size, int i, int pid, long used, int gi, int ci) {
        long at = (long) i * size;
        m.setInt(at, pid);
        m.setInt(at + 4, 0);
        m.setLong(at + 8, used);
        if (size >= 24) {
            m.setInt(at + 16, gi);
            m.setInt(at + 20, ci);
        }
        if (size == 32) {
            m.setLong(at + 24, 0);
        }
    }

    @Test
    void driverVersionsAreParsedAndThe535RangeIsKnown() {
        assertEquals(new DriverVersion(535, 54, 3, "535.54.03"), R535_54.orElseThrow());
        assertTrue(R535_54.orElseThrow().writes32ByteV3ProcessEntries());
        assertTrue(DriverVersion.parse("535.43.02").orElseThrow().writes32ByteV3ProcessEntries());
        assertTrue(DriverVersion.parse("535.86.10").orElseThrow().writes32ByteV3ProcessEntries());
        assertEquals(false, DriverVersion.parse("535.98").orElseThrow().writes32ByteV3ProcessEntries());
        assertEquals(false, DriverVersion.parse("530.41.03").orElseThrow().writes32ByteV3ProcessEntries());
        assertEquals(new DriverVersion(535, 98, 0, "535.98"), DriverVersion.parse("535.98").orElseThrow());
        for (String bad : List.of("", "535", "535.", "a.b", "535.54.03.1", ".54", "535..3", "535.54-beta")) {
            assertEquals(Optional.empty(), DriverVersion.parse(bad), bad);
        }
    }

    @Test
    void theExpectedSizeFollowsSymbolAndDriver() {
        assertEquals(16, ProcessListReader.expectedSize(1, R535_54));
        assertEquals(24, ProcessListReader.expectedSize(2, R535_54));
        assertEquals(32, ProcessListReader.expectedSize(3, R535_54));
        assertEquals(24, ProcessListReader.expectedSize(3, R550));
        assertEquals(24, ProcessListReader.expectedSize(3, Optional.empty()));
    }

    @Test
    void theMeasuredSizeIsTheLastByteTheDriverWrote() {
        for (int size : new int[] {16, 24, 32}) {
            for (int n = 1; n <= 5; n++) {
                Memory m = buffer(n);
                for (int i = 0; i < n; i++) {
                    entry(m, size, i, 100 + i, 1L << 30, -1, -1);
                }
                assertEquals(size, ProcessListReader.measuredSize(m, n), size + " bytes x " + n);
            }
        }
    }

    @Test
    void entriesThatMakeNoSenseInAnyLayoutAreRefused() {
        Memory m = buffer(2);
        entry(m, 24, 0, 0, 1L << 30, -1, -1);
        entry(m, 24, 1, 0, 1L << 30, -1, -1);
        ProcscopeException e = assertThrows(ProcscopeException.class, () -> ProcessListReader.decode(m, 2,
                "nvmlDeviceGetComputeRunningProcesses_v3", 3, R550, Optional.of(80L << 30), "GPU 0"));
        assertTrue(e.getMessage().contains("layout procscope does not recognize"), e.getMessage());
        assertTrue(e.getMessage().contains("550.54.15"), e.getMessage());
    }

    @Test
    void aMisleadingMeasurementIsCaughtByTheValues() {
        // 24-byte entries from a driver that also cleared the rest of the buffer: the last changed byte says
        // 32, and read at 32 bytes the second entry's pid would be 0. The values decide for 24.
        Memory m = buffer(2);
        m.setMemory(0, 64, (byte) 0);
        entry(m, 24, 0, 4242, 2L << 30, 1, 0);
        entry(m, 24, 1, 4243, 3L << 30, 2, 0);
        assertEquals(32, ProcessListReader.measuredSize(m, 2));
        ProcessListReader.Result r = ProcessListReader.decode(m, 2, "f", 3, R550, Optional.of(80L << 30), "GPU 0");
        assertEquals(24, r.entrySize());
        assertEquals(List.of(4242L, 4243L), r.processes().stream().map(ProcessListReader.RawProcess::pid).toList());
        assertEquals(3L << 30, r.processes().get(1).usedGpuMemory());
    }
}
