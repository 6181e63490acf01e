package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.Gpus;

/**
 * Run in a child JVM by the tests: opens the GPUs through {@code Procscope.system().openGpus()} (the ServiceLoader path, with
 * whatever library the environment names) and prints one line, {@code OPEN <driver> <uuid>...} or
 * {@code UNAVAILABLE <reason> <message>}.
 */
public final class GpusProbe {
    private GpusProbe() {
    }

    public static void main(String[] args) {
        try (Gpus gpus = Procscope.system().openGpus()) {
            StringBuilder sb = new StringBuilder("OPEN ").append(gpus.driverVersion());
            for (GpuDevice d : gpus.devices()) {
                sb.append(' ').append(d.uuid());
            }
            System.out.println(sb);
        } catch (GpuUnavailableException e) {
            System.out.println("UNAVAILABLE " + e.reason() + " " + e.getMessage());
        }
    }
}
