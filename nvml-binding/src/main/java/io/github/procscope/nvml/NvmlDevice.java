package io.github.procscope.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuMemory;
import io.github.procscope.api.gpu.GpuModes;
import io.github.procscope.api.gpu.GpuProcessUtilization;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.gpu.RemappedRows;
import io.github.procscope.api.gpu.XidErrors;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A GPU or MIG device of an {@link NvmlGpus} inventory: its identity, read once when it is opened, and its
 * MIG devices. What it reads later is done by one part per concern, all through the same
 * {@link DeviceCalls} discipline: {@link DeviceSampler} (sample, modes), {@link DeviceProcesses} (process
 * lists, per-process utilization) and {@link DeviceGpm} (GPM metrics).
 */
final class NvmlDevice implements GpuDevice {
    private static final int RC_NOT_FOUND = NvmlReturn.NOT_FOUND.code();
    private static final Duration GPM_MIN_INTERVAL = Duration.ofMillis(100);

    private final DeviceCalls calls;
    private final Optional<NvmlDevice> parent;
    private final int index;
    private final String uuid;
    private final String name;
    private final Optional<String> pciBusId;
    private final OptionalInt minorNumber;
    private final Optional<String> serial;
    private final OptionalInt gpuInstanceId;
    private final OptionalInt computeInstanceId;
    private final Optional<Long> totalMemory;
    private final DeviceSampler sampler;
    private final DeviceProcesses processes;
    private final DeviceGpm gpm;

    private NvmlDevice(NvmlGpus owner, Pointer handle, int index, Optional<NvmlDevice> parent) {
        String provisional = parent.map(p -> "MIG device " + index + " of " + p.label()).orElse("GPU " + index);
        this.calls = new DeviceCalls(owner, handle, parent.map(p -> p.calls), provisional);
        this.parent = parent;
        NvmlFunctions fns = calls.functions();
        this.uuid = calls.requiredString(fns.uuid, NvmlNative.NVML_DEVICE_UUID_V2_BUFFER_SIZE);
        this.name = calls.requiredString(fns.name, NvmlNative.NVML_DEVICE_NAME_V2_BUFFER_SIZE);
        if (parent.isPresent()) {
            this.index = index;
            this.pciBusId = Optional.empty();
            this.minorNumber = OptionalInt.empty();
            this.serial = Optional.empty();
            this.gpuInstanceId = calls.uint(fns.gpuInstanceId);
            this.computeInstanceId = calls.uint(fns.computeInstanceId);
        } else {
            this.index = calls.uint(fns.index).orElse(index);
            this.pciBusId = readPciBusId(fns);
            this.minorNumber = calls.uint(fns.minorNumber);
            this.serial = calls.string(fns.serial, NvmlNative.NVML_DEVICE_SERIAL_BUFFER_SIZE).filter(s -> !s.isEmpty());
            this.gpuInstanceId = OptionalInt.empty();
            this.computeInstanceId = OptionalInt.empty();
        }
        calls.identified(parent.map(p -> "MIG device " + index + " of " + p.label() + " (" + uuid + ")")
                .orElseGet(() -> "GPU " + this.index + " (" + uuid + ")"));
        this.sampler = new DeviceSampler(calls);
        this.processes = new DeviceProcesses(calls);
        this.gpm = new DeviceGpm(calls);
        this.totalMemory = sampler.memory().map(GpuMemory::totalBytes);
    }

    /** Reads a GPU's identity (called while the inventory opens, before it is shared). */
    static NvmlDevice open(NvmlGpus owner, Pointer handle, int enumerationIndex) {
        return new NvmlDevice(owner, handle, enumerationIndex, Optional.empty());
    }

    private Optional<String> readPciBusId(NvmlFunctions fns) {
        if (!fns.pciInfo.isPresent()) {
            return Optional.empty();
        }
        NvmlStructs.PciInfo pci = new NvmlStructs.PciInfo();
        if (!calls.ok(fns.pciInfo.call().call(calls.handle(), pci), fns.pciInfo.name())) {
            return Optional.empty();
        }
        String busId = NvmlGpus.cString(pci.busId);
        return busId.isEmpty() ? Optional.empty() : Optional.of(busId);
    }

    // ---- identity ----

    @Override
    public int index() {
        return index;
    }

