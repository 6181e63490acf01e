package io.github.procscope.nvml;

import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.spi.GpusProvider;

/** Registers {@link NvmlGpus#open()} with {@link java.util.ServiceLoader} for {@link Gpus#open()}. */
public final class NvmlGpusProvider implements GpusProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public NvmlGpusProvider() {
    }

    @Override
    public Gpus openGpus() {
        return NvmlGpus.open();
    }
}
