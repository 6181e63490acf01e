package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcessType;
import io.github.procscope.api.gpu.GpuProcessUtilization;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.NvmlReturn;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The processes on one device: NVML's three running-process lists (compute, graphics, MPS), merged per
 * process, and the per-process utilization samples. Each list is read through the newest symbol of its
 * family the library exports ({@link ProcessListReader} decides the entry layout from the symbol's
 * version); a list the driver lacks or withholds is reported as withheld, with its code. Thread-safe.
 */
final class DeviceProcesses {
    private static final int RC_NOT_FOUND = NvmlReturn.NOT_FOUND.code();
    private static final int RC_INSUFFICIENT_SIZE = NvmlReturn.INSUFFICIENT_SIZE.code();
    private static final int RC_ARGUMENT_VERSION_MISMATCH = NvmlReturn.ARGUMENT_VERSION_MISMATCH.code();

    private final DeviceCalls calls;
    private final NvmlFunctions fns;
    private final Pointer handle;

    DeviceProcesses(DeviceCalls calls) {
        this.calls = calls;
        this.fns = calls.functions();
        this.handle = calls.handle();
    }

    private record Key(long pid, int gpuInstanceId, int computeInstanceId) {
    }

    private static final Comparator<Key> KEY_ORDER = Comparator.comparingLong(Key::pid)
            .thenComparingLong(k -> Integer.toUnsignedLong(k.gpuInstanceId()))
            .thenComparingLong(k -> Integer.toUnsignedLong(k.computeInstanceId()));

    /**
     * @param index       the device's index, for the records
     * @param uuid        the device's UUID, for the records
     * @param totalMemory the device's memory, for the plausibility check of the entries
     * @return the processes now (called under the inventory's read lock)
     */
    GpuProcesses processes(int index, String uuid, Optional<Long> totalMemory) {
        Map<Key, Set<GpuProcessType>> types = new TreeMap<>(KEY_ORDER);
        Map<Key, Long> memory = new TreeMap<>(KEY_ORDER);
        Map<GpuProcessType, NvmlReturn> withheld = new EnumMap<>(GpuProcessType.class);
        for (GpuProcessType type : GpuProcessType.values()) {
            NvmlFunction<NvmlFunctions.ProcessList> list = fns.runningProcesses(type);
            if (!list.isPresent()) {
                withheld.put(type, NvmlReturn.FUNCTION_NOT_FOUND);
                continue;
            }
            ProcessListReader.Result result = ProcessListReader.read(list, calls.owner().parsedDriverVersion(),
                    handle, totalMemory, calls.label());
            if (!calls.ok(result.returnCode(), list.name())) {
                withheld.put(type, NvmlReturn.of(result.returnCode()));
                continue;
            }
            for (ProcessListReader.RawProcess raw : result.processes()) {
                Key key = new Key(raw.pid(), raw.gpuInstanceId(), raw.computeInstanceId());
                types.computeIfAbsent(key, k -> EnumSet.noneOf(GpuProcessType.class)).add(type);
                long used = raw.usedGpuMemory();
                if (used != NvmlNative.NVML_VALUE_NOT_AVAILABLE) {
                    memory.merge(key, used, Math::max);
                }
            }
        }
        List<GpuProcess> out = new ArrayList<>(types.size());
        for (Map.Entry<Key, Set<GpuProcessType>> e : types.entrySet()) {
            Key k = e.getKey();
            Long used = memory.get(k);
            out.add(new GpuProcess(index, uuid, k.pid(), e.getValue(),
                    used == null ? OptionalLong.empty() : OptionalLong.of(used),
                    instanceId(k.gpuInstanceId()), instanceId(k.computeInstanceId())));
        }
        return new GpuProcesses(out, withheld);
    }

    private static OptionalInt instanceId(int raw) {
        return raw == NvmlNative.NO_INSTANCE_ID ? OptionalInt.empty() : OptionalInt.of(raw);
    }

    /**
     * {@code nvmlDeviceGetProcessesUtilizationInfo}, else (absent, or refusing its structure version) the
     * older {@code nvmlDeviceGetProcessUtilization}.
     *
     * @param uuid     the device's UUID, for the records
     * @param lastSeen NVML's {@code lastSeenTimeStamp}: microseconds since the epoch
     * @return the samples since then; empty if the driver offers none (called under the read lock)
     */
    Optional<List<GpuProcessUtilization>> utilization(String uuid, long lastSeen) {
        if (fns.processesUtilizationInfo.isPresent()) {
            Optional<Optional<List<GpuProcessUtilization>>> r = utilizationInfo(uuid, lastSeen);
            if (r.isPresent()) {
                return r.get();
            }
        }
        if (fns.processUtilization.isPresent()) {
            return utilizationSamples(uuid, lastSeen);
        }
        return Optional.empty();
    }