    @Override
    public String uuid() {
        return uuid;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<String> pciBusId() {
        return pciBusId;
    }

    @Override
    public OptionalInt minorNumber() {
        return minorNumber;
    }

    @Override
    public Optional<String> serial() {
        return serial;
    }

    @Override
    public boolean isMigDevice() {
        return parent.isPresent();
    }

    @Override
    public OptionalInt parentIndex() {
        return parent.isPresent() ? OptionalInt.of(parent.get().index()) : OptionalInt.empty();
    }

    @Override
    public OptionalInt gpuInstanceId() {
        return gpuInstanceId;
    }

    @Override
    public OptionalInt computeInstanceId() {
        return computeInstanceId;
    }

    @Override
    public boolean isLost() {
        return calls.isLost();
    }

    String label() {
        return calls.label();
    }

    Pointer handle() {
        return calls.handle();
    }

    // ---- the parts ----

    @Override
    public GpuModes modes() {
        return calls.guarded(calls.functions().persistenceMode.name(), sampler::modes);
    }

    @Override
    public GpuSample sample() {
        return calls.guarded(calls.functions().utilizationRates.name(), () -> sampler.sample(index, uuid));
    }

    @Override
    public GpuProcesses processes() {
        return calls.guarded(calls.functions().computeRunningProcesses.name(),
                () -> processes.processes(index, uuid, totalMemory));
    }

    @Override
    public Optional<List<GpuProcessUtilization>> processUtilization(Instant since) {
        Objects.requireNonNull(since, "since");
        long lastSeen = since.isBefore(Instant.EPOCH) ? 0
                : Math.addExact(Math.multiplyExact(since.getEpochSecond(), 1_000_000L), since.getNano() / 1000);
        return calls.guarded(calls.functions().processesUtilizationInfo.name(),
                () -> processes.utilization(uuid, lastSeen));
    }

    @Override
    public boolean gpmSupported() {
        return calls.guarded(calls.functions().gpmQueryDeviceSupport.name(), gpm::supported);
    }

    @Override
    public Optional<GpmMetrics> gpmMetrics(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(GPM_MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("GPM samples must be at least 100 ms apart (NVML's refresh period): "
                    + interval);
        }
        return calls.guarded(calls.functions().gpmSampleGet.name(), () -> gpm.metrics(uuid, interval));
    }

    // ---- errors ----

    @Override
    public OptionalLong pcieReplays() {
        NvmlFunctions fns = calls.functions();
        return calls.guarded(fns.pcieReplayCounter.name(), () -> {
            OptionalInt v = calls.uint(fns.pcieReplayCounter);
            return v.isPresent() ? OptionalLong.of(Integer.toUnsignedLong(v.getAsInt())) : OptionalLong.empty();
        });
    }

    @Override
    public Optional<RemappedRows> remappedRows() {
        NvmlFunctions fns = calls.functions();
        return calls.guarded(fns.remappedRows.name(), () -> {
            if (!fns.remappedRows.isPresent()) {
                return Optional.empty();
            }
            IntByReference corr = new IntByReference();
            IntByReference unc = new IntByReference();
            IntByReference pending = new IntByReference();
            IntByReference failed = new IntByReference();
            if (!calls.ok(fns.remappedRows.call().call(calls.handle(), corr, unc, pending, failed),
                    fns.remappedRows.name())) {
                return Optional.empty();
            }
            return Optional.of(new RemappedRows(Integer.toUnsignedLong(corr.getValue()),
                    Integer.toUnsignedLong(unc.getValue()), pending.getValue() != 0, failed.getValue() != 0));
        });
    }

    /** {@inheritDoc} A MIG device has none of its own: its XIDs are its parent GPU's. */
    @Override
    public Optional<XidErrors> xidErrors() {
        if (parent.isPresent()) {
            return Optional.empty();
        }
        return calls.guarded(calls.functions().registerEvents.name(),
                () -> calls.owner().xidWatcher().errorsOf(calls.handle()));
    }

    // ---- MIG ----

    @Override
    public List<GpuDevice> migDevices() {
        if (parent.isPresent()) {
            return List.of();
        }
        NvmlFunctions fns = calls.functions();
        return calls.guarded(fns.maxMigDeviceCount.name(), () -> {
            if (!fns.migDeviceHandleByIndex.isPresent()) {
                return List.of();
            }
            OptionalInt max = calls.uint(fns.maxMigDeviceCount);
            if (max.isEmpty() || max.getAsInt() <= 0) {
                return List.of();
            }
            List<GpuDevice> out = new ArrayList<>();
            for (int slot = 0; slot < max.getAsInt(); slot++) {
                PointerByReference mig = new PointerByReference();
                int rc = fns.migDeviceHandleByIndex.call().call(calls.handle(), slot, mig);
                if (rc == RC_NOT_FOUND || !calls.ok(rc, fns.migDeviceHandleByIndex.name())) {
                    continue; // an empty slot
                }
                out.add(new NvmlDevice(calls.owner(), mig.getValue(), slot, Optional.of(this)));
            }
            return Collections.unmodifiableList(out);
        });
    }

    @Override
    public String toString() {
        return label() + " " + name;
    }
}
