package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.Gpus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One full GPU sample ({@link GpuDevice#sample()}: utilization, memory, temperature, power, energy, clocks,
 * performance state, fan, clock event reasons, ECC counts, encoder and decoder utilization, the memory
 * temperature and NVLink counters in one field-value call, the vGPU licence) through procscope's binding,
 * against the same NVML calls made directly from C: the cost of the binding. Both call the NVML test double
 * ({@code nvml-binding/src/test/c/nvml_double.c}), whose functions take a lock and copy a few values, so
 * the difference is the binding's own work.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
public class NvmlBenchmark {
    private NativeParts.Floor floor;
    private Memory sample;
    private Gpus gpus;
    private GpuDevice device;

    /** Loads the double, resets it to its default GPUs, and opens it both ways. */
    @Setup
    public void setUp() {
        Path library = NativeParts.nvmlDouble();
        System.setProperty("procscope.nvml.library", library.toString());
        NativeParts.NvmlDoubleControl control = Native.load(library.toString(), NativeParts.NvmlDoubleControl.class);
        control.ndReset();
        floor = NativeParts.floor();
        int rc = floor.pf_nvml_open(library.toString());
        if (rc != 0) {
            throw new IllegalStateException("the C reference could not open " + library + ": " + rc);
        }
        sample = new Memory(floor.pf_sample_size());
        gpus = Procscope.system().openGpus();
        device = gpus.device(0);
        int failed = floor.pf_nvml_sample(sample);
        if (failed > 1) {
            throw new IllegalStateException(failed + " NVML calls of the C sample failed");
        }
        device.sample();
    }

    /** Closes both. */
    @TearDown
    public void tearDown() {
        if (gpus != null) {
            gpus.close();
        }
        if (floor != null) {
            floor.pf_nvml_close();
        }
    }

    /** @return a full sample through the binding */
    @Benchmark
    public GpuSample binding() {
        return device.sample();
    }

    /** @return how many calls failed in the same sample made from C */
    @Benchmark
    public int cDirect() {
        return floor.pf_nvml_sample(sample);
    }
}