    /** @return the answer of the newer query, or empty to fall back to the older one */
    private Optional<Optional<List<GpuProcessUtilization>>> utilizationInfo(String uuid, long lastSeen) {
        NvmlFunction<NvmlFunctions.UtilizationInfo> fn = fns.processesUtilizationInfo;
        int capacity = 0;
        int entrySize = new NvmlStructs.ProcessUtilizationInfoV1().size();
        for (int attempt = 0; attempt < ProcessListReader.MAX_ATTEMPTS; attempt++) {
            NvmlStructs.ProcessesUtilizationInfoV1 info = new NvmlStructs.ProcessesUtilizationInfoV1();
            Memory array = capacity == 0 ? null : new Memory((long) capacity * entrySize);
            info.lastSeenTimeStamp = lastSeen;
            info.processSamplesCount = capacity;
            info.procUtilArray = array;
            int rc = fn.call().call(handle, info);
            if (rc == RC_ARGUMENT_VERSION_MISMATCH) {
                return Optional.empty();
            }
            if (rc == RC_NOT_FOUND) {
                return Optional.of(Optional.of(List.of()));
            }
            if (rc == RC_INSUFFICIENT_SIZE) {
                capacity = Math.max(capacity, info.processSamplesCount) + 4;
                continue;
            }
            if (!calls.ok(rc, fn.name())) {
                return Optional.of(Optional.empty());
            }
            int n = Math.min(info.processSamplesCount, capacity);
            List<GpuProcessUtilization> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                NvmlStructs.ProcessUtilizationInfoV1 e =
                        new NvmlStructs.ProcessUtilizationInfoV1(array.share((long) i * entrySize));
                e.read();
                out.add(new GpuProcessUtilization(uuid, Integer.toUnsignedLong(e.pid), micros(e.timeStamp), e.smUtil,
                        e.memUtil, e.encUtil, e.decUtil, OptionalInt.of(e.jpgUtil), OptionalInt.of(e.ofaUtil)));
            }
            return Optional.of(Optional.of(sortByPid(out)));
        }
        throw new ProcscopeException(fn.name() + " on " + calls.label() + " kept asking for a larger buffer; try again");
    }

    private Optional<List<GpuProcessUtilization>> utilizationSamples(String uuid, long lastSeen) {
        NvmlFunction<NvmlFunctions.UtilizationSamples> fn = fns.processUtilization;
        int entrySize = new NvmlStructs.ProcessUtilizationSample().size();
        int capacity = 0;
        for (int attempt = 0; attempt < ProcessListReader.MAX_ATTEMPTS; attempt++) {
            Memory array = capacity == 0 ? null : new Memory((long) capacity * entrySize);
            IntByReference count = new IntByReference(capacity);
            int rc = fn.call().call(handle, array, count, lastSeen);
            if (rc == RC_NOT_FOUND) {
                return Optional.of(List.of());
            }
            if (rc == RC_INSUFFICIENT_SIZE) {
                capacity = Math.max(capacity, count.getValue()) + 4;
                continue;
            }
            if (!calls.ok(rc, fn.name())) {
                return Optional.empty();
            }
            if (array == null) {
                return Optional.of(List.of());
            }
            int n = Math.min(count.getValue(), capacity);
            List<GpuProcessUtilization> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                NvmlStructs.ProcessUtilizationSample e =
                        new NvmlStructs.ProcessUtilizationSample(array.share((long) i * entrySize));
                e.read();
                out.add(new GpuProcessUtilization(uuid, Integer.toUnsignedLong(e.pid), micros(e.timeStamp), e.smUtil,
                        e.memUtil, e.encUtil, e.decUtil, OptionalInt.empty(), OptionalInt.empty()));
            }
            return Optional.of(sortByPid(out));
        }
        throw new ProcscopeException(fn.name() + " on " + calls.label() + " kept asking for a larger buffer; try again");
    }

    private static List<GpuProcessUtilization> sortByPid(List<GpuProcessUtilization> list) {
        list.sort(Comparator.comparingLong(GpuProcessUtilization::pid).thenComparing(GpuProcessUtilization::timestamp));
        return Collections.unmodifiableList(list);
    }

    private static Instant micros(long micros) {
        return Instant.ofEpochSecond(Long.divideUnsigned(micros, 1_000_000L),
                Long.remainderUnsigned(micros, 1_000_000L) * 1000);
    }
}
