package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcscopeException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads one of NVML's running-process lists ({@code nvmlDevice{Compute,Graphics,MPSCompute}RunningProcesses},
 * v1, {@code _v2} or {@code _v3}).
 *
 * <p><b>The size loop.</b> The list changes while it is read: the call answers
 * {@code NVML_ERROR_INSUFFICIENT_SIZE} with the count it needs, and by the next call more processes may have
 * started. The reader retries with room to spare, a bounded number of times.
 *
 * <p><b>The entry size.</b> v1 writes 16-byte {@code nvmlProcessInfo_v1_t} entries; {@code _v2} and
 * {@code _v3} write 24-byte {@code nvmlProcessInfo_t} entries, except that drivers 535.43 to 535.86 wrote
 * 32-byte entries (with {@code usedGpuCcProtectedMemory}) from {@code _v3} without a version bump. The
 * buffer is always allocated at a 32-byte stride, so no driver can write past it. It is filled with a
 * marker byte first; after the call, the last byte the driver changed shows the stride it used. The
 * stride is decided by that measurement and by the symbol and driver version, and the entries are
 * checked for plausibility before they are believed: pids between 1 and {@code PID_MAX_LIMIT} (2^22), MIG
 * ids that are ids or {@code 0xFFFFFFFF}, memory at most twice the device's.
 */
final class ProcessListReader {
    static final int STRIDE = 32;
    static final byte MARKER = (byte) 0xA5;
    static final int INITIAL_CAPACITY = 16;
    static final int MAX_ATTEMPTS = 12;
    static final int MAX_ENTRIES = 1 << 20;
    private static final long NOT_AVAILABLE = NvmlNative.NVML_VALUE_NOT_AVAILABLE;

    /** One entry as NVML wrote it, with its raw (unsigned) fields. */
    record RawProcess(long pid, long usedGpuMemory, int gpuInstanceId, int computeInstanceId) {
    }

    /** The outcome: entries, or the code the call returned. */
    record Result(int returnCode, List<RawProcess> processes, int entrySize) {
    }

    private ProcessListReader() {
    }

