package io.github.procscope.api.spi;

import io.github.procscope.api.gpu.Gpus;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.GpusProvider} by an implementation
 * module ({@code nvml-binding}); {@link Gpus#open()} uses the first one found.
 */
public interface GpusProvider {
    /**
     * @return a newly opened inventory of this machine's GPUs
     * @throws io.github.procscope.api.gpu.GpuUnavailableException if there is no usable GPU
     */
    Gpus openGpus();
}
