package io.github.procscope.api;

import io.github.procscope.api.gpu.Gpus;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.GpusProvider} (or with {@code provides}
 * in a module descriptor) by a GPU implementation module ({@code nvml-binding}); {@link Procscope#openGpus()}
 * uses the first one found.
 */
public interface GpusProvider {
    /**
     * {@return a newly opened inventory of this machine's GPUs}
     *
     * @param procscope the front door whose readers the GPU inventory joins with (its procfs root, open files
     *                  and process table)
     * @throws io.github.procscope.api.gpu.GpuUnavailableException if there is no usable GPU
     */
    Gpus openGpus(Procscope procscope);
}