    /**
     * @param list            the list function, resolved to the symbol the library exports (its version, 1, 2
     *                        or 3, decides the entry layout)
     * @param driver          the driver version, when known
     * @param device          the device handle
     * @param deviceTotalMemory the device's total memory for the plausibility check; empty if unknown
     * @param deviceLabel     the device as a person names it, for errors
     * @return the entries with code {@code NVML_SUCCESS}, or another code with no entries
     * @throws ProcscopeException if the list kept growing beyond every retry, or its layout is not recognized
     */
    static Result read(NvmlFunction<NvmlFunctions.ProcessList> list, Optional<DriverVersion> driver,
                       Pointer device, Optional<Long> deviceTotalMemory, String deviceLabel) {
        NvmlFunctions.ProcessList call = list.call();
        String function = list.name();
        int symbolVersion = list.version();
        int capacity = INITIAL_CAPACITY;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            long bytes = (long) capacity * STRIDE;
            Memory buffer = new Memory(bytes);
            buffer.setMemory(0, bytes, MARKER);
            IntByReference count = new IntByReference(capacity);
            int rc = call.call(device, count, buffer);
            if (rc == 7 /* NVML_ERROR_INSUFFICIENT_SIZE */) {
                long needed = Integer.toUnsignedLong(count.getValue());
                if (needed > MAX_ENTRIES) {
                    throw new ProcscopeException(function + " on " + deviceLabel + " asked for room for " + needed
                            + " processes, more than " + MAX_ENTRIES + ": the driver's answer is not believable");
                }
                capacity = (int) Math.max(needed, capacity) + Math.max(8, (int) (needed / 4));
                continue;
            }
            if (rc != NvmlNative.NVML_SUCCESS) {
                return new Result(rc, List.of(), 0);
            }
            long n = Integer.toUnsignedLong(count.getValue());
            if (n > capacity) {
                throw new ProcscopeException(function + " on " + deviceLabel + " reported " + n
                        + " processes in a buffer with room for " + capacity + ": the driver's answer is not believable");
            }
            if (n == 0) {
                return new Result(rc, List.of(), expectedSize(symbolVersion, driver));
            }
            return decode(buffer, (int) n, function, symbolVersion, driver, deviceTotalMemory, deviceLabel);
        }
        throw new ProcscopeException(function + " on " + deviceLabel + " kept answering NVML_ERROR_INSUFFICIENT_SIZE"
                + " after " + MAX_ATTEMPTS + " ever larger buffers: processes start faster than the list can be"
                + " read; try again");
    }

    /** @return the entry size the symbol and the driver version promise */
    static int expectedSize(int symbolVersion, Optional<DriverVersion> driver) {
        return switch (symbolVersion) {
            case 1 -> 16;
            case 2 -> 24;
            default -> driver.map(DriverVersion::writes32ByteV3ProcessEntries).orElse(false) ? 32 : 24;
        };
    }

    /**
     * @return the entry size the driver used, from the last byte it changed: 16, 24 or 32
     */
    static int measuredSize(Pointer buffer, int n) {
        long end = (long) n * STRIDE;
        long last = -1;
        for (long i = end - 1; i >= 0; i--) {
            if (buffer.getByte(i) != MARKER) {
                last = i;
                break;
            }
        }
        long written = last + 1;
        if (written <= 16L * n) {
            return 16;
        }
        return written <= 24L * n ? 24 : 32;
    }

    static Result decode(Pointer buffer, int n, String function, int symbolVersion, Optional<DriverVersion> driver,
                         Optional<Long> deviceTotalMemory, String deviceLabel) {
        int expected = expectedSize(symbolVersion, driver);
        int measured = measuredSize(buffer, n);
        int[] candidates = measured == expected ? new int[] {measured} : new int[] {measured, expected};
        for (int size : candidates) {
            List<RawProcess> entries = parse(buffer, n, size);
            if (plausible(entries, size, buffer, deviceTotalMemory)) {
                return new Result(NvmlNative.NVML_SUCCESS, entries, size);
            }
        }
        throw new ProcscopeException(function + " on " + deviceLabel + " returned " + n + " process entries in a"
                + " layout procscope does not recognize (the driver wrote about " + measured + " bytes per entry;"
                + " the symbol and driver version " + driver.map(DriverVersion::text).orElse("unknown")
                + " promise " + expected + "): please report this driver version");
    }

    static List<RawProcess> parse(Pointer buffer, int n, int size) {
        List<RawProcess> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Pointer at = buffer.share((long) i * size);
            switch (size) {
                case 16 -> {
                    NvmlStructs.ProcessInfoV1 e = new NvmlStructs.ProcessInfoV1(at);
                    e.read();
                    out.add(new RawProcess(Integer.toUnsignedLong(e.pid), e.usedGpuMemory,
                            NvmlNative.NO_INSTANCE_ID, NvmlNative.NO_INSTANCE_ID));
                }
                case 24 -> {
                    NvmlStructs.ProcessInfoV2 e = new NvmlStructs.ProcessInfoV2(at);
                    e.read();
                    out.add(new RawProcess(Integer.toUnsignedLong(e.pid), e.usedGpuMemory, e.gpuInstanceId,
                            e.computeInstanceId));
                }
                default -> {
                    NvmlStructs.ProcessDetailV1 e = new NvmlStructs.ProcessDetailV1(at);
                    e.read();
                    out.add(new RawProcess(Integer.toUnsignedLong(e.pid), e.usedGpuMemory, e.gpuInstanceId,
                            e.computeInstanceId));
                }
            }
        }
        return out;
    }

    private static boolean plausible(List<RawProcess> entries, int size, Pointer buffer, Optional<Long> total) {
        // Twice the device's memory: generous to accounting quirks, far below what a misread field gives.
        long memoryLimit = total.map(t -> t > (1L << 61) ? Long.MAX_VALUE : 2 * t).orElse(1L << 50);
        for (int i = 0; i < entries.size(); i++) {
            RawProcess p = entries.get(i);
            if (p.pid() < 1 || p.pid() > Pids.PID_MAX_LIMIT) {
                return false; // Linux pids, of any namespace, are 1 to 2^22
            }
            long used = p.usedGpuMemory();
            if (used != NOT_AVAILABLE && (used < 0 || used > memoryLimit)) {
                return false;
            }
            if (size > 16 && (!plausibleInstance(p.gpuInstanceId()) || !plausibleInstance(p.computeInstanceId()))) {
                return false;
            }
            if (size == 32) {
                long cc = buffer.getLong((long) i * 32 + 24);
                if (cc != NOT_AVAILABLE && (cc < 0 || cc > memoryLimit)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean plausibleInstance(int id) {
        return id == NvmlNative.NO_INSTANCE_ID || (id >= 0 && id <= 0xFFFF);
    }
}
