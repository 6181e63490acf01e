package io.github.procscope.api.gpu;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A device whose samples the test scripts, for the summaries here and the GPU monitor in nvml-binding, whose tests
 * get it from this module's test-jar.
 */
public final class FakeDevice implements GpuDevice {
    private final int index;
    private final String uuid;
    private final ArrayDeque<Object> script = new ArrayDeque<>();

    public FakeDevice(int index, String uuid) {
        this.index = index;
        this.uuid = uuid;
    }

    /** Queues a sample with these figures (absent where null). */
    public FakeDevice next(Instant at, Integer utilization, Long usedBytes, Long powerMilliwatts, Integer temperature) {
        script.add(sample(index, uuid, at, utilization, usedBytes, powerMilliwatts, temperature));
        return this;
    }

    /** Queues a failure. */
    public FakeDevice fail(RuntimeException e) {
        script.add(e);
        return this;
    }

    static GpuSample sample(int index, String uuid, Instant at, Integer utilization, Long usedBytes, Long powerMilliwatts,
                            Integer temperature) {
        return new GpuSample(index, uuid, at,
                utilization == null ? OptionalInt.empty() : OptionalInt.of(utilization), OptionalInt.empty(),
                usedBytes == null ? Optional.empty()
                        : Optional.of(new GpuMemory(80L << 30, usedBytes, (80L << 30) - usedBytes, OptionalLong.empty(), true)),
                temperature == null ? OptionalInt.empty() : OptionalInt.of(temperature),
                powerMilliwatts == null ? OptionalLong.empty() : OptionalLong.of(powerMilliwatts),
                OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
                OptionalLong.empty(), Optional.empty());
    }

    @Override
    public synchronized GpuSample sample() {
        Object next = script.poll();
        if (next == null) {
            throw new AssertionError("no sample scripted for " + uuid);
        }
        if (next instanceof RuntimeException e) {
            throw e;
        }
        return (GpuSample) next;
    }

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
        return "fake";
    }

    @Override
    public Optional<String> pciBusId() {
        return Optional.empty();
    }

    @Override
    public OptionalInt minorNumber() {
        return OptionalInt.empty();
    }

    @Override
    public Optional<String> serial() {
        return Optional.empty();
    }

    @Override
    public boolean isMigDevice() {
        return false;
    }

    @Override
    public OptionalInt parentIndex() {
        return OptionalInt.empty();
    }

    @Override
    public OptionalInt gpuInstanceId() {
        return OptionalInt.empty();
    }

    @Override
    public OptionalInt computeInstanceId() {
        return OptionalInt.empty();
    }

    @Override
    public GpuModes modes() {
        throw new UnsupportedOperationException();
    }

    @Override
    public GpuProcesses processes() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<List<GpuProcessUtilization>> processUtilization(Instant since) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<GpuDevice> migDevices() {
        return List.of();
    }

    @Override
    public boolean gpmSupported() {
        return false;
    }

    @Override
    public Optional<GpmMetrics> gpmMetrics(Duration interval) {
        return Optional.empty();
    }

    @Override
    public OptionalLong pcieReplays() {
        return OptionalLong.empty();
    }

    @Override
    public Optional<RemappedRows> remappedRows() {
        return Optional.empty();
    }

    @Override
    public Optional<XidErrors> xidErrors() {
        return Optional.empty();
    }

    @Override
    public boolean isLost() {
        return false;
    }
}
